import { describe, expect, it } from 'vitest';
import {
  ANNOTATION_GROUPS,
  annotationLocator,
  type AnnotationSelector,
  LOCATOR_LIMITS,
  locatorSchema,
  ANNOTATION_MESSAGES,
  matchesEveryWord,
  permits,
  sharingOf,
  splitTags,
  storeErrorNotice,
  tokenTimeLeftMs,
  truncateQuote,
  withSharing,
} from '../src/index.ts';

describe('annotation rules', () => {
  it('cuts the quote to 750 characters with an ellipsis, never inside a surrogate pair', () => {
    expect(truncateQuote('a'.repeat(750))).toBe('a'.repeat(750));
    expect(truncateQuote('a'.repeat(751))).toBe(`${'a'.repeat(750)}…`);
    const emoji = `${'a'.repeat(749)}😀tail`;
    expect(truncateQuote(emoji)).toBe(`${'a'.repeat(749)}…`);
  });

  it('splits tags on whitespace, dropping empties and repeats', () => {
    expect(splitTags(' one\ttwo  one\nthree ')).toEqual(['one', 'two', 'three']);
    expect(splitTags(['a b', 'c', ''])).toEqual(['a', 'b', 'c']);
  });

  it('filters: every typed word appears in the field, any case and order', () => {
    expect(matchesEveryWord('The Quick brown fox', 'fox QUICK')).toBe(true);
    expect(matchesEveryWord('The Quick brown fox', 'fox cat')).toBe(false);
    expect(matchesEveryWord('anything', '   ')).toBe(true);
  });

  it('permits as reader.md §6 says', () => {
    const a = { user: 'ada', consumer: 'lectern', permissions: { read: [ANNOTATION_GROUPS.world], update: [], delete: ['bob'], admin: [] } };
    const who = (userId: string, isAdmin = false, consumerKey = 'lectern') => ({ userId, consumerKey, isAdmin });
    expect(permits(a, 'read', null)).toBe(true);
    expect(permits(a, 'update', null)).toBe(false);
    expect(permits(a, 'update', who('ada'))).toBe(true);
    expect(permits(a, 'update', who('ada', false, 'elsewhere'))).toBe(false);
    expect(permits(a, 'update', who('bob'))).toBe(false);
    expect(permits(a, 'delete', who('bob'))).toBe(true);
    expect(permits(a, 'delete', who('bob', false, 'elsewhere'))).toBe(false);
    expect(permits(a, 'admin', who('root', true))).toBe(true);
    expect(permits(a, 'admin', who('root', true, 'elsewhere'))).toBe(false);
    const groups = { ...a, permissions: { ...a.permissions, update: [ANNOTATION_GROUPS.authenticated], admin: [ANNOTATION_GROUPS.consumer] } };
    expect(permits(groups, 'update', who('carl', false, 'elsewhere'))).toBe(true);
    expect(permits(groups, 'admin', who('carl'))).toBe(true);
    expect(permits(groups, 'admin', who('carl', false, 'elsewhere'))).toBe(false);
  });

  it("sets the editor's sharing boxes (§6) and keeps every other principal", () => {
    const { world, consumer, authenticated } = ANNOTATION_GROUPS;
    const p = { read: ['bob'], update: [authenticated], delete: ['bob'], admin: [] };
    const shared = withSharing(p, { view: true, edit: true, admin: true });
    expect(shared).toEqual({ read: ['bob', world], update: [authenticated, consumer], delete: ['bob'], admin: [consumer] });
    expect(sharingOf(shared)).toEqual({ view: true, edit: true, admin: true });
    expect(withSharing(shared, { view: false, edit: false, admin: false })).toEqual(p);
    // Nothing chosen differently: every list as it was, in its order (the store compares them).
    const ordered = { read: [world, 'bob'], update: [consumer, 'acct:x'], delete: [], admin: [] };
    expect(withSharing(ordered, sharingOf(ordered))).toEqual(ordered);
    // The consumer may edit; an outsider still may not, and deleting stays the author's.
    const note = { user: 'ada', consumer: 'lectern', permissions: withSharing({ read: [], update: [], delete: [], admin: [] }, { view: false, edit: true, admin: false }) };
    expect(permits(note, 'update', { userId: 'carl', consumerKey: 'lectern', isAdmin: false })).toBe(true);
    expect(permits(note, 'update', { userId: 'carl', consumerKey: 'elsewhere', isAdmin: false })).toBe(false);
    expect(permits(note, 'delete', { userId: 'carl', consumerKey: 'lectern', isAdmin: false })).toBe(false);
    expect(permits(note, 'read', null)).toBe(false);
  });

  it('keys store notices on the status code (§8)', () => {
    expect(storeErrorNotice(401, 'update')).toBe('Sorry you are not allowed to update this annotation');
    expect(storeErrorNotice(403, 'delete')).toBe(ANNOTATION_MESSAGES.notAllowed('delete'));
    expect(storeErrorNotice(404, 'create')).toBe('Sorry we could not connect to the annotations store');
    expect(storeErrorNotice(500, 'create')).toBe('Sorry something went wrong with the annotation store');
    expect(storeErrorNotice(400, 'create')).toBe('Sorry we could not create this annotation');
  });

  it('measures the time a token has left', () => {
    const claims = { consumerKey: 'lectern', userId: 'u', issuedAt: '2026-01-01T00:00:00.000Z', ttl: 60 };
    expect(tokenTimeLeftMs(claims, Date.parse('2026-01-01T00:00:58.000Z'))).toBe(2_000);
  });
});

