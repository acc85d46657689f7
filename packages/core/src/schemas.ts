/**
 * zod schemas of every call the foundation serves. One schema, three uses: the server validates input and
 * types its output with them, the web client parses answers with them, tests assert shapes with them.
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { CATALOG_SORTS } from './catalog.ts';
import { ACCOUNT_STATUSES, CONTENT_FORMATS, MAX_PLAYLIST_ITEMS_ORDERED, MAX_URLS_PER_CALL, ROLES } from './constants.ts';
import { chapterMediaSchema } from './media.ts';

/** JSON error shape of every failing call: a sentence, plus per-field reasons for validation errors. */
export const errorBodySchema = lazySchema(() => z.object({
  detail: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
}));
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const loginRequestSchema = lazySchema(() => z.object({
  email: z.string().trim().min(1, 'This field is required.').max(254).email('Enter a valid email address.'),
  password: z.string().min(1, 'This field is required.').max(1024),
  next: z.string().optional(),
}));
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const accountStatusSchema = lazySchema(() => z.enum(ACCOUNT_STATUSES));
export const roleSchema = lazySchema(() => z.enum(ROLES));

/** reader.md §3 "Account profile": user_id, session_id, user_uuid, username, subscription_status, account. */
export const accountProfileSchema = lazySchema(() => z.object({
  user_id: z.number().int(),
  session_id: z.string(),
  user_uuid: z.string(),
  username: z.string(),
  subscription_status: accountStatusSchema,
  account: z.object({
    /** Capitalised account type ('Trial', 'Subscriber', 'Expired', 'Cancelled'); spec §6 speaks of type Expired. */
    type: z.string(),
    email: z.string(),
    roles: z.array(roleSchema),
    team: z.string().nullable(),
    trial_ends_at: z.string().nullable(),
  }),
}));
export type AccountProfile = z.infer<typeof accountProfileSchema>;

export const topicSchema = lazySchema(() => z.object({ name: z.string(), slug: z.string() }));
export type Topic = z.infer<typeof topicSchema>;

/** GET /api/v1/topics/: every topic with how many titles it has. */
export const topicListSchema = lazySchema(() => z.object({ results: z.array(topicSchema.extend({ count: z.number().int() })) }));
export type TopicCount = z.infer<typeof topicListSchema>['results'][number];

/** library-playlists-account.md §3 "Content metadata" (progress comes from its own call). */
export const contentMetadataSchema = lazySchema(() => z.object({
  api_url: z.string(),
  authors: z.array(z.string()),
  content_format: z.string(),
  continue_url: z.string(),
  cover_image_url: z.string().nullable(),
  identifier: z.string(),
  issued: z.string().nullable(),
  publishers: z.array(z.string()),
  title: z.string(),
  topics: z.array(topicSchema),
  url: z.string(),
  /** ours: what the reader paths need */
  book_id: z.string(),
  title_safe: z.string(),
  description: z.string().nullable(),
  /** ours, on the book list and a book for signed-in readers: reading progress (0-100) */
  progress: z.number().optional(),
  /** ours, likewise: continue_url resumes a stored reading position (the card says Continue) */
  resumes: z.boolean().optional(),
}));
export type ContentMetadata = z.infer<typeof contentMetadataSchema>;

export const chapterSummarySchema = lazySchema(() => z.object({
  label: z.string(),
  full_path: z.string(),
  /** the chapter's API path: /api/v1/book/{book_id}/chapter/{full_path} */
  url: z.string(),
  /** the reader page of the chapter */
  web_url: z.string(),
  as_sample: z.boolean(),
  is_public: z.boolean(),
  /** reading time of the chapter in minutes (0 for a PDF, whose text is not extracted); a media part's length */
  minutes_required: z.number(),
  /** ours (docs/decisions.md "Media serving"): a video or audiobook part's length */
  duration_ms: z.number().int().optional(),
}));
export type ChapterSummary = z.infer<typeof chapterSummarySchema>;

export const tocEntrySchema = lazySchema(() => z.object({
  label: z.string(),
  href: z.string(),
  full_path: z.string(),
  depth: z.number().int(),
}));
export type TocEntry = z.infer<typeof tocEntrySchema>;

