/**
 * A link out of the book (http, https, mailto) asks before it leaves (docs/decisions.md "Reading fidelity: footnotes
 * and links out of the book"); once the reader agrees it is left to the browser as reader.md §2 has it: a new tab with
 * no opener, or the mail app. The address is shown whole, so a link whose text says one site and whose address says
 * another is seen for what it is.
 */
import { READING_MESSAGES } from '@lectern/core';
import { Button } from '../../components/Button.tsx';
import { Modal } from '../../components/Modal.tsx';

export function LeaveBookDialog({ url, onClose }: { url: string | null; onClose: () => void }) {
  const parsed = url ? safeUrl(url) : null;
  const mail = parsed?.protocol === 'mailto:';
  const open = () => {
    if (!parsed) return;
    if (mail) window.location.href = parsed.href;
    else window.open(parsed.href, '_blank', 'noopener,noreferrer');
    onClose();
  };
  return (
    <Modal
      open={parsed !== null}
      onClose={onClose}
      title={READING_MESSAGES.leaveTitle}
      role="alertdialog"
      size="sm"
      describedBy="leave-book-text"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {READING_MESSAGES.stay}
          </Button>
          <Button onClick={open}>{READING_MESSAGES.openLink}</Button>
        </>
      }
    >
      {parsed ? (
        <div id="leave-book-text">
          <p>{mail ? READING_MESSAGES.leaveMail(decoded(parsed.pathname)) : READING_MESSAGES.leaveWeb(parsed.host)}</p>
          <p className="leave-book__address">{parsed.href}</p>
        </div>
      ) : null}
    </Modal>
  );
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function safeUrl(raw: string): URL | null {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url : null;
  } catch {
    return null;
  }
}
