/**
 * Search snippets as the client reads them: escaped text in which only `<mark>` and `</mark>` are markup. Kept apart
 * from search.ts (zod schemas) so the web app's entry can use them without loading zod (docs/decisions.md).
 */
/** The markers a snippet may contain; everything else in it is escaped text. */
export const SNIPPET_MARK_OPEN = '<mark>';
export const SNIPPET_MARK_CLOSE = '</mark>';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** The text of escaped snippet text: the entities an HTML escaper writes, decoded (never parsed as HTML). */
export function unescapeSnippet(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[body.toLowerCase()] ?? whole;
  });
}

export interface SnippetPart {
  text: string;
  mark: boolean;
}

/**
 * A snippet split on its only markup, `<mark>` and `</mark>`, into plain-text parts (entities decoded). Anything
 * else that looks like a tag stays text. An unclosed mark runs to the end; a stray `</mark>` is dropped.
 */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let mark = false;
  for (const token of snippet.split(/(<mark>|<\/mark>)/)) {
    if (token === SNIPPET_MARK_OPEN) mark = true;
    else if (token === SNIPPET_MARK_CLOSE) mark = false;
    else if (token) {
      const text = unescapeSnippet(token);
      const last = parts[parts.length - 1];
      if (last && last.mark === mark) last.text += text;
      else parts.push({ text, mark });
    }
  }
  return parts;
}

/** The snippet as plain text. */
export const snippetText = (snippet: string) =>
  snippetParts(snippet)
    .map((p) => p.text)
    .join('');

/** The words that were marked in a snippet (what the engine matched: stemmed forms included). */
export const snippetMarkedWords = (snippet: string) => [
  ...new Set(snippetParts(snippet).filter((p) => p.mark).flatMap((p) => p.text.split(/\s+/).filter(Boolean))),
];
