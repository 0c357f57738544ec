import { lazy, Suspense } from 'react';
import { Spinner } from '../../../components/ui/spinner.tsx';
import type { TBacktestPanelProps } from './backtest-panel.tsx';

// The whole Test on history screen (panel, result, tables) is its own chunk, loaded when the
// wizard's Review or the details' tab first shows it: the agents page does not grow.
const BacktestPanel = lazy(() => import('./backtest-panel.tsx'));

export function TestOnHistory(props: TBacktestPanelProps) {
  return (
    <Suspense fallback={<Spinner label="Loading Test on history" />}>
      <BacktestPanel {...props} />
    </Suspense>
  );
}
