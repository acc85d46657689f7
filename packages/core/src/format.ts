/** Display rules of library-playlists-account.md §9 that both the server and the web app apply. */
import { TIME_MESSAGES } from './messages.ts';

/** Type label of a title card: chapter 'BOOK SECTION', learning-path 'VIDEO', others upper-cased, default 'BOOK'. */
export function formatLabel(contentFormat: string | null | undefined): string {
  if (!contentFormat) return 'BOOK';
  if (contentFormat === 'chapter') return 'BOOK SECTION';
  if (contentFormat === 'learning-path') return 'VIDEO';
  return contentFormat.replace(/-/g, ' ').toUpperCase();
}

/** Media icon family: article, book, chapter give book; audiobook, audio-clip give audiobook; video kinds video. */
export function mediaIcon(contentFormat: string | null | undefined): 'book' | 'audiobook' | 'video' {
  switch (contentFormat) {
    case 'audiobook':
    case 'audio-clip':
      return 'audiobook';
    case 'video':
    case 'video-clip':
    case 'learning-path':
      return 'video';
    default:
      return 'book';
  }
}

/** What a reader does with a title, for buttons and locks: books are read, videos watched, audiobooks listened to. */
export function consumeVerb(contentFormat: string | null | undefined): { verb: 'read' | 'watch' | 'listen'; ing: string } {
  const icon = mediaIcon(contentFormat);
  if (icon === 'video') return { verb: 'watch', ing: 'watching' };
  if (icon === 'audiobook') return { verb: 'listen', ing: 'listening' };
  return { verb: 'read', ing: 'reading' };
}

/** A media length as a player shows it: 75 -> "1:15", 3725 -> "1:02:05". */
export function formatClock(seconds: number): string {
  const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Publisher line of a title card: month and year of issued, then the publishers ("May 2012 · Penguin"). */
export function publisherLine(issued: string | null | undefined, publishers: readonly string[]): string {
  const parts: string[] = [];
  const m = issued ? /^(\d{4})(?:-(\d{2}))?/.exec(issued) : null;
  if (m) {
    const month = m[2] ? MONTHS[Number(m[2]) - 1] : undefined;
    parts.push(month ? `${month} ${m[1]}` : m[1]!);
  }
  if (publishers.length) parts.push(publishers.join(', '));
  return parts.join(' · ');
}

/** 'by {authors}' line; empty when the title has no authors. */
export function byline(authors: readonly string[]): string {
  return authors.length ? `by ${authors.join(', ')}` : '';
}

/** Title shrink/elide rule: titles longer than the threshold are shown smaller; past twice it they are cut. */
export function titleDisplay(title: string, threshold = 60): { text: string; shrink: boolean } {
  if (title.length <= threshold) return { text: title, shrink: false };
  const limit = threshold * 2;
  const text = title.length > limit ? `${title.slice(0, limit - 1).trimEnd()}…` : title;
  return { text, shrink: true };
}

/**
 * URL slug of a title, a topic or a publisher ({title_safe} in reader paths; paths encode it). Latin letters fold to
 * a-z (accents off; other Latin letters such as ß separate words, as they always have, so existing slugs stay);
 * letters and digits of other scripts are kept as they are, so "吾輩は猫である" or "Война и мир" have slugs of their
 * own instead of all being "untitled" (whose topics and publishers the importer drops).
 */
export function slugify(text: string): string {
  const words = text
    .normalize('NFKD')
    .replace(/(?<=\p{Script=Latin})[\u0300-\u036f]+/gu, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/(?:[^\p{L}\p{N}]|(?![a-z])\p{Script=Latin})+/gu, '-')
    .replace(/^-+|-+$/g, '');
  const slug = Array.from(words).slice(0, 80).join('').replace(/-+$/g, '');
  return slug || 'untitled';
}

/**
 * §9 "Relative time thresholds: seconds 45, minutes 45, hours 22, days 26, months 11": under 45 seconds a time is
 * "a few seconds" away, under 45 minutes it counts minutes, under 22 hours hours, under 26 days days, under 11
 * months months, then years (each unit rounded, a single one said as "a minute", "an hour"...).
 */
export const RELATIVE_TIME_THRESHOLDS = { seconds: 45, minutes: 45, hours: 22, days: 26, months: 11 } as const;

const DAY_MS = 86_400_000;
/** Days in a month on average over the Gregorian 400-year cycle. */
const DAYS_PER_MONTH = 146_097 / 4_800;

/** How far apart two instants are in words: "a few seconds", "5 minutes", "an hour", "3 days", "2 years". */
export function relativeDistance(ms: number): string {
  const t = RELATIVE_TIME_THRESHOLDS;
  const abs = Math.abs(ms);
  const seconds = Math.round(abs / 1000);
  const minutes = Math.round(abs / 60_000);
  const hours = Math.round(abs / 3_600_000);
  const days = Math.round(abs / DAY_MS);
  const months = Math.round(abs / DAY_MS / DAYS_PER_MONTH);
  const years = Math.round(abs / DAY_MS / DAYS_PER_MONTH / 12);
  const n = (count: number, unit: keyof typeof TIME_MESSAGES.one) => (count <= 1 ? TIME_MESSAGES.one[unit] : TIME_MESSAGES.many(count, unit));
  if (seconds < t.seconds) return TIME_MESSAGES.fewSeconds;
  if (minutes < t.minutes) return n(minutes, 'minute');
  if (hours < t.hours) return n(hours, 'hour');
  if (days < t.days) return n(days, 'day');
  if (months < t.months) return n(months, 'month');
  return n(years, 'year');
}

/** A time as a reader sees it, from now: "a few seconds ago", "3 hours ago", "in 2 days", "in a year". */
export function relativeTime(at: number | string | Date, now: number): string {
  const when = typeof at === 'number' ? at : typeof at === 'string' ? Date.parse(at) : at.getTime();
  const words = relativeDistance(when - now);
  return when > now ? TIME_MESSAGES.future(words) : TIME_MESSAGES.past(words);
}