/** A name as the package wrote it, with its direction and language where given (EPUB 3 dir / xml:lang). */
export const directedNameSchema = lazySchema(() => z.object({ name: z.string(), dir: z.enum(['ltr', 'rtl', 'auto']).nullable(), lang: z.string().nullable() }));
export type DirectedName = z.infer<typeof directedNameSchema>;

export const bookDetailSchema = lazySchema(() => contentMetadataSchema.extend({
  language: z.string().nullable(),
  /**
   * ours (docs/decisions.md "The marketing modules"): where to buy the title, from the operator's BUY_LINK_TEMPLATE;
   * absent when unset
   */
  buy_url: z.string().optional(),
  /** ours: the title's direction and language (dc:title's dir and xml:lang, else the package's) */
  title_dir: z.enum(['ltr', 'rtl', 'auto']).nullable().optional(),
  title_lang: z.string().nullable().optional(),
  /** ours: the authors with the direction and language of each dc:creator */
  author_entries: z.array(directedNameSchema).optional(),
  source: z.string(),
  page_count: z.number().int().nullable(),
  publisher_entries: z.array(z.object({ name: z.string(), slug: z.string() })),
  chapters: z.array(chapterSummarySchema),
  toc: z.array(tocEntrySchema),
  /** reading time of the whole title in minutes */
  minutes_required: z.number(),
  /**
   * Every format of this work, this title among them (an EPUB and a PDF of one book are one work): the card in
   * the catalog stands for all of them, and the title page offers each.
   */
  formats: z.array(
    z.object({
      book_id: z.string(),
      content_format: z.string(),
      source: z.string(),
      page_count: z.number().int().nullable(),
      url: z.string(),
      continue_url: z.string(),
    }),
  ),
}));
export type BookDetail = z.infer<typeof bookDetailSchema>;

export function pagedSchema<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  });
}
export type Paged<T> = { count: number; next: string | null; previous: string | null; results: T[] };

/**
 * ours (docs/decisions.md "Fixed layout and flow"): how a spine item asks to be laid out (EPUB 3.3 §8): `layout`
 * reflowable or pre-paginated (fixed layout), `spread` (rendition:spread: when two pages may show side by side), `flow`
 * (rendition:flow), `page_spread` (the side of a spread it goes on; null: either), `viewport` (a fixed-layout page's
 * size in CSS pixels, a side being `'device'` when the page asks for the device's (its viewport meta says device-width
 * / device-height: the reader sizes that side to its stage); null when unknown or reflowable). Items imported before
 * this are reflowable.
 */
export const renditionSchema = lazySchema(() => z.object({
  layout: z.enum(['reflowable', 'pre-paginated']),
  spread: z.enum(['none', 'landscape', 'both', 'auto']),
  flow: z.enum(['paginated', 'scrolled-continuous', 'scrolled-doc', 'auto']),
  page_spread: z.enum(['left', 'right', 'center']).nullable(),
  viewport: z.object({ width: z.union([z.number().int(), z.literal('device')]), height: z.union([z.number().int(), z.literal('device')]) }).nullable(),
  /** rendition:align-x-center on the spine item: centred horizontally in the viewport or spread (always false on a title) */
  align_x_center: z.boolean(),
}));
export type Rendition = z.infer<typeof renditionSchema>;

export const bookListQuerySchema = lazySchema(() => z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(24),
  /** opaque: where the `next` or `previous` link continues the list (the page's sort key and id); wins over page */
  cursor: z.string().max(1000).optional(),
  topic: z.string().max(100).optional(),
  publisher: z.string().max(100).optional(),
  /** title (ignoring case and a leading article), recent (newest first) or author */
  sort: z.enum(CATALOG_SORTS).default('title'),
  /** only works available in this format (an EPUB is a book, a PDF a document) */
  format: z.enum(CONTENT_FORMATS).optional(),
}));
export type BookListQuery = z.infer<typeof bookListQuerySchema>;

