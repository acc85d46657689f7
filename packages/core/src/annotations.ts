/**
 * The annotation contract (docs/decisions.md "Annotations"; reader.md §3 "Annotation" and "Auth token", §4, §6, §7, §8,
 * §9): the store that speaks the Annotator store protocol under `/nest/api/a/{title}/{book_id}/{chapter_href}/`, its
 * wire format, the auth token's claims, the permission rule of §6, the limits and every message a person reads about
 * notes.
 *
 * Beside the Annotator `ranges` (XPath-ish start/end plus offsets, which break as soon as a chapter's markup
 * changes) an annotation carries W3C selectors — a TextQuoteSelector (exact, prefix, suffix) and a
 * TextPositionSelector (start, end in the chapter's text) — so that a client re-anchors by position, then by
 * quote and context, and lists what it cannot find as orphaned (the approach of Hypothesis's client).
 *
 * The permission rule lives here once: the server enforces it and the web app uses the same function to hide the
 * Edit and Delete buttons (§6).
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { NOTE_MAX_LENGTH, QUOTE_SHOWN_LENGTH } from './constants.ts';
import { LOCATOR_LIMITS, type Locator } from './locator.ts';
import { ANNOTATION_MESSAGES } from './messages.ts';

// ---- constants (reader.md §9, and our own bounds) ----

export const ELLIPSIS = '…';

/** Bounds of our own on everything else an annotation holds (the spec is silent; docs/decisions.md). */
export const ANNOTATION_LIMITS = {
  quote: 20_000,
  fragment: 100_000,
  ranges: 20,
  rangePath: 2_000,
  rangeOffset: 10_000_000,
  tags: 50,
  tag: 100,
  /** tags sent as one string (split on whitespace) */
  tagsString: 5_000,
  uri: 2_000,
  principals: 50,
  principal: 200,
  selectors: 6,
  selectorContext: 256,
  highlights: 50,
  highlight: 2_000,
  /** a whole store request body, in bytes (a 413 beyond) */
  bodyBytes: 512 * 1024,
  searchField: 500,
  searchLimitDefault: 20,
  /** a chapter holding a thousand highlights loads in one search */
  searchLimitMax: 1_000,
  searchOffsetMax: 1_000_000,
  /** GET annotations/ (index) answers at most this many, newest first */
  indexMax: 1_000,
} as const;

/** §9 timings of the client. */
export const ANNOTATION_TIMING = {
  /** the token is refreshed this long before it expires */
  authRefreshBeforeExpiryMs: 2_000,
  /** after a failed token request, a new one is asked for after this */
  authRetryMs: 10_000,
  /** annotations are drawn in batches of 10 with 10 ms between them */
  batchSize: 10,
  batchDelayMs: 10,
  /** §4 gives both readings of the viewer's hide delay; docs/decisions.md says which the client uses */
  viewerHideMs: 250,
  viewerHideAltMs: 1_000,
  noticeMs: 5_000,
} as const;

/** Seconds a token lives; the client refreshes it 2 s before the end (§4). */
export const AUTH_TOKEN_TTL_SECONDS = 3_600;
/** This installation's consumer key: every token it issues and every annotation made with one carries it. */
export const CONSUMER_KEY = 'lectern';

/** The permission groups of §6, spelled as the Annotator store spells them. */
export const ANNOTATION_GROUPS = {
  world: 'group:__world__',
  authenticated: 'group:__authenticated__',
  consumer: 'group:__consumer__',
} as const;

export const ANNOTATION_ACTIONS = ['read', 'update', 'delete', 'admin'] as const;
export type AnnotationAction = (typeof ANNOTATION_ACTIONS)[number];

/** reader.md §3: annotation_type is 3 for notes and highlights, or 'preview_annotation' (preview creators). */
export const ANNOTATION_TYPE_NOTE = 3;
export const ANNOTATION_TYPE_PREVIEW = 'preview_annotation';
export type AnnotationType = typeof ANNOTATION_TYPE_NOTE | typeof ANNOTATION_TYPE_PREVIEW;

