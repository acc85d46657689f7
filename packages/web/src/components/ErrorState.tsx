import { Button } from './Button.tsx';
import './ErrorState.css';

/** A failed load: the reason and a Retry button. */
export function ErrorState({ message, onRetry, retrying = false }: { message: string; onRetry?: () => void; retrying?: boolean }) {
  return (
    <div className="error-state" role="alert">
      <p className="error-state__message">{message}</p>
      {onRetry ? (
        <Button variant="secondary" onClick={onRetry} busy={retrying}>
          Retry
        </Button>
      ) : null}
    </div>
  );
}
