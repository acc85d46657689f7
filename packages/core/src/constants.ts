/** Business constants of the specifications (library-playlists-account.md §9, reader.md §9). */
export const LIMITS = {
  playlistNameMax: 65,
  playlistDescriptionMax: 160,
  topicsShownBeforeMore: 5,
  itemsPerPage: 10,
  maxBookListItems: 25,
  titleShrinkThreshold: 60,
  descriptionElide: 500,
  progressPageSize: 50,
  completedThresholdPercent: 95,
  maxEventsPerRequest: 20,
} as const;

/** Catalog paging: our API pages by `page` and `page_size`; page_size is clamped to this range. */
export const CATALOG_PAGE_SIZE = { default: 24, max: 100 } as const;
/**
 * Pages reached by number read this many rows in at most; later pages are reached with the `next` link's cursor
 * (keyset paging, docs/decisions.md "Catalog listings at 100,000 titles").
 */
export const CATALOG_OFFSET_MAX = 10_000;

export const ACCOUNT_STATUSES = ['trial', 'subscriber', 'expired', 'cancelled'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export const ROLES = ['admin', 'content-creator', 'preview-creator'] as const;
export type Role = (typeof ROLES)[number];

export const CONTENT_FORMATS = ['book', 'document', 'video', 'audiobook'] as const;
export type ContentFormat = (typeof CONTENT_FORMATS)[number];

/** Cookie names fixed by the specifications and DESIGN.md. */
export const COOKIES = {
  session: 'lectern_session',
  loggedIn: 'logged_in',
  csrf: 'csrftoken',
} as const;

/**
 * The id of index.html's `<script type="application/json">` with the page's first data (the server writes it, the
 * web app reads it instead of its first request; docs/decisions.md "The first screen's data in the page").
 */
export const BOOT_DATA_ID = 'lectern-boot';

/**
 * The window property where a reader address's early script (server routes/web.ts, `EARLY_BLOCK_SCRIPT`) leaves its
 * block request under way, `{ book_id, href, response }`, for the reader to take instead of asking again
 * (docs/decisions.md "A reader address asks for its chapter from the page itself").
 */
export const EARLY_BLOCK_GLOBAL = '__lecternEarlyBlock';

/**
 * A long chapter's first screen painted by the page (docs/decisions.md "A long chapter's first screen painted by the
 * page"): the id of the frame the early script makes (the web app removes it once the reader's own first screen is
 * painted), the local-storage keys whose values it hands the chapter worker (the reader's settings, pagination choice,
 * bars, places and what it saw of the account's places: web engine/pageFirstScreen.ts), the reader's footer's height
 * at any width (web features/reader/ReaderPage.css .reader-footer; the frame ends above it), and the chapter frames'
 * sandbox (web engine/chapterDocument.ts: same origin for the app, never scripts).
 */
export const PAGE_FRAME_ID = 'lectern-page-chapter';
export const PAGE_VIEW_KEYS = ['reader_preferences', 'reader_pagination_chosen', 'reader_chrome', 'reader_positions', 'reader_server_positions'] as const;
export const PAGE_FRAME_FOOTER_PX = 49;
/** The attribute of the empty element the first screen's document carries at the reader's stored place. */
export const PAGE_PLACE_ATTR = 'data-lectern-page-place';
export const CHAPTER_FRAME_SANDBOX = 'allow-same-origin';
/**
 * Chapters with less HTML than this are written whole (web engine/chapterSlices.ts); a chapter with at least this much
 * text (the server's `text_length`, which its markup can only exceed) is "long" in a reader address's page data: the
 * app's start there waits for the page's own first screen (web app/pageFirstScreenGate.ts).
 */
export const LONG_CHAPTER_CHARS = 150_000;

/**
 * The window property where a server-rendered screen's early script (server routes/web.ts, `EARLY_INPUT_SCRIPT`)
 * keeps what the reader did before the screen was hydrated, `{ keys, fields, stop }`, for the app to take and replay
 * (web app/earlyInput.ts; docs/decisions.md "The first screen rendered on the server").
 */
export const EARLY_INPUT_GLOBAL = '__lecternEarlyInput';

export const CSRF_HEADER = 'x-csrftoken';
/** Methods that never need a CSRF token (library-playlists-account.md §7). */
export const SAFE_METHODS = ['GET', 'HEAD', 'OPTIONS', 'TRACE'] as const;

/** Most content addresses one add/remove/queue/metadata call may carry. */
export const MAX_URLS_PER_CALL = 100;
/** The longest playlist a reorder call takes (the whole list is sent at once). */
export const MAX_PLAYLIST_ITEMS_ORDERED = 5_000;

/**
 * The fields the web client asks /api/v1/metadata/ for, exactly as spec §7 lists them. Topics are not among
 * them: playlist items carry their own metadata.topics. (Plain constants live here, not beside the zod schemas,
 * so the web client can use them without loading zod.)
 */
export const CLIENT_METADATA_FIELDS = 'api_url,authors,content_format,continue_url,cover_image_url,identifier,title,url,issued,publishers';

/** The password rule's lengths (core/passwords.ts). */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

/** reader.md §9 note length; §5 the quote shown in the editor is cut to the same length with an ellipsis. */
export const NOTE_MAX_LENGTH = 750;
export const QUOTE_SHOWN_LENGTH = 750;

// ---- live training (library-playlists-account.md §3, §4, §7; docs/decisions.md "Live training") ----

/** §4: the banner's data is polled every 12 minutes in the reader. */
export const LIVE_TRAINING_POLL_MS = 12 * 60 * 1000;
/**
 * Ours: the "current event" is an event in progress, else the next one starting within this window (24 hours);
 * the banner says 'Online training starting soon' for it until it starts.
 */
export const LIVE_TRAINING_SOON_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Ours: the browser remembers a dismissed banner per event under this prefix + the event id (localStorage). */
export const LIVE_TRAINING_DISMISSED_KEY_PREFIX = 'live_training_dismissed_';

/** The live-training addresses: the calls of §7 and the two pages of §2. */
export const liveTrainingPaths = {
  /** GET: §7 banner data (an empty object when there is no banner) */
  currentEvent: () => '/api/v1/live-training/current-event/',
  /** GET [?topic=slug][&course_id=id]: §7's course statuses (ours: every course with its events not over yet) */
  courseStatuses: () => '/api/v1/live-training/course-statuses/',
  /** §2: the courses index, with its topic filter */
  index: (topic?: string) => (topic ? `/live-training/?topic=${encodeURIComponent(topic)}` : '/live-training/'),
  /** §2: a course's page, the banner's course link */
  course: (slug: string, courseId: string) => `/live-training/courses/${encodeURIComponent(slug)}/${encodeURIComponent(courseId)}/`,
  /** operators */
  adminCourses: () => '/api/v1/admin/live-training/courses/',
  adminCourse: (courseId: string) => `/api/v1/admin/live-training/courses/${encodeURIComponent(courseId)}/`,
  adminEvents: (courseId: string) => `/api/v1/admin/live-training/courses/${encodeURIComponent(courseId)}/events/`,
  adminEvent: (eventId: string) => `/api/v1/admin/live-training/events/${encodeURIComponent(eventId)}/`,
} as const;

/**
 * A media title's preview clip: the opening seconds of its first part, made at import and streamed to anyone
 * (visitors and readers without rights; reader.md §4 "The preview has ended.").
 */
export const MEDIA_PREVIEW_SECONDS = 30;

// ---- Moved here from search.ts, account-entry.ts, annotations.ts and media.ts: the web app's entry uses them, and
// those modules define zod schemas, which would then load (and run) before the first paint (docs/decisions.md).

/** library-playlists-account.md §9: search debounce 1200 ms, 240 ms when signed in; default search '*'. */
export const SEARCH_DEBOUNCE_MS = 1200;
export const SEARCH_DEBOUNCE_SIGNED_IN_MS = 240;
export const DEFAULT_SEARCH_QUERY = '*';

/** §9: the search-selection POST gives up after 1500 ms (a failure is only logged). */
export const SEARCH_SELECT_TIMEOUT_MS = 1500;
/** reader.md §9: the in-book search's query cookie lasts 1 day. */
export const SEARCH_QUERY_COOKIE_DAYS = 1;

/**
 * reader.md §4 "Search panel": the chosen result's snippet (plain text, with the chapter it belongs to) and the
 * query are kept in cookies for a day; the reader finds the passage by the snippet's words after it navigates.
 */
export const SEARCH_SNIPPET_COOKIE = 'search_snippet';
export const SEARCH_QUERY_COOKIE = 'search_query';

/** A snippet kept in the cookie is cut to this many characters (the jump needs its first 8 words). */
export const SEARCH_SNIPPET_COOKIE_MAX = 300;

/** Where a new reader goes after registering: the topic form that feeds the home's recommendations. */
export const ONBOARDING_LOCATION = '/welcome/topics/';
/** §4/§9: the subscribe nag starts collapsed and slides up after 0.5 s. */
export const NAG_SLIDE_UP_MS = 500;

/** The token travels only in this header (never a cookie or the query). */
export const AUTH_TOKEN_HEADER = 'x-annotator-auth-token';

/** The formats whose chapters are media parts (CONTENT_FORMATS). */
export const MEDIA_FORMATS = ['video', 'audiobook'] as const;
export const isMediaFormat = (format: string): boolean => (MEDIA_FORMATS as readonly string[]).includes(format);

// ---- the shell's timings (library-playlists-account.md §9) ----

/** §9 "Loading delay 2000 ms": a page still loading shows its spinner only after this long (a fast page shows none). */
export const LOADING_DELAY_MS = 2000;
/** §9 "Nav collapse delay 200 ms": an open navigation menu folds this long after the pointer or focus leaves it. */
export const NAV_COLLAPSE_DELAY_MS = 200;
/** §6, §9: signed-in readers get the scroll-to-top icon once the page has scrolled past this many pixels. */
export const SCROLL_TO_TOP_AFTER_PX = 200;
/** §9 "Transitions 200, 300, 600 ms": short (menus, the icon), the modal's, and long (the welcome message's slide). */
export const TRANSITION_MS = { short: 200, modal: 300, long: 600 } as const;
/** §9 "Touch click helper": two taps within 200 ms are a double tap; a finger moved 10 px is no tap; 100 ms held is a press. */
export const TOUCH_CLICK = { doubleClickMs: 200, moveTolerancePx: 10, longPressMs: 100 } as const;
/** §9: how often a time shown relative to now ("5 minutes ago") is said again. */
export const RELATIVE_TIME_REFRESH_MS = 60_000;
