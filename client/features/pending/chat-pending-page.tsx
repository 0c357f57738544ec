import { PendingScreen } from './pending-screen.tsx';
export default function ChatPendingPage() {
  return <PendingScreen title="AI Chat" />;
}
