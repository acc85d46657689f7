/**
 * What an operator's paths hold, for the import service: books (EPUB, PDF) one title each, and media titles — a
 * single media file, a folder of numbered media files (one title, its files the parts in natural order: 2 before
 * 10), or a folder with a manifest `lectern-media.json` naming the parts, their titles, descriptions and
 * transcripts. Every path a manifest names is confined to its folder: one that leaves it (`../`, an absolute
 * path, a link out) refuses the whole title with the reason. Nothing here reads the media itself: the worker does.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { MediaMeta } from './worker-protocol.ts';

export const MANIFEST_NAME = 'lectern-media.json';
const MAX_MANIFEST_BYTES = 256 * 1024;
const MAX_PARTS = 1000;

export const VIDEO_EXTENSIONS = ['mp4', 'm4v', 'mov', 'mkv', 'webm', 'avi', 'wmv', 'asf', 'flv', 'mpg', 'mpeg', 'ts', 'm2ts', '3gp', 'ogv'];
export const AUDIO_EXTENSIONS = ['mp3', 'm4a', 'm4b', 'aac', 'flac', 'wav', 'ogg', 'oga', 'opus', 'wma', 'aif', 'aiff', 'wv', 'ape', 'amr', 'caf'];
const MEDIA_FILE = new RegExp(`\\.(${[...VIDEO_EXTENSIONS, ...AUDIO_EXTENSIONS].join('|')})$`, 'i');
const BOOK_FILE = /\.(epub|pdf)$/i;
const TRANSCRIPT_FILE = /\.(vtt|srt)$/i;

export const isMediaName = (name: string): boolean => MEDIA_FILE.test(name);

/** One part as found on disk: the operator's file, not yet staged. */
export interface FoundPart {
  path: string;
  name: string;
  title: string | null;
  description: string | null;
  transcript: { path: string; name: string } | null;
}

export type FoundJob =
  | { kind: 'book'; file: string }
  | { kind: 'media'; source: string; name: string; folder: boolean; parts: FoundPart[]; meta: MediaMeta; manifest: string | null }
  /** a folder whose manifest is refused: reported, nothing of it imported */
  | { kind: 'refused'; source: string; reason: string };

export const EMPTY_META: MediaMeta = { title: null, authors: [], description: null, publishers: [], topics: [], language: null };

/** Natural order: "2 intro" before "10 outro", case and accents aside. */
export const naturalCompare = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true, sensitivity: 'base' }) || (a < b ? -1 : a > b ? 1 : 0);

/** The titles the given files and folders hold (folders searched recursively); missing paths are reported. */
export async function findJobs(inputs: string[], missing: (input: string) => void): Promise<FoundJob[]> {
  const jobs: FoundJob[] = [];
  for (const input of inputs) {
    const stat = await fs.stat(input).catch(() => null);
    if (!stat) missing(input);
    else if (stat.isDirectory()) await walk(input, jobs);
    else if (isMediaName(input)) {
      jobs.push({ kind: 'media', source: input, name: path.basename(input), folder: false, parts: [{ path: input, name: path.basename(input), title: null, description: null, transcript: await besideTranscript(input) }], meta: EMPTY_META, manifest: null });
    }
    else jobs.push({ kind: 'book', file: input });
  }
  return jobs;
}

async function walk(dir: string, jobs: FoundJob[]): Promise<void> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  if (entries.some((e) => e.isFile() && e.name === MANIFEST_NAME)) {
    jobs.push(await manifestJob(dir));
    return;
  }
  const names = entries.filter((e) => e.isFile()).map((e) => e.name).sort(naturalCompare);
  for (const name of names) if (BOOK_FILE.test(name)) jobs.push({ kind: 'book', file: path.join(dir, name) });
  const media = names.filter(isMediaName);
  if (media.length) {
    // a transcript beside a part, with the same name but for the extension, is that part's
    const transcripts = new Map(names.filter((n) => TRANSCRIPT_FILE.test(n)).map((n) => [stem(n).toLowerCase(), n]));
    jobs.push({
      kind: 'media',
      source: dir,
      name: path.basename(path.resolve(dir)),
      folder: true,
      parts: media.map((name) => {
        const t = transcripts.get(stem(name).toLowerCase());
        return { path: path.join(dir, name), name, title: null, description: null, transcript: t ? { path: path.join(dir, t), name: t } : null };
      }),
      meta: EMPTY_META,
      manifest: null,
    });
  }
  for (const e of entries.filter((e) => e.isDirectory()).sort((a, b) => naturalCompare(a.name, b.name))) await walk(path.join(dir, e.name), jobs);
}

