/**
 * Reader rules of reader.md §4, §5 and §9 shared by the server and the browser: the usage-event validator,
 * display-setting limits (clamped), reading-time display, and the reader's constants (the completed threshold,
 * progress page size and events per request live in LIMITS).
 */
import { USAGE_MESSAGES } from './messages.ts';

export const READER_CONSTANTS = {
  pagingResizeDebounceMs: 300,
  usageUpdateIntervalMs: 15_000,
  usageTimerMs: 60_000,
  hashScrollOffsetPx: 100,
  hashScrollDelayMs: 50,
  swipeMinX: 60,
  swipeMaxY: 20,
  tapZoneFraction: 0.4,
  zoomFitFraction: 0.98,
  zoomFitDebounceMs: 100,
  imagePopupFadeMs: 300,
  lightboxMinWidthPx: 50,
  fontSliderWidth: 152,
  preferencesCookieDays: 365,
  videoSpanLimit: 50,
  /** reader.md §9 "Video resume threshold": 15 s, after 500 ms (the players resume at a saved position this far in) */
  videoResumeThresholdS: 15,
  videoResumeDelayMs: 500,
  /** reader.md §9 "Media-error session refresh throttle": a media error re-fetches the session at most this often */
  mediaSessionRefreshMs: 90_000,
} as const;

/**
 * reader.md §9 "Playback speeds": the read-aloud speeds (docs/decisions.md "Read aloud"), as playback-rate multiples.
 */
export const PLAYBACK_SPEEDS = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2] as const;

// ---- display settings (spec §5, §9; the font-size reading chosen is recorded in docs/decisions.md) ----

export const READER_LIMITS = {
  fontSize: { min: 0.35, max: 1.85, default: 1, step: 0.1 },
  columnWidth: { min: 25, max: 95, default: 65 },
  brightness: { min: 50, max: 255, default: 255, step: 25 },
  zoom: { min: 0.75, max: 3, default: 1.5, stepMultiple: 1.2 },
} as const;

export const READING_MODES = ['day-mode', 'cloudy-mode', 'night-mode'] as const;
export type ReadingMode = (typeof READING_MODES)[number];
export const PAGINATIONS = ['scroll', 'page'] as const;
export type Pagination = (typeof PAGINATIONS)[number];

export interface ReaderPreferences {
  font_size: number;
  font_name: string;
  column_width: number;
  reading_mode: ReadingMode;
  brightness: number;
  pagination: Pagination;
  zoom_factor: number;
}

export const DEFAULT_PREFERENCES: ReaderPreferences = {
  font_size: READER_LIMITS.fontSize.default,
  font_name: 'Georgia',
  column_width: READER_LIMITS.columnWidth.default,
  reading_mode: 'day-mode',
  brightness: READER_LIMITS.brightness.default,
  pagination: 'scroll',
  zoom_factor: READER_LIMITS.zoom.default,
};

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
const finite = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
/** Rounds away floating-point noise from repeated steps (1 + 0.1 + 0.1 ...). */
const tidy = (value: number) => Math.round(value * 1000) / 1000;

/** Any stored or requested preferences, made valid: unknown values fall back to defaults, numbers are clamped. */
export function normalizePreferences(input: Partial<Record<keyof ReaderPreferences, unknown>> | null | undefined): ReaderPreferences {
  const p = input ?? {};
  const f = READER_LIMITS;
  const brightness = clamp(finite(p.brightness, f.brightness.default), f.brightness.min, f.brightness.max);
  return {
    font_size: tidy(clamp(finite(p.font_size, f.fontSize.default), f.fontSize.min, f.fontSize.max)),
    font_name: typeof p.font_name === 'string' && /^[\w -]{1,40}$/.test(p.font_name) ? p.font_name : DEFAULT_PREFERENCES.font_name,
    column_width: tidy(clamp(finite(p.column_width, f.columnWidth.default), f.columnWidth.min, f.columnWidth.max)),
    reading_mode: READING_MODES.includes(p.reading_mode as ReadingMode) ? (p.reading_mode as ReadingMode) : 'day-mode',
    // Brightness moves in steps of 25 from its minimum (50, 75 … 250), and its maximum 255 (full) is kept as it is.
    brightness:
      brightness >= f.brightness.max
        ? f.brightness.max
        : clamp(f.brightness.min + Math.round((brightness - f.brightness.min) / f.brightness.step) * f.brightness.step, f.brightness.min, f.brightness.max),
    pagination: PAGINATIONS.includes(p.pagination as Pagination) ? (p.pagination as Pagination) : 'scroll',
    zoom_factor: tidy(clamp(finite(p.zoom_factor, f.zoom.default), f.zoom.min, f.zoom.max)),
  };
}

export const stepFontSize = (current: number, direction: 1 | -1) =>
  normalizePreferences({ font_size: current + direction * READER_LIMITS.fontSize.step }).font_size;
export const stepZoom = (current: number, direction: 1 | -1) =>
  normalizePreferences({ zoom_factor: direction === 1 ? current * READER_LIMITS.zoom.stepMultiple : current / READER_LIMITS.zoom.stepMultiple }).zoom_factor;
