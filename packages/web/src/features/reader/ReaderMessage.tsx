/** The reader's centred states: a spinner or a message (information or error) in the middle of the stage. */
import type { ReactNode } from 'react';
import { ReaderIcon, type ReaderIconName } from '../../shared/reading/ReaderIcon.tsx';

export function Centered({ children }: { children: ReactNode }) {
  return <div className="reader-center">{children}</div>;
}

export function ReaderMessage({ tone = 'info', title, icon, children }: { tone?: 'info' | 'error'; title?: string; icon?: ReaderIconName; children?: ReactNode }) {
  return (
    <Centered>
      <div className={`reader-message reader-message--${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
        <span className="reader-message__icon" aria-hidden="true">
          <ReaderIcon name={icon ?? (tone === 'error' ? 'alert' : 'lock')} size={26} />
        </span>
        {title ? <p className="reader-message__title">{title}</p> : null}
        {children}
      </div>
    </Centered>
  );
}

/** A message with the reader's "Try again" button. */
export function RetryMessage({ title, onRetry }: { title: string; onRetry: () => void }) {
  return (
    <ReaderMessage tone="error" title={title}>
      <button type="button" className="reader-chip" onClick={onRetry}>
        Try again
      </button>
    </ReaderMessage>
  );
}
