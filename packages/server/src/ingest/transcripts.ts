/**
 * A part's transcript, given as WebVTT or SRT, read into cues and written back out twice: as WebVTT captions (SRT
 * converted; only the timings and the plain text survive, no styles, regions or markup) and as the chapter's
 * content, one `<p data-start="12.500">text</p>` per cue (the media contract), which search indexes like a book's
 * text. The cue text is escaped both times: nothing of the file's markup reaches a page.
 */
import { IngestError } from './types.ts';
import { escapeText } from '../util/html-escape.ts';

export interface Cue {
  /** seconds */
  start: number;
  end: number;
  text: string;
}

/** Most cues one transcript may hold (an hour of speech is about a thousand). */
export const MAX_CUES = 50_000;
/** The largest transcript file read. */
export const MAX_TRANSCRIPT_BYTES = 4 * 1024 * 1024;

const TIMING = /^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s+-->\s+((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})(?:\s.*)?$/;

/** Reads WebVTT or SRT (told apart by the WEBVTT header, not the name); `name` is for messages. */
export function parseTranscript(text: string, name: string): Cue[] {
  const body = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const vtt = /^WEBVTT(?:[ \t].*)?(?:\n|$)/.test(body);
  const blocks = body.split(/\n[ \t]*\n+/);
  const cues: Cue[] = [];
  for (const [index, block] of blocks.entries()) {
    if (vtt && index === 0) continue; // the header block
    const lines = block.split('\n').filter((l, i) => i > 0 || l.trim() !== '');
    if (lines.length === 0) continue;
    if (vtt && /^(NOTE|STYLE|REGION)(\s|$)/.test(lines[0]!)) continue;
    const timingAt = TIMING.test(lines[0]!) ? 0 : lines.length > 1 && TIMING.test(lines[1]!) ? 1 : -1;
    if (timingAt < 0) continue;
    const [, from, to] = TIMING.exec(lines[timingAt]!)!;
    const start = seconds(from!);
    const end = seconds(to!);
    const cueText = plainText(lines.slice(timingAt + 1).join('\n'));
    if (!cueText || !(end > start)) continue;
    cues.push({ start, end, text: cueText });
    if (cues.length > MAX_CUES) throw new IngestError(`the transcript ${name} has more than ${MAX_CUES} cues`);
  }
  if (cues.length === 0) throw new IngestError(`the transcript ${name} has no cues that can be read as WebVTT or SRT`);
  return cues.sort((a, b) => a.start - b.start);
}

/** The cues as WebVTT captions. */
export function toWebVtt(cues: Cue[]): string {
  return `WEBVTT\n\n${cues.map((c, i) => `${i + 1}\n${timestamp(c.start)} --> ${timestamp(c.end)}\n${escapeText(c.text)}\n`).join('\n')}`;
}

/** The cues as the chapter's content: one paragraph per cue, its start in seconds with 3 decimals. */
export function toTranscriptHtml(cues: Cue[]): { html: string; textLength: number } {
  const html = cues.map((c) => `<p data-start="${c.start.toFixed(3)}">${escapeText(c.text.replace(/\s*\n\s*/g, ' '))}</p>`).join('\n');
  const textLength = cues.reduce((n, c) => n + c.text.replace(/\s+/g, ' ').length, 0);
  return { html, textLength };
}

/** Plain text as sanitised HTML: one paragraph per blank-line-separated block (manifest descriptions). */
export function textToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${escapeText(p.replace(/\s*\n\s*/g, ' '))}</p>`)
    .join('\n');
}

function seconds(stamp: string): number {
  const parts = stamp.replace(',', '.').split(':').map(Number);
  return parts.reduce((total, part) => total * 60 + part, 0);
}

function timestamp(value: number): string {
  const ms = Math.round(value * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', nbsp: '\u00a0', lrm: '\u200e', rlm: '\u200f', quot: '"', apos: "'" };

/** A cue's text without its tags (<b>, <v Speaker>, <c.class>, timestamps) and with entities decoded. */
function plainText(text: string): string {
  return text
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '';
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    // a decoded &#13; is a line end to a WebVTT parser (CR, LF or CRLF): two would end the cue there
    .split(/\r\n?|\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .join('\n');
}