/** A chapter as API clients get it: plain sanitised HTML in `content`. */
/**
 * ours (docs/decisions.md "Read aloud"): a chapter's EPUB Media Overlay as the reader plays it, the phrases in order.
 * Each clip highlights the chapter's element `fragment` (an id) while `audio[clip.audio]` plays from `begin` to `end`
 * seconds (null: to the end of the file). `skippable`: the structure it belongs to may be skipped (pagebreak, note, …);
 * `escape_to`: the index of the first clip after the escapable structure it is in (a table, a sidebar; the clip count:
 * the end of the chapter), `escape_from`: that structure's epub:type (absent on books imported before it was kept).
 */
export const mediaOverlaySchema = lazySchema(() => z.object({
  active_class: z.string().nullable(),
  playback_active_class: z.string().nullable(),
  audio: z.array(z.string()),
  clips: z.array(
    z.object({
      fragment: z.string(),
      audio: z.number().int(),
      begin: z.number(),
      end: z.number().nullable(),
      skippable: z.string().optional(),
      escape_to: z.number().int().optional(),
      escape_from: z.string().optional(),
    }),
  ),
}));
export type MediaOverlay = z.infer<typeof mediaOverlaySchema>;

/**
 * Ours (docs/decisions.md "Reading fidelity: the importer's half"): the class, id and style of a content document's own
 * `<html>` and `<body>`, which the importer checked (no reader class names, no markup; the style sanitised as the
 * book's CSS). Only a chapter's body content is stored, so the reader sets these on its frame's html and body, where
 * the book's selectors (`html.vrtl`, `body.p-text`) expect them. Null or absent: neither element had any (or the book
 * was imported before).
 */
const rootElementSchema = lazySchema(() => z.object({ class: z.string().optional(), id: z.string().optional(), style: z.string().optional() }));
export const rootAttributesSchema = lazySchema(() => z.object({ html: rootElementSchema.optional(), body: rootElementSchema.optional() }));
export type RootAttributes = z.infer<typeof rootAttributesSchema>;
export type RootElementAttributes = z.infer<typeof rootElementSchema>;

export const chapterContentSchema = lazySchema(() => z.object({
  book_id: z.string(),
  chapter_href: z.string(),
  full_path: z.string(),
  title: z.string(),
  title_safe: z.string(),
  label: z.string(),
  content_type: z.string(),
  content: z.string(),
  stylesheets: z.array(z.string()),
  /**
   * ours (docs/decisions.md "Fixed layout and flow"): how the chapter asks to be laid out (fixed layout, spreads, flow)
   */
  rendition: renditionSchema.optional(),
  item_order: z.number().int(),
  as_sample: z.boolean(),
  is_public: z.boolean(),
  allow_scripts: z.boolean(),
  format: z.string(),
  source: z.string(),
  next_chapter_uri: z.string().nullable(),
  previous_chapter_uri: z.string().nullable(),
  /** for PDF documents: where the file itself is served */
  file_url: z.string().nullable(),
  /**
   * True when `content` (or the file at `file_url`) is only the opening part of the chapter: the bounded sample of
   * a one-chapter book or a PDF, which is what visitors who may not read the title get.
   */
  partial: z.boolean().optional(),
  /**
   * ours (docs/decisions.md "Read aloud"): the chapter's media overlay, when the book has one for it (not on a bounded
   * sample)
   */
  media_overlay: mediaOverlaySchema.nullable().optional(),
  /**
   * ours (docs/decisions.md "Reading fidelity: the importer's half"): the class, id and style of the content document's
   * own html and body
   */
  root_attributes: rootAttributesSchema.nullable().optional(),
  /**
   * ours (docs/decisions.md "A chapter that is not well-formed"): its XHTML is not well-formed XML, shown recovered by
   * the HTML parser: the reader says so
   */
  markup_recovered: z.boolean().optional(),
  /**
   * ours (docs/decisions.md "Media serving"): a video or audiobook part's playable file; absent or null for a book's
   * chapters
   */
  media: chapterMediaSchema.nullable().optional(),
}));
export type ChapterContent = z.infer<typeof chapterContentSchema>;

export const chapterFlagsSchema = lazySchema(() => z
  .object({ as_sample: z.boolean().optional(), is_public: z.boolean().optional() })
  .refine((v) => v.as_sample !== undefined || v.is_public !== undefined, { message: 'Give as_sample or is_public.' }));
