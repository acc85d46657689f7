/**
 * Escaping for the markup the server writes itself (pages, the no-JavaScript forms, search snippets, transcripts,
 * the scripted origin's chapter pages, the importer's notes), so one value is escaped alike wherever it is written.
 * Three forms, each pinned by test/util/html-escape.test.ts because clients and stored content depend on their
 * exact output. Migrations keep their own copy: a migration must not change when this module does.
 */

/**
 * `&`, `<` and `>` as named entities: text written as an element's content. A WebVTT cue's text too, where a
 * `-->` becomes `--&gt;`, which no WebVTT parser takes for a new cue's timing.
 */
export const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * escapeText and `"` as `&quot;`: a value written inside a double-quoted attribute (the server writes no other
 * kind), or as content. `'` is left as it is: it ends nothing in either place. Search snippets are this form too
 * (core's unescapeSnippet reads it back), as the API has always answered them.
 */
export const escapeAttribute = (s: string): string => escapeText(s).replace(/"/g, '&quot;');

/**
 * `&`, `<`, `>`, `"` and `'` as numeric character references (`&#38;` ...): the form of the scripted origin's
 * chapter pages and of the importer's notes in stored chapters, which any HTML or XML parser reads alike.
 */
export const escapeNumeric = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
