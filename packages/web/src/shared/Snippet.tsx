/**
 * A search snippet: escaped text where only <mark> and </mark> are markup (core's search.ts), split into text and
 * <mark> elements — never set as HTML, so nothing of a book is ever parsed by the page.
 */
import { snippetParts } from '@lectern/core';

export function Snippet({ html }: { html: string }) {
  return (
    <>
      {snippetParts(html).map((part, i) => (part.mark ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}
    </>
  );
}