export type ChapterFlags = z.infer<typeof chapterFlagsSchema>;

export const importReportSchema = lazySchema(() => z.object({
  imported: z.array(
    z.object({
      book_id: z.string(),
      title: z.string(),
      chapters: z.number().int(),
      warnings: z.array(z.string()),
      /** a new edition of an existing book (`?replace=`): chapters kept by path, added, and the paths removed */
      replaced: z.object({ kept: z.number().int(), added: z.number().int(), removed: z.array(z.string()) }).optional(),
    }),
  ),
  failed: z.array(z.object({ file: z.string(), reason: z.string() })),
}));
export type ImportReport = z.infer<typeof importReportSchema>;

export const healthSchema = lazySchema(() => z.object({ status: z.literal('ok'), database: z.string() }));

// ---- playlists (collections), queue, metadata and progress: library-playlists-account.md §3, §7 ----

export const collectionItemSchema = lazySchema(() => z.object({
  api_url: z.string(),
  metadata: z.object({ topics: z.array(topicSchema) }),
}));
export type CollectionItem = z.infer<typeof collectionItemSchema>;

export const collectionSchema = lazySchema(() => z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  is_default: z.boolean(),
  is_owned: z.boolean(),
  content: z.array(collectionItemSchema),
  /** the playlist's page in the web app */
  url: z.string(),
  created: z.string(),
  modified: z.string(),
}));
export type Collection = z.infer<typeof collectionSchema>;
export const collectionListSchema = lazySchema(() => z.array(collectionSchema));
/**
 * Ours (docs/decisions.md, "The light playlist list"): GET /collections/?content=none answers each playlist
 * without its items, with their count; what every page needs (names and counts), not the whole library of items.
 */
export const collectionSummarySchema = lazySchema(() => collectionSchema.omit({ content: true }).extend({ content_count: z.number().int().min(0) }));
export type CollectionSummary = z.infer<typeof collectionSummarySchema>;
export const collectionSummaryListSchema = lazySchema(() => z.array(collectionSummarySchema));
/** Ours: POST /collections/holding/ {content}: for each address asked about, the ids of the playlists holding it. */
export const collectionHoldingSchema = lazySchema(() => z.object({ results: z.record(z.string(), z.array(z.string())) }));
export type CollectionHolding = z.infer<typeof collectionHoldingSchema>;


export const createCollectionSchema = lazySchema(() => z.object({
  name: z.string().max(1000),
  description: z.string().max(10_000).nullable().optional(),
}));
export const updateCollectionSchema = lazySchema(() => z.object({
  id: z.string().optional(),
  name: z.string().max(1000).optional(),
  description: z.string().max(10_000).nullable().optional(),
}));
const urlList = lazySchema(() => z.array(z.string().min(1).max(2000)).min(1, 'Give at least one content address.').max(MAX_URLS_PER_CALL, `At most ${MAX_URLS_PER_CALL} content addresses per call.`));
export const contentChangeSchema = lazySchema(() => z.object({ content: urlList }));
/** POST and DELETE /api/v1/queue-simple/ take a bare JSON array of item urls. */
export const queueChangeSchema = lazySchema(() => urlList);
export const urlsRequestSchema = lazySchema(() => z.object({ urls: urlList }));
/**
 * PUT /api/v2/collections/{id}/order/ (ours; the spec names no reorder call): every item's api_url exactly once,
 * in the order the reader wants, first shown first.
 */
export const collectionOrderSchema = lazySchema(() => z.object({
  content: z.array(z.string().min(1).max(2000)).max(MAX_PLAYLIST_ITEMS_ORDERED, `At most ${MAX_PLAYLIST_ITEMS_ORDERED} items can be ordered.`),
}));

export const queueEntrySchema = lazySchema(() => z.object({ url: z.string(), is_whole_book: z.boolean(), natural_key: z.array(z.string()) }));
export type QueueEntry = z.infer<typeof queueEntrySchema>;
export const queueListSchema = lazySchema(() => z.object({ results: z.array(queueEntrySchema) }));

