/**
 * The players' pure rules (reader.md §4 "Video", §5, §9): clock text, the transcript's cues, the address's start and
 * stop times, when to resume, and the usage spans of a played interval.
 */
import { clampPercentage, MEDIA_TIME_PARAM, READER_CONSTANTS } from '@lectern/core';

/** The clock text is core's, shared with the title page. */
export { formatClock } from '@lectern/core';

/** The spoken form for screen readers: "1 minute 15 seconds". */
export function spokenClock(seconds: number): string {
  const s = Math.max(0, Math.floor(Number.isFinite(seconds) ? seconds : 0));
  const parts: string[] = [];
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (h) parts.push(`${h} ${h === 1 ? 'hour' : 'hours'}`);
  if (m) parts.push(`${m} ${m === 1 ? 'minute' : 'minutes'}`);
  if (r || !parts.length) parts.push(`${r} ${r === 1 ? 'second' : 'seconds'}`);
  return parts.join(' ');
}

export interface Cue {
  start: number;
  text: string;
}

/**
 * A part's transcript: the chapter content, one `<p data-start="12.500">` per cue (the media contract). Read as text
 * only: nothing of it is put into the page as HTML.
 */
export function parseTranscript(html: string): Cue[] {
  if (!html.trim()) return [];
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const cues: Cue[] = [];
  for (const p of doc.querySelectorAll('[data-start]')) {
    const start = Number(p.getAttribute('data-start'));
    const text = (p.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (Number.isFinite(start) && start >= 0 && text) cues.push({ start, text });
  }
  return cues.sort((a, b) => a.start - b.start);
}

/** The cue being said at `time` (the last one started), or -1 before the first. */
export function activeCue(cues: readonly Cue[], time: number): number {
  let lo = 0;
  let hi = cues.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cues[mid]!.start <= time + 0.05) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** A description (sanitised HTML from the server) as paragraphs of text. */
export function textParagraphs(html: string | null | undefined): string[] {
  if (!html?.trim()) return [];
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const blocks = [...doc.body.querySelectorAll('p, li, h1, h2, h3, h4, h5, h6, blockquote, pre')].filter((el) => !el.querySelector('p, li'));
  const texts = (blocks.length ? blocks : [doc.body]).map((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim()).filter(Boolean);
  return texts;
}

export interface PlayRange {
  /** seconds; 0 when the address gives none */
  start: number;
  /** seconds; null when the address gives none */
  stop: number | null;
}

const seconds = (v: string | null): number | null => {
  if (v === null || v.trim() === '') return null;
  // 90, 90.5, 1:30, 1:02:05
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const m = /^(?:(\d+):)?(\d{1,2}):(\d{2}(?:\.\d+)?)$/.exec(v);
  return m ? Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]) : null;
};

/**
 * reader.md §4: "Start and stop times from the URL constrain the playhead" (docs/decisions.md "Media players"):
 * `?start=` and `?stop=` in seconds or h:mm:ss; a stop not after the start is ignored.
 */
export function playRange(search: string): PlayRange {
  const q = new URLSearchParams(search);
  const start = seconds(q.get('start')) ?? 0;
  const stop = seconds(q.get('stop'));
  return { start, stop: stop !== null && stop > start ? stop : null };
}

/**
 * The second a search hit opens the part at (core MEDIA_TIME_PARAM, `?t=`: where the words are said), in seconds or
 * h:mm:ss; null when the address gives none. Unlike `start` it does not constrain the playhead (decisions.md "Search
 * hits in a transcript open at their second").
 */
export function openAtOf(search: string): number | null {
  return seconds(new URLSearchParams(search).get(MEDIA_TIME_PARAM));
}

/** What the range asks of the playhead at `time`: seek to its start, stop at its stop, or nothing. */
export function constrain(time: number, range: PlayRange): 'seek-start' | 'stop' | null {
  if (time < range.start - 0.25) return 'seek-start';
  if (range.stop !== null && time >= range.stop) return 'stop';
  return null;
}

/** reader.md §4, §9: resume at a saved position only when it is at least 15 s in (and not at the very end). */
export function resumeAt(savedSeconds: number | null, duration: number, range: PlayRange): number | null {
  if (savedSeconds === null || !Number.isFinite(savedSeconds)) return null;
  if (savedSeconds < READER_CONSTANTS.videoResumeThresholdS) return null;
  if (Number.isFinite(duration) && duration > 0 && savedSeconds >= duration - 1) return null;
  if (savedSeconds < range.start || (range.stop !== null && savedSeconds >= range.stop)) return null;
  return savedSeconds;
}

/** Seconds into a part as the usage percentage (0-100). */
export function percentOf(time: number, duration: number): number {
  if (!Number.isFinite(duration) || duration <= 0) return 0;
  return clampPercentage((time / duration) * 100);
}

/**
 * A played interval as usage spans (reader.md §5 for video: start < end and a span of at most 50): nothing when it
 * did not move forward, and pieces of at most 50 when it is longer.
 */
export function usageSpans(start: number, end: number): [number, number][] {
  const a = clampPercentage(start);
  const b = clampPercentage(end);
  const round = (n: number) => Math.round(n * 100) / 100;
  if (!(round(b) > round(a))) return [];
  const out: [number, number][] = [];
  const limit = READER_CONSTANTS.videoSpanLimit;
  for (let from = a; from < b; from += limit) {
    const to = Math.min(b, from + limit);
    if (round(to) > round(from)) out.push([round(from), round(to)]);
  }
  return out;
}