describe('an annotation as a Locator (docs/decisions.md "Annotations carry a Locator, derived on read")', () => {
  const base = {
    chapter_href: 'OEBPS/ch2.xhtml',
    quote: 'brown fox',
    selectors: [
      { type: 'TextPositionSelector', start: 250, end: 259 },
      { type: 'TextQuoteSelector', exact: 'brown fox', prefix: 'The quick ', suffix: ' jumps over' },
    ] as AnnotationSelector[],
  };

  it('is its chapter, its start over the chapter text, the quote with its context', () => {
    const loc = annotationLocator(base, 1000);
    expect(loc).toEqual({ href: 'OEBPS/ch2.xhtml', progression: 0.25, text: { before: 'The quick ', highlight: 'brown fox', after: ' jumps over' } });
    expect(locatorSchema.parse(loc)).toEqual(loc);
  });

  it('has progression 0 without the chapter length or a position, and stays within 0 to 1', () => {
    expect(annotationLocator(base).progression).toBe(0);
    expect(annotationLocator(base, 0).progression).toBe(0);
    expect(annotationLocator(base, 100).progression).toBe(1);
    expect(annotationLocator({ ...base, selectors: base.selectors.slice(1) }, 1000).progression).toBe(0);
  });

  it("is cut to the Locator's bounds: the context nearest the quote, the rest of a long quote after the highlight", () => {
    const exact = 'x'.repeat(LOCATOR_LIMITS.highlight) + 'TAIL';
    const loc = annotationLocator(
      { chapter_href: 'c.xhtml', quote: exact, selectors: [{ type: 'TextQuoteSelector', exact, prefix: `${'p'.repeat(200)}NEAR`, suffix: `next${'s'.repeat(200)}` }] },
      10,
    );
    expect(loc.text?.highlight).toBe('x'.repeat(LOCATOR_LIMITS.highlight));
    expect(loc.text?.before).toHaveLength(LOCATOR_LIMITS.context);
    expect(loc.text?.before?.endsWith('NEAR')).toBe(true);
    expect(loc.text?.after?.startsWith('TAILnext')).toBe(true);
    expect(loc.text?.after).toHaveLength(LOCATOR_LIMITS.context);
    expect(() => locatorSchema.parse(loc)).not.toThrow();
  });

  it("takes the stored quote when there is no quote selector (an Annotator client's), and no words when there is none", () => {
    expect(annotationLocator({ chapter_href: 'c.xhtml#frag', quote: 'words', selectors: [] })).toEqual({ href: 'c.xhtml', progression: 0, text: { highlight: 'words' } });
    expect(annotationLocator({ chapter_href: 'c.xhtml', quote: '', selectors: [] })).toEqual({ href: 'c.xhtml', progression: 0 });
  });
});