export const METADATA_FIELDS = [
  'api_url',
  'authors',
  'content_format',
  'continue_url',
  'cover_image_url',
  'identifier',
  'title',
  'url',
  'issued',
  'publishers',
  'topics',
  'description',
  'book_id',
  'title_safe',
] as const;
export const metadataListSchema = lazySchema(() => z.array(contentMetadataSchema.partial().extend({ api_url: z.string() })));

export const progressEntrySchema = lazySchema(() => z.object({ api_url: z.string(), progress: z.number().min(0).max(100) }));
export const progressListSchema = lazySchema(() => z.array(progressEntrySchema));

// ---- the reader: reader.md §3, §7 ----

export const blockRequestSchema = lazySchema(() => z.object({
  book_id: z.string().min(1).max(200),
  hrefs: z.union([z.string().min(1).max(1000), z.array(z.string().min(1).max(1000)).min(1).max(5)]),
  package_resources: z.union([z.literal(1), z.literal('1'), z.literal(true), z.literal(0), z.literal('0'), z.literal(false)]).optional(),
  screen_width: z.coerce.number().int().min(0).max(20_000).optional(),
  screen_height: z.coerce.number().int().min(0).max(20_000).optional(),
  update_progress: z.union([z.boolean(), z.literal(0), z.literal(1)]).optional(),
}));
export type BlockRequest = z.infer<typeof blockRequestSchema>;

/** A chapter item (reader.md §3): the chapter itself or one of its stylesheets, flattened and ordered by item_order. */
export const chapterItemSchema = lazySchema(() => z.object({
  uri: z.string(),
  content: z.string(),
  content_type: z.string(),
  label: z.string(),
  encoding: z.literal('crypt64').nullable(),
  checksum: z.string().nullable(),
  item_order: z.number().int(),
  as_sample: z.boolean(),
  is_public: z.boolean(),
  stylesheets: z.array(z.string()),
  allow_scripts: z.boolean(),
}));
export type ChapterItem = z.infer<typeof chapterItemSchema>;

export const archiveItemSchema = lazySchema(() => z.object({
  title: z.string(),
  chapter_label: z.string(),
  format: z.string(),
  source: z.string(),
  book_id: z.string(),
  chapter_href: z.string(),
  chapter: z.string(),
  is_system_book: z.boolean(),
  as_sample: z.boolean(),
  is_public: z.boolean(),
  allow_scripts: z.boolean(),
  next_chapter_uri: z.string().nullable(),
  previous_chapter_uri: z.string().nullable(),
  top_percentage: z.number(),
  /**
   * ours (docs/decisions.md "Fixed layout and flow"): how this chapter asks to be laid out; a pre-paginated one is a
   * fixed-layout page
   */
  rendition: renditionSchema.optional(),
  /** ours: which way the title's pages turn (EPUB page-progression-direction); taps, swipes and arrows follow */
  page_progression: z.enum(['ltr', 'rtl']).optional(),
  /** ours (docs/decisions.md "Read aloud"): the chapter's EPUB Media Overlay; null when it has none */
  media_overlay: mediaOverlaySchema.nullable().optional(),
  /**
   * ours (docs/decisions.md "Reading fidelity: the importer's half"): the class, id and style of the content document's
   * own html and body
   */
  root_attributes: rootAttributesSchema.nullable().optional(),
  /**
   * ours (docs/decisions.md "A chapter that is not well-formed"): its XHTML is not well-formed XML, shown recovered by
   * the HTML parser: the reader says so
   */
  markup_recovered: z.boolean().optional(),
  /**
   * ours (docs/decisions.md "Read aloud"): the title's language (dc:language), for the browser voice; null when unknown
   */
  language: z.string().nullable().optional(),
  /**
   * ours (docs/decisions.md "Media serving"): a video or audiobook part's playable file; absent or null for a book's
   * chapters
   */
  media: chapterMediaSchema.nullable().optional(),
  resources: z.array(chapterItemSchema),
  /** set when this chapter cannot be delivered: the message, and where to go (sign-in) */
  error: z.string().nullable(),
  url: z.string().nullable(),
}));
export type ArchiveItem = z.infer<typeof archiveItemSchema>;
export const blockResponseSchema = lazySchema(() => z.array(archiveItemSchema));

