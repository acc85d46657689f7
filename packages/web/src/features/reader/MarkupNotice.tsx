/**
 * The quiet notice on a chapter shown recovered (docs/decisions.md "A chapter that is not well-formed"): its XHTML is
 * not well-formed XML, so the HTML parser's recovery read it (as it reads every chapter) and the reader is told the
 * book has an error. A status line at the stage's bottom, read out politely, hidden by its button until another such
 * chapter opens.
 */
import { READING_MESSAGES } from '@lectern/core';
import { useState } from 'react';
import { Icon } from '../../components/Icon.tsx';

export function MarkupNotice({ chapter }: { chapter: string }) {
  const [hidden, setHidden] = useState<string | null>(null);
  if (hidden === chapter) return null;
  return (
    <div className="reader-markup-notice" role="status">
      <Icon name="alert" size={16} />
      <span>{READING_MESSAGES.bookHasError}</span>
      <button type="button" className="reader-markup-notice__hide" aria-label={READING_MESSAGES.hideNotice} onClick={() => setHidden(chapter)}>
        <Icon name="close" size={16} />
      </button>
    </div>
  );
}