export const EXPORT_FORMATS = ['markdown', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

// ---- paths: annotationPaths and AUTH_TOKEN_HEADER are in paths.ts and constants.ts (zod-free, for the web app's entry) ----

// ---- messages (reader.md §8, and the server's own details) ----

// ANNOTATION_MESSAGES live in messages.ts with every other message (one home, rules.test.ts).

/**
 * The notice for a failed store call (§8), keyed on its status: 401 and 403 say the action is not allowed, 404
 * that the store could not be reached, 500 that the store failed, anything else that the action failed.
 */
export function storeErrorNotice(status: number, action: 'create' | 'update' | 'delete' | 'read' | 'search'): string {
  if (status === 401 || status === 403) return ANNOTATION_MESSAGES.notAllowed(action);
  if (status === 404) return ANNOTATION_MESSAGES.storeUnreachable;
  if (status === 500) return ANNOTATION_MESSAGES.storeFailed;
  if (action === 'search') return ANNOTATION_MESSAGES.couldNotSearch;
  if (action === 'read') return ANNOTATION_MESSAGES.couldNotLoad;
  return ANNOTATION_MESSAGES.couldNot(action);
}

// ---- rules ----

/** §5: the quote cut to 750 characters with an ellipsis (never splitting a surrogate pair). */
export function truncateQuote(quote: string): string {
  if (quote.length <= QUOTE_SHOWN_LENGTH) return quote;
  let end = QUOTE_SHOWN_LENGTH;
  const last = quote.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return quote.slice(0, end) + ELLIPSIS;
}

/** §4: tags are split on whitespace; empty ones dropped, repeats kept once, in order. */
export function splitTags(tags: string | readonly string[]): string[] {
  const words = (typeof tags === 'string' ? [tags] : tags).flatMap((t) => t.split(/\s+/)).filter(Boolean);
  return [...new Set(words)];
}

/** §4: "The filter requires every typed word to appear in the field" (case folded; no words matches all). */
export function filterWords(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}
export function matchesEveryWord(field: string, query: string): boolean {
  const folded = field.toLowerCase();
  return filterWords(query).every((w) => folded.includes(w));
}

export interface AnnotationPermissions {
  read: string[];
  update: string[];
  delete: string[];
  admin: string[];
}

/** Who is asking: a signed-in reader's id and consumer (from the token), and whether they administer it. */
export interface AnnotationPrincipal {
  userId: string;
  consumerKey: string;
  isAdmin: boolean;
}

/**
 * §6: may `principal` (null: anonymous) do `action` to the annotation? The world group lets anyone; a signed-in
 * caller also passes as the author (same user and consumer), as an admin of the annotation's consumer, through
 * the authenticated group, through the consumer group (same consumer), or when listed by user id (same consumer).
 */
export function permits(
  annotation: { user: string; consumer: string; permissions: AnnotationPermissions },
  action: AnnotationAction,
  principal: AnnotationPrincipal | null,
): boolean {
  const list = annotation.permissions[action];
  if (list.includes(ANNOTATION_GROUPS.world)) return true;
  if (!principal) return false;
  const sameConsumer = principal.consumerKey === annotation.consumer;
  if (sameConsumer && principal.userId === annotation.user) return true;
  if (sameConsumer && principal.isAdmin) return true;
  if (list.includes(ANNOTATION_GROUPS.authenticated)) return true;
  if (sameConsumer && list.includes(ANNOTATION_GROUPS.consumer)) return true;
  return sameConsumer && list.includes(principal.userId);
}

/** §6 default permissions: read is the world group, the others are empty (the author is always allowed). */
export const defaultPermissions = (): AnnotationPermissions => ({ read: [ANNOTATION_GROUPS.world], update: [], delete: [], admin: [] });

/**
 * How a page declares highlight privacy (reader.md §4): attributes on its document element, which the server writes
 * from the operator's HIGHLIGHT_PRIVACY. `data-highlight-privacy="public"` makes new highlights public by default;
 * the privacy switch and the override flag together force notes private, with the Public option disabled.
 */
export const HIGHLIGHT_PRIVACY_ATTRIBUTES = {
  privacy: 'data-highlight-privacy',
  privacySwitch: 'data-private-highlights',
  override: 'data-private-highlights-override',
} as const;

/** The operator's setting: private by default (the editor offers Public), public by default, or private only. */
export const HIGHLIGHT_PRIVACY_SETTINGS = ['private', 'public', 'private-only'] as const;
export type HighlightPrivacySetting = (typeof HIGHLIGHT_PRIVACY_SETTINGS)[number];

/** The attributes the page's document element carries for a setting. */
export function highlightPrivacyAttributes(setting: HighlightPrivacySetting): Record<string, string> {
  const a = HIGHLIGHT_PRIVACY_ATTRIBUTES;
  if (setting === 'private-only') return { [a.privacy]: 'private', [a.privacySwitch]: '', [a.override]: '' };
  return { [a.privacy]: setting };
}

/** What a page declares: new highlights public by default; notes forced private (only with both switch and flag). */
export function pageHighlightPrivacy(root: { getAttribute(name: string): string | null; hasAttribute(name: string): boolean }): { defaultPublic: boolean; forcedPrivate: boolean } {
  const a = HIGHLIGHT_PRIVACY_ATTRIBUTES;
  const forcedPrivate = root.hasAttribute(a.privacySwitch) && root.hasAttribute(a.override);
  return { defaultPublic: !forcedPrivate && root.getAttribute(a.privacy) === 'public', forcedPrivate };
}

/** A note is public when the world may read it (the editor's public/private toggle, §4). */
export const isPublicPermissions = (p: Pick<AnnotationPermissions, 'read'>) => p.read.includes(ANNOTATION_GROUPS.world);

/**
 * The editor's checkboxes (§6): anyone may view the note (the world group reads), others of this library may edit it
 * (the consumer group updates), and, offered to admins only, others of this library may change who can do what
 * (the consumer group administers). Deleting stays with the author and the consumer's admins.
 */
export interface SharingChoices {
  view: boolean;
  edit: boolean;
  admin: boolean;
}

export const sharingOf = (p: AnnotationPermissions): SharingChoices => ({
  view: p.read.includes(ANNOTATION_GROUPS.world),
  edit: p.update.includes(ANNOTATION_GROUPS.consumer),
  admin: p.admin.includes(ANNOTATION_GROUPS.consumer),
});

/** `p` with the groups the checkboxes govern set as chosen; every other principal in the lists is kept. */
export function withSharing(p: AnnotationPermissions, choices: SharingChoices): AnnotationPermissions {
  // A list whose group is already as chosen is kept as it is (same order: the server sees no change of permissions).
  const toggle = (list: string[], group: string, on: boolean) => (list.includes(group) === on ? [...list] : on ? [...list, group] : list.filter((x) => x !== group));
  return {
    read: toggle(p.read, ANNOTATION_GROUPS.world, choices.view),
    update: toggle(p.update, ANNOTATION_GROUPS.consumer, choices.edit),
    delete: [...p.delete],
    admin: toggle(p.admin, ANNOTATION_GROUPS.consumer, choices.admin),
  };
}

// ---- schemas ----

const tooLong = (field: string, max: number) => `${field} must be at most ${max} characters.`;
const boundedString = (field: string, max: number) => z.string({ error: `${field} must be a string.` }).max(max, tooLong(field, max));

export const annotationRangeSchema = lazySchema(() => z.object({
  start: boundedString('start', ANNOTATION_LIMITS.rangePath),
  startOffset: z.number().int().min(0).max(ANNOTATION_LIMITS.rangeOffset),
  end: boundedString('end', ANNOTATION_LIMITS.rangePath),
  endOffset: z.number().int().min(0).max(ANNOTATION_LIMITS.rangeOffset),
}));
export type AnnotationRange = z.infer<typeof annotationRangeSchema>;

/** W3C Web Annotation selectors: the quote with its context, and the position in the chapter's text. */
export const textQuoteSelectorSchema = lazySchema(() => z.object({
  type: z.literal('TextQuoteSelector'),
  exact: boundedString('exact', ANNOTATION_LIMITS.quote),
  prefix: boundedString('prefix', ANNOTATION_LIMITS.selectorContext).default(''),
  suffix: boundedString('suffix', ANNOTATION_LIMITS.selectorContext).default(''),
}));
export const textPositionSelectorSchema = lazySchema(() => z
  .object({
    type: z.literal('TextPositionSelector'),
    start: z.number().int().min(0).max(ANNOTATION_LIMITS.rangeOffset),
    end: z.number().int().min(0).max(ANNOTATION_LIMITS.rangeOffset),
  })
  .refine((s) => s.end >= s.start, { message: 'end must not be before start.', path: ['end'] }));
/**
 * W3C FragmentSelector with RFC 3778's PDF fragment (`page=N`): on a PDF the other selectors count the text of that
 * page's text layer, so an annotation names its page (ours; the W3C model's way to point into a PDF).
 */
export const PDF_FRAGMENT_SPEC = 'http://tools.ietf.org/rfc/rfc3778';
export const fragmentSelectorSchema = lazySchema(() => z.object({
  type: z.literal('FragmentSelector'),
  conformsTo: z.literal(PDF_FRAGMENT_SPEC, { error: `conformsTo must be ${PDF_FRAGMENT_SPEC}.` }),
  value: z.string({ error: 'value must be a string.' }).regex(/^page=[1-9][0-9]{0,5}$/, 'value must be page=N.'),
}));
export const annotationSelectorSchema = lazySchema(() => z.discriminatedUnion('type', [textQuoteSelectorSchema, textPositionSelectorSchema, fragmentSelectorSchema]));
export type AnnotationSelector = z.infer<typeof annotationSelectorSchema>;

/** The selector naming a PDF page (1-based). */
export const pdfPageSelector = (page: number): AnnotationSelector => ({ type: 'FragmentSelector', conformsTo: PDF_FRAGMENT_SPEC, value: `page=${page}` });

/** The PDF page an annotation is on (null: not a PDF page's, e.g. a chapter's). */
export function pdfPageOf(annotation: { selectors: readonly AnnotationSelector[] }): number | null {
  const s = annotation.selectors.find((x) => x.type === 'FragmentSelector');
  return s && s.type === 'FragmentSelector' ? Number(s.value.slice('page='.length)) : null;
}

/**
 * An annotation's place as core's one Locator (docs/decisions.md "Annotations carry a Locator, derived on read"):
 * derived from what the store keeps, so every annotation has one, whoever made it. `href` is its chapter;
 * `progression` its start (the TextPositionSelector) over the chapter's text length, counted as the selectors count
 * it (the reader's text index) — 0 when the caller does not have that length (the words then find the place, as a
 * stored position's do); `text` is the quote (its start, to the Locator's bound) with the TextQuoteSelector's context
 * around it (the context nearest the quote is kept).
 */
export function annotationLocator(
  annotation: { chapter_href: string; quote: string; selectors: readonly AnnotationSelector[] },
  chapterTextLength?: number,
): Locator {
  const href = annotation.chapter_href.split('#')[0]!;
  let start: number | null = null;
  let quote: { exact: string; prefix: string; suffix: string } | null = null;
  for (const s of annotation.selectors) {
    if (s.type === 'TextPositionSelector' && start === null) start = s.start;
    if (s.type === 'TextQuoteSelector' && quote === null) quote = s;
  }
  const progression = start !== null && chapterTextLength && chapterTextLength > 0 ? Math.min(1, Math.max(0, start / chapterTextLength)) : 0;
  const exact = quote?.exact || annotation.quote;
  if (!exact) return { href, progression };
  const text: NonNullable<Locator['text']> = {};
  const before = (quote?.prefix ?? '').slice(-LOCATOR_LIMITS.context);
  // what follows the highlight: the rest of a quote longer than the highlight, then the context after it
  const after = (exact.slice(LOCATOR_LIMITS.highlight) + (quote?.suffix ?? '')).slice(0, LOCATOR_LIMITS.context);
  if (before) text.before = before;
  text.highlight = exact.slice(0, LOCATOR_LIMITS.highlight);
  if (after) text.after = after;
  return { href, progression, text };
}

const principalList = (action: AnnotationAction) =>
  z
    .array(boundedString(`permissions.${action}`, ANNOTATION_LIMITS.principal))
    .max(ANNOTATION_LIMITS.principals, `permissions.${action} may list at most ${ANNOTATION_LIMITS.principals} entries.`)
    .nullable()
    .optional();

/**
 * What a client sends to create or update (Annotator's POST/PUT body). Fields the server owns (id, user,
 * consumer, created, updated, truncated_quote, sanitized_fragment, card_url, links) are ignored when sent, as
 * are fields it does not know (Annotator clients add their own). A permission left out (or null) takes its
 * default on create and stays as it is on update.
 */
export const annotationInputSchema = lazySchema(() => z.object({
  quote: boundedString('quote', ANNOTATION_LIMITS.quote).optional(),
  ranges: z.array(annotationRangeSchema).max(ANNOTATION_LIMITS.ranges, `ranges may hold at most ${ANNOTATION_LIMITS.ranges} ranges.`).optional(),
  selectors: z.array(annotationSelectorSchema).max(ANNOTATION_LIMITS.selectors, `selectors may hold at most ${ANNOTATION_LIMITS.selectors}.`).optional(),
  text: z
    .string({ error: 'text must be a string.' })
    .max(NOTE_MAX_LENGTH, ANNOTATION_MESSAGES.textTooLong)
    .nullable()
    .optional(),
  tags: z
    .union([boundedString('tags', ANNOTATION_LIMITS.tagsString), z.array(boundedString('tags', ANNOTATION_LIMITS.tag)).max(ANNOTATION_LIMITS.tags)])
    .nullable()
    .optional()
    .transform((t) => (t == null ? undefined : splitTags(t)))
    .refine((t) => t === undefined || t.length <= ANNOTATION_LIMITS.tags, `At most ${ANNOTATION_LIMITS.tags} tags.`)
    .refine((t) => t === undefined || t.every((w) => w.length <= ANNOTATION_LIMITS.tag), `A tag is at most ${ANNOTATION_LIMITS.tag} characters.`),
  uri: boundedString('uri', ANNOTATION_LIMITS.uri).optional(),
  permissions: z
    .object({ read: principalList('read'), update: principalList('update'), delete: principalList('delete'), admin: principalList('admin') })
    .nullable()
    .optional(),
  fragment: boundedString('fragment', ANNOTATION_LIMITS.fragment).nullable().optional(),
  /** strings, or objects with a `content` string (§3 "highlights.content"); anything else in the list is ignored */
  highlights: z.array(z.unknown()).max(ANNOTATION_LIMITS.highlights).nullable().optional(),
  is_public: z.boolean().optional(),
  annotation_type: z.union([z.literal(3), z.literal('3'), z.literal(ANNOTATION_TYPE_PREVIEW)]).optional(),
  preview_annotation: z.boolean().nullable().optional(),
}));
export type AnnotationInput = z.infer<typeof annotationInputSchema>;

const permissionsSchema = lazySchema(() => z.object({
  read: z.array(z.string()),
  update: z.array(z.string()),
  delete: z.array(z.string()),
  admin: z.array(z.string()),
}));

/** The wire format: the Annotator store model plus reader.md §3's reader fields and the W3C selectors. */
export const annotationSchema = lazySchema(() => z.object({
  id: z.string(),
  quote: z.string(),
  ranges: z.array(annotationRangeSchema),
  selectors: z.array(annotationSelectorSchema),
  /** the note's markdown as written (rendered and sanitised by the client, never trusted) */
  text: z.string(),
  tags: z.array(z.string()),
  uri: z.string(),
  /** the author's user id (the `userId` of their tokens: the account's uuid) */
  user: z.string(),
  consumer: z.string(),
  permissions: permissionsSchema,
  created: z.string(),
  updated: z.string(),
  links: z.array(z.object({ type: z.string(), rel: z.string(), href: z.string() })),
  truncated_quote: z.string(),
  /** the selection's HTML as the client sent it; show `sanitized_fragment`, never this */
  fragment: z.string(),
  sanitized_fragment: z.string(),
  highlights: z.array(z.string()),
  is_public: z.boolean(),
  /** the reader address of a public note (the share block shows for these); null for private ones */
  card_url: z.string().nullable(),
  annotation_type: z.union([z.literal(ANNOTATION_TYPE_NOTE), z.literal(ANNOTATION_TYPE_PREVIEW)]),
  preview_annotation: z.boolean(),
  book_id: z.string(),
  chapter_href: z.string(),
}));
export type Annotation = z.infer<typeof annotationSchema>;

const searchField = (field: string) => boundedString(field, ANNOTATION_LIMITS.searchField).optional();

/**
 * GET {prefix}/search. `uri` and `user` match exactly; `text`, `tags` and `quote` need every word typed to appear
 * in the field (§4). Other parameters (cache-busters, Annotator's own) are ignored.
 */
export const annotationSearchQuerySchema = lazySchema(() => z.object({
  uri: searchField('uri'),
  user: searchField('user'),
  text: searchField('text'),
  tags: searchField('tags'),
  quote: searchField('quote'),
  limit: z.coerce
    .number({ error: 'limit must be a whole number.' })
    .int('limit must be a whole number.')
    .min(0, 'limit must not be negative.')
    .max(ANNOTATION_LIMITS.searchLimitMax, `limit must be at most ${ANNOTATION_LIMITS.searchLimitMax}.`)
    .default(ANNOTATION_LIMITS.searchLimitDefault),
  offset: z.coerce
    .number({ error: 'offset must be a whole number.' })
    .int('offset must be a whole number.')
    .min(0, 'offset must not be negative.')
    .max(ANNOTATION_LIMITS.searchOffsetMax)
    .default(0),
}));
export type AnnotationSearchQuery = z.infer<typeof annotationSearchQuerySchema>;

export const annotationSearchResponseSchema = lazySchema(() => z.object({ total: z.number().int(), rows: z.array(annotationSchema) }));
export type AnnotationSearchResponse = z.infer<typeof annotationSearchResponseSchema>;

/** reader.md §3 "Auth token": the claims a token must hold to be valid (§5: without them it is invalid). */
export const authTokenClaimsSchema = lazySchema(() => z.object({
  consumerKey: z.string().min(1),
  userId: z.string().min(1),
  /** ISO-8601 */
  issuedAt: z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'issuedAt must be a date.'),
  /** seconds */
  ttl: z.number().int().positive(),
}));
export type AuthTokenClaims = z.infer<typeof authTokenClaimsSchema>;