export const keyResponseSchema = lazySchema(() => z.object({ key: z.string() }));

export const tocItemSchema: z.ZodType<TocItem> = lazySchema(() => z.lazy(() =>
  z.object({
    href: z.string(),
    uri: z.string(),
    label: z.string(),
    full_path: z.string(),
    depth: z.number().int(),
    children: z.array(tocItemSchema),
    selected: z.boolean(),
    minutes_required: z.number(),
    url: z.string(),
  }),
));
export interface TocItem {
  href: string;
  uri: string;
  label: string;
  full_path: string;
  depth: number;
  children: TocItem[];
  selected: boolean;
  minutes_required: number;
  url: string;
}

export const tocResponseSchema = lazySchema(() => z.object({
  book_id: z.string(),
  title: z.string(),
  title_safe: z.string(),
  authors: z.array(z.string()),
  publisher: z.object({ name: z.string(), slug: z.string(), logo: z.string().nullable() }).nullable(),
  pub_date: z.string().nullable(),
  detail_url: z.string(),
  detail_position: z.number().int(),
  thumbnail_tag: z.string().nullable(),
  /** the flat reading order (chapters of the spine) with depth, current one selected */
  chapters: z.array(
    z.object({
      label: z.string(),
      depth: z.number().int(),
      uri: z.string(),
      selected: z.boolean(),
      minutes_required: z.number(),
      url: z.string(),
      /**
       * ours (docs/decisions.md "Fixed layout and flow"): each spine item's layout, given when the book has
       * fixed-layout pages (for its spreads)
       */
      rendition: renditionSchema.optional(),
      /**
       * ours (docs/decisions.md "Media serving"): a video or audiobook part's length (its minutes_required is this in
       * minutes)
       */
      duration_ms: z.number().int().optional(),
    }),
  ),
  /** the nested table of contents */
  items: z.array(tocItemSchema),
  /** ours: the print edition's pages (EPUB page list) for "go to page"; empty when the book has none */
  page_list: z.array(z.object({ label: z.string(), href: z.string(), url: z.string() })),
  /** ours: the book's landmarks (bodymatter: where the text starts; toc, index, …) */
  landmarks: z.array(z.object({ type: z.string(), label: z.string(), href: z.string(), url: z.string() })),
  /**
   * ours (docs/decisions.md "Fixed layout and flow"): the package's rendition defaults (page_spread is always null
   * here)
   */
  rendition: renditionSchema.optional(),
}));
export type TocResponse = z.infer<typeof tocResponseSchema>;

export const usageEventsRequestSchema = lazySchema(() => z.union([z.array(z.unknown()), z.object({ events: z.array(z.unknown()) })]));
export const usageEventsResponseSchema = lazySchema(() => z.object({
  accepted: z.array(z.string()),
  rejected: z.array(z.object({ index: z.number().int(), usage_uuid: z.string().nullable(), reason: z.string() })),
}));

export const chapterProgressRecordSchema = lazySchema(() => z.object({
  content: z.string(),
  identifier: z.string(),
  full_path: z.string(),
  top_percentage: z.number(),
}));
export const chapterProgressPageSchema = lazySchema(() => pagedSchema(chapterProgressRecordSchema));

/** library-playlists-account.md §7 `POST /debug/` (debug or test mode only): a message for the server's log. */
export const DEBUG_MESSAGE_MAX = 4000;
export const debugMessageSchema = lazySchema(() => z
  .object({ message: z.string({ message: 'This field is required.' }).trim().min(1, 'This field is required.').max(DEBUG_MESSAGE_MAX) })
  .strict());
export type DebugMessage = z.infer<typeof debugMessageSchema>;

/** GET/PUT SHORTCUTS_SETTING_PATH (core/shortcuts.ts): single-key shortcuts on or off for the signed-in reader. */
export const shortcutSettingSchema = lazySchema(() => z.object({ enabled: z.boolean({ message: 'enabled must be true or false' }) }).strict());
export type ShortcutSetting = z.infer<typeof shortcutSettingSchema>;