const stem = (name: string) => name.slice(0, name.length - path.extname(name).length);

/** A single file's transcript: a .vtt (else .srt) beside it with its name. */
async function besideTranscript(file: string): Promise<FoundPart['transcript']> {
  for (const ext of ['.vtt', '.srt', '.VTT', '.SRT']) {
    const candidate = `${stem(file)}${ext}`;
    if ((await fs.stat(candidate).catch(() => null))?.isFile()) return { path: candidate, name: path.basename(candidate) };
  }
  return null;
}

/** A folder's manifest, read and checked whole: any fault refuses the folder with its reason. */
export async function manifestJob(dir: string): Promise<FoundJob> {
  const file = path.join(dir, MANIFEST_NAME);
  const refuse = (reason: string): FoundJob => ({ kind: 'refused', source: dir, reason: `${MANIFEST_NAME}: ${reason}` });
  const size = (await fs.stat(file)).size;
  if (size > MAX_MANIFEST_BYTES) return refuse(`larger than ${MAX_MANIFEST_BYTES / 1024} KB`);
  let data: unknown;
  const text = await fs.readFile(file, 'utf8');
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return refuse(`not valid JSON (${(error as Error).message})`);
  }
  try {
    const root = await fs.realpath(dir);
    const m = objectOf(data, 'the manifest');
    const meta: MediaMeta = {
      title: textOf(m.title, 'title'),
      authors: listOf(m.authors ?? m.author, 'authors'),
      description: textOf(m.description, 'description'),
      publishers: listOf(m.publishers ?? m.publisher, 'publisher'),
      topics: listOf(m.topics, 'topics'),
      language: textOf(m.language, 'language'),
    };
    if (!Array.isArray(m.parts) || m.parts.length === 0) throw new ManifestError('"parts" must be a list naming at least one file');
    if (m.parts.length > MAX_PARTS) throw new ManifestError(`"parts" names more than ${MAX_PARTS} files`);
    const parts: FoundPart[] = [];
    for (const [i, value] of m.parts.entries()) {
      const where = `parts[${i}]`;
      const p = objectOf(value, where);
      const fileName = textOf(p.file, `${where}.file`);
      if (!fileName) throw new ManifestError(`${where}.file is missing`);
      const partPath = await confined(root, fileName, `${where}.file`);
      const transcriptName = textOf(p.transcript, `${where}.transcript`);
      if (transcriptName && !TRANSCRIPT_FILE.test(transcriptName)) throw new ManifestError(`${where}.transcript "${transcriptName}" is not a .vtt or .srt file`);
      parts.push({
        path: partPath,
        name: fileName,
        title: textOf(p.title, `${where}.title`),
        description: textOf(p.description, `${where}.description`),
        transcript: transcriptName ? { path: await confined(root, transcriptName, `${where}.transcript`), name: transcriptName } : null,
      });
    }
    return { kind: 'media', source: dir, name: path.basename(root), folder: true, parts, meta, manifest: text };
  } catch (error) {
    if (error instanceof ManifestError) return refuse(error.message);
    throw error;
  }
}

class ManifestError extends Error {}

/** The path `name` names inside `root` (a real file there, not reached through a link out of it), or refused. */
async function confined(root: string, name: string, where: string): Promise<string> {
  const outside = () => new ManifestError(`${where} "${name}" is outside the folder: a manifest may name only files inside its own folder`);
  if (path.isAbsolute(name) || name.includes('\\') || name.split('/').some((s) => s === '..') || name.includes('\0')) throw outside();
  const full = path.resolve(root, name);
  if (!full.startsWith(root + path.sep)) throw outside();
  const real = await fs.realpath(full).catch(() => null);
  if (!real) throw new ManifestError(`${where} "${name}" does not exist in the folder`);
  if (!real.startsWith(root + path.sep)) throw outside();
  const stat = await fs.stat(real);
  if (!stat.isFile()) throw new ManifestError(`${where} "${name}" is not a file`);
  return real;
}

function objectOf(value: unknown, where: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ManifestError(`${where} must be an object`);
  return value as Record<string, unknown>;
}

function textOf(value: unknown, where: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new ManifestError(`"${where}" must be text`);
  const text = value.trim();
  if (text.length > 20_000) throw new ManifestError(`"${where}" is longer than 20000 characters`);
  return text || null;
}

function listOf(value: unknown, where: string): string[] {
  if (value === undefined || value === null) return [];
  const items = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(items) || items.some((v) => typeof v !== 'string')) throw new ManifestError(`"${where}" must be text or a list of texts`);
  return (items as string[]).map((s) => s.trim()).filter(Boolean).slice(0, 50).map((s) => s.slice(0, 200));
}