/** Whether a token's claims are complete and time remains (the client's test before it uses one, §4). */
export function tokenTimeLeftMs(claims: AuthTokenClaims, now: number): number {
  return Date.parse(claims.issuedAt) + claims.ttl * 1000 - now;
}

/** POST /a/sanitize-fragment/ */
export const sanitizeFragmentRequestSchema = lazySchema(() => z.object({
  fragment: z.string({ error: ANNOTATION_MESSAGES.fragmentEmpty }).max(ANNOTATION_LIMITS.fragment, tooLong('fragment', ANNOTATION_LIMITS.fragment)),
}));
export const sanitizeFragmentResponseSchema = lazySchema(() => z.object({ fragment: z.string() }));

export const exportQuerySchema = lazySchema(() => z.object({ format: z.enum(EXPORT_FORMATS, { error: `format must be one of ${EXPORT_FORMATS.join(', ')}.` }).default('json') }));

/** The JSON export: the book, and the caller's annotations by chapter in reading order (orphans last). */
export const annotationExportSchema = lazySchema(() => z.object({
  book_id: z.string(),
  title: z.string(),
  exported_at: z.string(),
  chapters: z.array(
    z.object({
      chapter_href: z.string(),
      label: z.string(),
      /** false: the chapter is no longer in the book (a re-import removed it); its notes are kept */
      in_book: z.boolean(),
      annotations: z.array(annotationSchema),
    }),
  ),
}));
export type AnnotationExport = z.infer<typeof annotationExportSchema>;
