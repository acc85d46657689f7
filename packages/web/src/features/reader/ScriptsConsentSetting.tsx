/**
 * In the reader's settings, for a title allowed to run scripts (docs/decisions.md "Scripted publications"): the answer
 * the reader gave, and a button that withdraws it (the reader is asked again; a frame already open stops getting the
 * book's files).
 */
import { SCRIPTS_CONSENT_MESSAGES } from '@lectern/core';
import { useId, useState } from 'react';
import { useScriptsConsent } from './useScriptsConsent.ts';

export function ScriptsConsentSetting({ bookId }: { bookId: string }) {
  const id = useId();
  const consent = useScriptsConsent(bookId);
  const [withdrawn, setWithdrawn] = useState(false);
  if (consent.unavailable || consent.loading || consent.failed) return null;
  const answered = consent.decision === 'allowed' || consent.decision === 'declined';
  return (
    <div className="reader-settings__group" role="group" aria-labelledby={`${id}-scripts`}>
      <p id={`${id}-scripts`} className="reader-settings__label">
        {SCRIPTS_CONSENT_MESSAGES.settingsHeading}
      </p>
      <p className="reader-settings__note" role="status">
        {consent.decision === 'allowed' ? SCRIPTS_CONSENT_MESSAGES.allowedNow : consent.decision === 'declined' ? SCRIPTS_CONSENT_MESSAGES.declinedNow : withdrawn ? SCRIPTS_CONSENT_MESSAGES.withdrawn : ''}
      </p>
      {answered ? (
        <button
          type="button"
          className="reader-chip"
          disabled={consent.withdraw.isPending}
          onClick={() => consent.withdraw.mutate(undefined, { onSuccess: () => setWithdrawn(true) })}
        >
          {SCRIPTS_CONSENT_MESSAGES.withdraw}
        </button>
      ) : null}
    </div>
  );
}
