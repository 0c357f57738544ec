import { PendingScreen } from './pending-screen.tsx';
export default function ArticlePendingPage() {
  return <PendingScreen title="Create Article" />;
}
