import { errorMessage } from '../../lib/api-client.ts';
import { Button } from './button.tsx';

/** A screen's data could not be loaded: say what and why, and offer to try again. */
export function LoadFailed({ what, error, onRetry, className = 'mt-8' }: { what: string; error: unknown; onRetry(): void; className?: string }) {
  return (
    <div role="alert" className={`rounded-lg border border-red-200 bg-red-50 p-4 text-red-800 ${className}`}>
      <p>
        {what} could not be loaded: {errorMessage(error)}
      </p>
      <Button variant="outline" size="sm" className="mt-3" onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}