/** Font size = minimum + slider position / 100 (spec §9). */
export const fontSizeFromSlider = (position: number) => normalizePreferences({ font_size: READER_LIMITS.fontSize.min + position / 100 }).font_size;
export const sliderFromFontSize = (fontSize: number) => Math.round((fontSize - READER_LIMITS.fontSize.min) * 100);
/** Column width = position / 152 * 100 percent (spec §9). */
export const columnWidthFromSlider = (position: number) => normalizePreferences({ column_width: (position / READER_CONSTANTS.fontSliderWidth) * 100 }).column_width;

/** 'mm:ss mins' (spec §9) from minutes. */
export function formatMinutesRequired(minutes: number): string {
  const totalSeconds = Math.max(0, Math.round(minutes * 60));
  const mm = Math.floor(totalSeconds / 60);
  const ss = totalSeconds % 60;
  return `${String(mm).padStart(2, '0')}:${String(ss).padStart(2, '0')} mins`;
}

/** Reading time of a chapter from its visible text: about 6 characters a word, 250 words a minute. */
export const minutesForText = (textLength: number) => Math.round((textLength / 6 / 250) * 100) / 100;

// ---- usage events (spec §5 "Usage events are validated before sending, and invalid ones are dropped") ----


export interface UsageEvent {
  chapter: string;
  start_percentage: number;
  end_percentage: number;
  client_timestamp: string | number;
  usage_uuid: string;
  is_offline?: boolean;
  usage_is_complete?: boolean;
  id?: string | number;
  idAttribute?: string;
  product?: string;
}

const REQUIRED = ['chapter', 'start_percentage', 'end_percentage', 'client_timestamp', 'usage_uuid'] as const;
const ALLOWED = new Set<string>([...REQUIRED, 'is_offline', 'usage_is_complete', 'id', 'idAttribute', 'product']);

export type UsageValidation = { ok: true; event: UsageEvent } | { ok: false; reason: string };

/**
 * The spec's rules, in its order; `isVideo` defaults to a media product ('video', or 'audio' for an audiobook's
 * parts, which are played as a video's are: docs/decisions.md "Media usage").
 */
export function validateUsageEvent(input: unknown, opts: { isVideo?: boolean } = {}): UsageValidation {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { ok: false, reason: 'An event must be an object.' };
  const e = input as Record<string, unknown>;
  for (const field of REQUIRED) if (!(field in e)) return { ok: false, reason: `${field} is required.` };
  for (const field of Object.keys(e)) if (!ALLOWED.has(field)) return { ok: false, reason: `${field} is not an allowed field.` };
  const chapter = e.chapter;
  if (chapter === undefined || chapter === null || (typeof chapter === 'number' && Number.isNaN(chapter)) || typeof chapter !== 'string' || chapter === '') {
    return { ok: false, reason: 'chapter must be defined.' };
  }
  for (const field of ['start_percentage', 'end_percentage'] as const) {
    const v = e[field];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 100) return { ok: false, reason: `${field} must be a number from 0 to 100.` };
  }
  const start = e.start_percentage as number;
  const end = e.end_percentage as number;
  const isVideo = opts.isVideo ?? (e.product === 'video' || e.product === 'audio');
  if (isVideo) {
    if (!(start < end)) return { ok: false, reason: 'For video, start_percentage must be less than end_percentage.' };
    if (end - start > READER_CONSTANTS.videoSpanLimit) return { ok: false, reason: `For video, the span must be at most ${READER_CONSTANTS.videoSpanLimit}.` };
  }
  if (start === end) return { ok: false, reason: USAGE_MESSAGES.positionUnchanged };
  if ('is_offline' in e && typeof e.is_offline !== 'boolean') return { ok: false, reason: 'is_offline must be a boolean.' };
  if ('usage_is_complete' in e && typeof e.usage_is_complete !== 'boolean') return { ok: false, reason: 'usage_is_complete must be a boolean.' };
  const ts = e.client_timestamp;
  const time = typeof ts === 'number' ? ts : typeof ts === 'string' ? Date.parse(ts) : Number.NaN;
  // Within the range a Date can hold (±8.64e15 ms): beyond it there is no such time (and toISOString throws).
  if (!Number.isFinite(time) || Math.abs(time) > 8.64e15) return { ok: false, reason: 'client_timestamp must be a time.' };
  if (typeof e.usage_uuid !== 'string' || !/^[\w-]{1,64}$/.test(e.usage_uuid)) return { ok: false, reason: 'usage_uuid must be an identifier of at most 64 characters.' };
  if ('product' in e && (typeof e.product !== 'string' || e.product.length > 40)) return { ok: false, reason: 'product must be a short string.' };
  return { ok: true, event: e as unknown as UsageEvent };
}

/**
 * Per-chapter available percentage (spec §4): starts at 100 and drops by the absolute span of each event; an
 * event is complete when the remainder reaches 0 or below. Returns the new remainder and the completion flag.
 */
export function consumeAvailable(available: number, start: number, end: number): { available: number; complete: boolean } {
  const next = available - Math.abs(end - start);
  return { available: next, complete: next <= 0 };
}

/** A position as a percentage clamped to 0–100 (spec §4 "Saving a position"). */
export const clampPercentage = (value: number) => (Number.isFinite(value) ? Math.min(100, Math.max(0, value)) : 0);
