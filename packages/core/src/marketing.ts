/**
 * The marketing modules of library-playlists-account.md §2 a self-hosted library's readers use (docs/decisions.md "The
 * marketing modules"): the newsletter of what is new (opt in on the home, out on the account page or by the mail's
 * link), the home's dismissable blocks, buy links per title. Addresses in paths.ts (`marketingPaths`), words in
 * messages.ts (`MARKETING_MESSAGES`), the decisions in docs/decisions.md "The marketing modules".
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { contentMetadataSchema } from './schemas.ts';

/** The home blocks a reader can dismiss for good (remembered per account). */
export const HOME_MODULES = ['tutorial', 'newsletter'] as const;
export type HomeModule = (typeof HOME_MODULES)[number];

/** Titles per page of the home's recent items: one row of the grid at 1280 px (five columns). */
export const RECENT_ITEMS_PAGE_SIZE = 5;
/** How many new titles one newsletter lists (the rest are counted and linked to the catalog). */
export const NEWSLETTER_MAX_TITLES = 20;
/** How long an unsubscribe link works after its mail was sent (days). */
export const NEWSLETTER_LINK_DAYS = 365;
/** The default cadence of the newsletter (days; NEWSLETTER_DAYS). */
export const NEWSLETTER_DEFAULT_DAYS = 7;

export const homeModulesSchema = lazySchema(() => z.object({
  /** null for visitors: they cannot subscribe */
  newsletter: z.object({ subscribed: z.boolean(), every_days: z.number().int() }).nullable(),
  dismissed: z.array(z.enum(HOME_MODULES)),
}));
export type HomeModules = z.infer<typeof homeModulesSchema>;

export const homeDismissalRequestSchema = lazySchema(() => z.object({ module: z.enum(HOME_MODULES) }));
export const newsletterSubscriptionRequestSchema = lazySchema(() => z.object({ subscribed: z.boolean() }));
export const newsletterSubscriptionSchema = lazySchema(() => z.object({ subscribed: z.boolean() }));

export const newsletterSampleSchema = lazySchema(() => z.object({
  /** the titles the next newsletter would list, newest first */
  titles: z.array(z.object({ book_id: z.string(), title: z.string(), url: z.string() })),
  /** how many new titles in all (more than listed when over NEWSLETTER_MAX_TITLES) */
  total: z.number().int(),
  /** what the next newsletter covers: added after this time */
  since: z.string(),
}));
export type NewsletterSample = z.infer<typeof newsletterSampleSchema>;

export const unsubscribeTokenSchema = lazySchema(() => z.object({ token: z.string().min(1).max(600) }));
export const unsubscribeStateSchema = lazySchema(() => z.object({
  /** the address the link was sent to, partly hidden (the page says whom it unsubscribes) */
  email: z.string(),
  subscribed: z.boolean(),
}));
export type UnsubscribeState = z.infer<typeof unsubscribeStateSchema>;

/** An email address with most of its local part hidden: r•••@example.com. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '•••';
  return `${email[0]}•••${email.slice(at)}`;
}

/** The placeholders a BUY_LINK_TEMPLATE may hold. */
export const BUY_LINK_PLACEHOLDERS = ['{isbn}', '{title}', '{author}', '{book_id}'] as const;

/** The digits (and X) of an ISBN-10 or ISBN-13 in an identifier such as urn:isbn:978-0-… ; null when none. */
export function isbnOf(identifier: string | null | undefined): string | null {
  if (!identifier) return null;
  const compact = identifier.replace(/^urn:isbn:/i, '').replace(/^isbn:?\s*/i, '').replace(/[\s-]/g, '');
  return /^(97[89]\d{10}|\d{9}[\dXx])$/.test(compact) ? compact.toUpperCase() : null;
}

/**
 * A title's buy link from the operator's template, each placeholder filled percent-encoded; null when the template
 * asks for something the title lacks (an ISBN) or is unset.
 */
export function buyLinkOf(template: string | null, title: { identifier: string | null; title: string; authors: readonly string[]; book_id: string }): string | null {
  if (!template) return null;
  const isbn = isbnOf(title.identifier);
  if (template.includes('{isbn}') && !isbn) return null;
  const values: Record<string, string> = { '{isbn}': isbn ?? '', '{title}': title.title, '{author}': title.authors[0] ?? '', '{book_id}': title.book_id };
  return template.replace(/\{(isbn|title|author|book_id)\}/g, (m) => encodeURIComponent(values[m] ?? ''));
}

// ---- editors' transformation playlists (library-playlists-account.md §2 "transformation playlists with topic banner") ----

/** Titles a transformation playlist shows in its banner (the rest are counted). */
export const TRANSFORMATION_TITLES_SHOWN = 6;
/** Transformation playlists the home shows at most (the newest published first). */
export const TRANSFORMATION_PLAYLISTS_ON_HOME = 2;

export const transformationPublishRequestSchema = lazySchema(() => z.object({ topic: z.string().min(1).max(200) }));

export const transformationPlaylistSchema = lazySchema(() => z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  topic: z.object({ name: z.string(), slug: z.string() }),
  /** the editor who curates it (their user name) */
  curator: z.string(),
  /** the first TRANSFORMATION_TITLES_SHOWN titles, in the playlist's order, as cards */
  titles: z.array(contentMetadataSchema),
  count: z.number().int(),
}));
export type TransformationPlaylist = z.infer<typeof transformationPlaylistSchema>;
export const transformationPlaylistListSchema = lazySchema(() => z.object({ results: z.array(transformationPlaylistSchema) }));
/** The console's list (docs/decisions.md "The marketing modules"): an editor's own playlists and the topic each is published under (null: not). */
export const transformationOwnListSchema = lazySchema(() => z.object({
  results: z.array(z.object({ id: z.string(), name: z.string(), count: z.number().int(), topic: z.object({ name: z.string(), slug: z.string() }).nullable() })),
}));
export type TransformationOwnList = z.infer<typeof transformationOwnListSchema>;
