import { PendingScreen } from './pending-screen.tsx';
export default function AgentsPendingPage() {
  return <PendingScreen title="AI Agents Console" />;
}
