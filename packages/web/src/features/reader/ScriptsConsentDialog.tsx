/**
 * Asked once per scripted title before its scripts run (docs/decisions.md "Scripted publications"): Run scripts, or
 * Read without scripts (the chapter as every other title's, its scripts never run). Either answer is kept on the
 * account for this title and can be withdrawn in the reader's settings. Escape or the close button read without scripts
 * this time and ask again later.
 */
import { SCRIPTS_CONSENT_MESSAGES } from '@lectern/core';
import { useRef } from 'react';
import { Button } from '../../components/Button.tsx';
import { Modal } from '../../components/Modal.tsx';

export function ScriptsConsentDialog(props: { open: boolean; busy: boolean; error: string | null; onAnswer: (allow: boolean) => void; onDismiss: () => void }) {
  const declineRef = useRef<HTMLButtonElement>(null);
  return (
    <Modal
      open={props.open}
      onClose={props.onDismiss}
      title={SCRIPTS_CONSENT_MESSAGES.title}
      size="sm"
      describedBy="scripts-consent-text"
      // the answer that runs nothing has the focus first
      initialFocus={declineRef}
      footer={
        <>
          <Button ref={declineRef} variant="secondary" disabled={props.busy} onClick={() => props.onAnswer(false)}>
            {SCRIPTS_CONSENT_MESSAGES.decline}
          </Button>
          <Button disabled={props.busy} onClick={() => props.onAnswer(true)}>
            {SCRIPTS_CONSENT_MESSAGES.allow}
          </Button>
        </>
      }
    >
      <p id="scripts-consent-text">{SCRIPTS_CONSENT_MESSAGES.body}</p>
      {props.error ? <p role="alert">{props.error}</p> : null}
    </Modal>
  );
}
