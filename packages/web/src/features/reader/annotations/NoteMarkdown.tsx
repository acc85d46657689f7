/**
 * A note's markdown as React elements (docs/decisions.md "Annotations in the reader": notes rendered as sanitised
 * markdown). The subset a 750-character note needs — paragraphs, line breaks, bullet and numbered lists, **strong**,
 * *emphasis*, `code` and links — is parsed here into elements and text nodes; nothing of a note is ever parsed as HTML,
 * so a note cannot hold a script, an event handler or a style. Links keep only http(s), mailto and paths of this site
 * (anything else stays text); images are shown as their text (no remote images: docs/decisions.md).
 */
import type { ReactNode } from 'react';

const SAFE_LINK = /^(https?:\/\/|mailto:|\/(?!\/))/i;

/** Inline markup of one line: code first (its inside is literal), then links, strong, emphasis. */
function inline(text: string, key: string): ReactNode[] {
  const out: ReactNode[] = [];
  // `code` | [text](url) | ![alt](url) | **strong** | *em* | _em_
  // A link's address may hold one level of balanced parentheses (Wikipedia's addresses do).
  const re = /`([^`]+)`|!?\[([^\]]*)\]\(((?:[^()\s]|\([^()\s]*\))*)\)|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|(?<![\p{L}\p{N}])_([^_\s][^_]*)_(?![\p{L}\p{N}])/gu;
  let last = 0;
  let n = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const k = `${key}.${n++}`;
    if (m[1] !== undefined) out.push(<code key={k}>{m[1]}</code>);
    else if (m[2] !== undefined) {
      const url = m[3] ?? '';
      const label = m[2] || url;
      // An image shows its text; a link that may not be followed stays what was written.
      if (m[0].startsWith('!')) out.push(label);
      else if (!SAFE_LINK.test(url)) out.push(m[0]);
      else
        out.push(
          <a key={k} href={url} target="_blank" rel="noopener noreferrer nofollow">
            {label}
          </a>,
        );
    } else if (m[4] !== undefined) out.push(<strong key={k}>{inline(m[4], k)}</strong>);
    else if (m[5] !== undefined) out.push(<em key={k}>{inline(m[5], k)}</em>);
    else if (m[6] !== undefined) out.push(<em key={k}>{inline(m[6], k)}</em>);
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

const withBreaks = (lines: string[], key: string): ReactNode[] =>
  lines.flatMap((line, i) => (i === 0 ? inline(line, `${key}.${i}`) : [<br key={`${key}.br${i}`} />, ...inline(line, `${key}.${i}`)]));

export function NoteMarkdown({ text, className }: { text: string; className?: string }) {
  const blocks = text.replace(/\r\n?/g, '\n').split(/\n\s*\n/).map((b) => b.split('\n').filter((l) => l.trim() !== ''));
  return (
    <div className={className}>
      {blocks
        .filter((lines) => lines.length)
        .map((lines, i) => {
          const key = `b${i}`;
          if (lines.every((l) => /^\s*[-*+]\s+/.test(l)))
            return (
              <ul key={key}>
                {lines.map((l, j) => (
                  <li key={j}>{inline(l.replace(/^\s*[-*+]\s+/, ''), `${key}.${j}`)}</li>
                ))}
              </ul>
            );
          if (lines.every((l) => /^\s*\d+[.)]\s+/.test(l)))
            return (
              <ol key={key}>
                {lines.map((l, j) => (
                  <li key={j}>{inline(l.replace(/^\s*\d+[.)]\s+/, ''), `${key}.${j}`)}</li>
                ))}
              </ol>
            );
          return <p key={key}>{withBreaks(lines.map((l) => l.replace(/^#{1,6}\s+/, '')), key)}</p>;
        })}
    </div>
  );
}
