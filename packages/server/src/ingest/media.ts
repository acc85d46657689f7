/**
 * The import worker's side of a video course or audiobook: each staged part is probed with ffprobe (streams,
 * declared length, tags, embedded chapters), made playable in browsers (copied into an MP4/M4A/MP3 container when
 * its codecs already play, converted to H.264/AAC MP4 or AAC M4A otherwise), probed again, and refused whole when
 * it is not media, is damaged or cut short, or lies about its length (the length it declares against the length of
 * the packets it really holds, measured on the written copy). A single file with embedded chapters (an M4B) is cut
 * into one part per chapter (docs/decisions.md "Media import"). The title gets a poster frame or the embedded art
 * as JPEG and a preview clip (the opening MEDIA_PREVIEW_SECONDS of the first part). Everything runs inside the
 * worker's bounds: ffmpeg's children are killed at the import's deadline, write no more than its budget (`-fs`)
 * and count against its memory bound (worker-host.ts).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { MEDIA_PREVIEW_SECONDS, slugify } from '@lectern/core';
import type { StagedFileWriter } from '../storage/content-store.ts';
import { inputArgs, runTool, ToolFailed } from './media-tools.ts';
import { MAX_TRANSCRIPT_BYTES, parseTranscript, textToHtml, toTranscriptHtml, toWebVtt } from './transcripts.ts';
import { IngestError } from './types.ts';
import { LIMIT_NAMES, type ImportLimits, type MediaDoneMessage, type MediaJob, type MediaPartDone } from './worker-protocol.ts';

/**
 * A part whose packets fall short of the length its container declares by more than this and the share below is
 * refused. Containers that declare no length (the length then estimated from the bit rate) are not judged.
 */
const LENGTH_SLACK_SECONDS = 0.5;
const LENGTH_SLACK_SHARE = 0.02;
/** A conversion is judged against the deadline once it has run this long (its pace is known by then). */
const PACE_AFTER_MS = 3_000;
const MB = 1024 * 1024;

interface Probe {
  formatName: string;
  /** seconds, as the container declares it (NaN when it says nothing) */
  declared: number;
  /** the length was estimated from the bit rate: the container does not declare one */
  estimated: boolean;
  tags: Record<string, string>;
  video: { codec: string; width: number; height: number; pixFmt: string } | null;
  /** the embedded cover art, when there is one */
  artIndex: number | null;
  audio: { codec: string } | null;
  chapters: { start: number; end: number; title: string | null }[];
}

interface Context {
  writer: StagedFileWriter;
  deadline: number;
  limits: ImportLimits;
  warnings: string[];
}

/** One piece of work: a staged file, or the stretch of it one embedded chapter covers. */
interface Segment {
  file: string;
  name: string;
  probe: Probe;
  label: string;
  range: { start: number; end: number } | null;
  description: string | null;
  transcript: MediaJob['parts'][number]['transcript'];
}

/** Probes every part: the facts the title's name and the service's decision need, before anything is written. */
export async function probeMedia(job: MediaJob, limits: ImportLimits, startedAt: number): Promise<{ segments: Segment[]; title: string; probes: Probe[] }> {
  const ctx = { deadline: startedAt + limits.timeoutMs, limits };
  const probes: Probe[] = [];
  for (const part of job.parts) probes.push(await probe(part.file, part.name, ctx));
  const first = probes[0]!;
  const segments: Segment[] = [];
  if (job.parts.length === 1 && first.chapters.length > 1 && !job.parts[0]!.transcript) {
    // An M4B (or any single file) with embedded chapters: one part per chapter.
    const part = job.parts[0]!;
    first.chapters.forEach((c, i) => {
      segments.push({ file: part.file, name: part.name, probe: first, label: c.title?.trim() || `Chapter ${i + 1}`, range: { start: c.start, end: c.end }, description: null, transcript: null });
    });
  } else {
    job.parts.forEach((part, i) => {
      const p = probes[i]!;
      const label = part.title?.trim() || (job.folder ? p.tags.title?.trim() : null) || labelFromName(part.name) || `Part ${i + 1}`;
      segments.push({ file: part.file, name: part.name, probe: p, label, range: null, description: part.description, transcript: part.transcript });
    });
  }
  const fileTitle = job.folder ? null : (first.tags.title?.trim() || null);
  const title = job.meta.title?.trim() || (first.video ? null : first.tags.album?.trim()) || fileTitle || labelFromName(job.name) || job.name;
  return { segments, title: title.slice(0, 500), probes };
}

/** Converts (or copies) every segment into the staging folder; refuses the title whole at the first part that fails. */
export async function writeMedia(
  job: MediaJob,
  probed: Awaited<ReturnType<typeof probeMedia>>,
  writer: StagedFileWriter,
  limits: ImportLimits,
  startedAt: number,
): Promise<Omit<MediaDoneMessage, 'peakRssBytes'>> {
  const ctx: Context = { writer, deadline: startedAt + limits.timeoutMs, limits, warnings: [] };
  const { segments } = probed;
  const isVideo = segments.some((s) => s.probe.video);
  const parts: MediaPartDone[] = [];
  const usedPaths = new Set<string>();
  for (const [i, segment] of segments.entries()) {
    const out = await convert(segment, isVideo, ctx);
    const transcript = segment.transcript ? await readTranscript(segment.transcript) : null;
    let fullPath = `${String(i + 1).padStart(2, '0')}-${slugify(segment.label).slice(0, 60)}${out.ext}`;
    while (usedPaths.has(fullPath)) fullPath = fullPath.replace(/(\.[a-z0-9]+)$/, '_$1');
    usedPaths.add(fullPath);
    const html = transcript ? toTranscriptHtml(transcript) : { html: '', textLength: 0 };
    writer.count(Buffer.byteLength(html.html) * 2);
    parts.push({
      fullPath,
      label: segment.label.slice(0, 500),
      name: out.name,
      mime: out.mime,
      size: out.size,
      durationMs: out.durationMs,
      width: out.width,
      height: out.height,
      videoCodec: out.videoCodec,
      audioCodec: out.audioCodec,
      description: segment.description ? textToHtml(segment.description) || null : null,
      captionsVtt: transcript ? toWebVtt(transcript) : null,
      html: html.html,
      textLength: html.textLength,
    });
  }
  const first = segments[0]!;
  const cover = isVideo ? await posterFrame(parts[0]!, ctx) : await embeddedArt(first, ctx);
  const preview = await previewClip(parts[0]!, ctx);
  const tags = first.probe.tags;
  const authors = job.meta.authors.length ? job.meta.authors : splitNames(tags.album_artist || tags.artist || tags.composer || '');
  const publishers = job.meta.publishers.length ? job.meta.publishers : splitNames(tags.publisher || '');
  const subjects = job.meta.topics.length ? job.meta.topics : splitNames(tags.genre || '');
  return {
    type: 'media-done',
    title: {
      title: probed.title,
      authors,
      publishers,
      description: job.meta.description?.trim() || tags.description?.trim() || tags.synopsis?.trim() || null,
      subjects,
      language: job.meta.language?.trim() || tags.language?.trim() || null,
      issued: /^\d{4}(-\d{2}(-\d{2})?)?/.exec(tags.date ?? '')?.[0] ?? null,
      contentFormat: isVideo ? 'video' : 'audiobook',
      durationMs: parts.reduce((n, p) => n + p.durationMs, 0),
      warnings: ctx.warnings,
    },
    parts,
    cover,
    preview,
  };
}

async function probe(file: string, name: string, ctx: { deadline: number; limits: ImportLimits }): Promise<Probe> {
  let json: string;
  let estimated: boolean;
  try {
    const result = await runTool('ffprobe', [...inputArgs(file), '-print_format', 'json', '-show_format', '-show_streams', '-show_chapters'], {
      deadline: ctx.deadline,
      timeoutMessage: timeoutMessage(ctx.limits),
      maxStdoutBytes: 4 * MB,
      logLevel: 'warning',
      stderrPattern: /Estimating duration from bitrate/,
    });
    json = result.stdout;
    estimated = result.stderrMatched;
  } catch (error) {
    if (error instanceof ToolFailed) throw new IngestError(`${name} is not a media file that can be read, or is damaged or cut short (${reasonOf(error)})`);
    throw error;
  }
  const data = JSON.parse(json) as {
    format?: { format_name?: string; duration?: string; tags?: Record<string, string> };
    streams?: { index: number; codec_type?: string; codec_name?: string; width?: number; height?: number; pix_fmt?: string; disposition?: { attached_pic?: number; still_image?: number }; tags?: Record<string, string> }[];
    chapters?: { start_time?: string; end_time?: string; tags?: Record<string, string> }[];
  };
  const streams = data.streams ?? [];
  // cover art is a picture stream marked as attached (ID3 APIC, MP4 covr, FLAC PICTURE) or a still image
  const isArt = (s: (typeof streams)[number]) => s.codec_type === 'video' && (!!s.disposition?.attached_pic || !!s.disposition?.still_image);
  const video = streams.find((s) => s.codec_type === 'video' && !isArt(s));
  const art = streams.find(isArt);
  const audio = streams.find((s) => s.codec_type === 'audio');
  if (!video && !audio) throw new IngestError(`${name} holds no sound or pictures that can be played`);
  const tags = Object.fromEntries(Object.entries(data.format?.tags ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  const chapters = (data.chapters ?? [])
    .map((c) => ({ start: Number(c.start_time), end: Number(c.end_time), title: c.tags?.title ?? null }))
    .filter((c) => Number.isFinite(c.start) && Number.isFinite(c.end) && c.end > c.start);
  return {
    formatName: data.format?.format_name ?? '',
    declared: Number(data.format?.duration ?? NaN),
    estimated,
    tags,
    video: video ? { codec: video.codec_name ?? '', width: video.width ?? 0, height: video.height ?? 0, pixFmt: video.pix_fmt ?? '' } : null,
    artIndex: art && !video ? art.index : null,
    audio: audio ? { codec: audio.codec_name ?? '' } : null,
    chapters,
  };
}

interface Converted {
  name: string;
  ext: string;
  mime: string;
  size: number;
  durationMs: number;
  width: number | null;
  height: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
}

/** The segment as a file browsers play, in the staging folder, with its length measured on what was written. */
async function convert(segment: Segment, isVideo: boolean, ctx: Context): Promise<Converted> {
  const { probe: p, name } = segment;
  const mp4 = /\b(mov|mp4)\b/.test(p.formatName);
  let ext: string;
  let mime: string;
  let codecArgs: string[];
  let how: string | null = null;
  if (isVideo && p.video) {
    ext = '.mp4';
    mime = 'video/mp4';
    const videoPlays = p.video.codec === 'h264' && /^yuvj?420p$/.test(p.video.pixFmt);
    const audioPlays = !p.audio || p.audio.codec === 'aac' || p.audio.codec === 'mp3';
    const maps = ['-map', '0:V:0', '-map', '0:a:0?'];
    if (mp4 && videoPlays && audioPlays) {
      codecArgs = [...maps, '-c', 'copy'];
    } else {
      codecArgs = [
        ...maps,
        ...(videoPlays ? ['-c:v', 'copy'] : ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '26', '-pix_fmt', 'yuv420p', '-vf', 'scale=trunc(iw/2)*2:trunc(ih/2)*2']),
        ...(p.audio?.codec === 'aac' ? ['-c:a', 'copy'] : ['-c:a', 'aac', '-b:a', '128k']),
      ];
      how = 'MP4 (H.264/AAC)';
    }
    codecArgs.push('-movflags', '+faststart', '-f', 'mp4');
  } else if (p.audio) {
    if (isVideo) throw new IngestError(`${name} has no pictures, but the title's other parts are videos: a title is either a video course or an audiobook`);
    if (p.audio.codec === 'mp3') {
      ext = '.mp3';
      mime = 'audio/mpeg';
      codecArgs = ['-map', '0:a:0', '-c:a', 'copy', '-id3v2_version', '0', '-write_xing', '1', '-f', 'mp3'];
    } else {
      ext = '.m4a';
      mime = 'audio/mp4';
      const plays = p.audio.codec === 'aac';
      codecArgs = ['-map', '0:a:0', ...(plays ? ['-c:a', 'copy'] : ['-c:a', 'aac', '-b:a', '96k']), '-movflags', '+faststart', '-f', 'mp4'];
      if (!plays || !mp4) how = plays ? null : 'M4A (AAC)';
    }
  } else {
    throw new IngestError(`${name} has pictures but no sound, and the title's other parts are audio: a title is either a video course or an audiobook`);
  }
  const target = ctx.writer.reserve(ext);
  const rangeArgs = segment.range ? ['-ss', segment.range.start.toFixed(3), '-to', segment.range.end.toFixed(3)] : [];
  // ffmpeg stops writing one byte past the budget: the count below then refuses the import in the budget's words
  const cap = ctx.writer.remaining + 1;
  const expected = segment.range ? Math.min(segment.range.end, p.declared || Infinity) - segment.range.start : p.declared;
  const judged = segment.range !== null || !p.estimated;
  const started = Date.now();
  // The pace is measured from ffmpeg's first progress report on, not from its start (slow to start on a busy machine).
  let first: { at: number; done: number } | null = null;
  const pace = (chunk: string) => {
    const done = Number(/out_time_us=(\d+)\s*$/m.exec(chunk)?.[1] ?? NaN) / 1e6;
    if (!(done > 0) || !(expected > 0)) return;
    const now = Date.now();
    if (!first) {
      first = { at: now, done };
      return;
    }
    if (now - first.at < PACE_AFTER_MS || done <= first.done) return;
    const projected = now + ((expected - done) * (now - first.at)) / (done - first.done);
    if (projected > ctx.deadline) {
      throw new IngestError(
        `converting ${name} would take about ${Math.round((projected - started) / 1000)} s at its pace so far, more than the ${Math.round(ctx.limits.timeoutMs / 1000)} s limit for one import (${LIMIT_NAMES.timeoutMs})`,
      );
    }
  };
  try {
    await runTool(
      'ffmpeg',
      [...inputArgs(segment.file), ...rangeArgs, ...codecArgs, '-map_metadata', '-1', '-map_chapters', '-1', '-threads', '2', '-fs', String(cap), '-progress', 'pipe:1', '-nostats', '-y', `file:${target.path}`],
      { deadline: ctx.deadline, timeoutMessage: timeoutMessage(ctx.limits), onStdout: pace },
    );
  } catch (error) {
    if (error instanceof ToolFailed) throw new IngestError(`${name} could not be ${how ? 'converted' : 'read to the end'}: it is damaged or cut short (${reasonOf(error)})`);
    throw error;
  }
  const size = (await fs.stat(target.path)).size;
  ctx.writer.count(size);
  const written = await probe(target.path, name, ctx).catch(() => {
    throw new IngestError(`${name} is damaged or cut short: nothing playable could be made of it`);
  });
  const actual = written.declared;
  if (!(actual > 0.05)) throw new IngestError(`${name} holds no sound or pictures that can be played: it is damaged or cut short`);
  if (judged && Number.isFinite(expected) && expected - actual > Math.max(LENGTH_SLACK_SECONDS, expected * LENGTH_SLACK_SHARE)) {
    throw new IngestError(`${name} says it lasts ${clock(expected)} but holds only ${clock(actual)} of sound and pictures: it is damaged, cut short or lies about its length`);
  }
  if (how) ctx.warnings.push(`${name} was converted to ${how}, which browsers play`);
  return {
    name: target.name,
    ext,
    mime,
    size,
    durationMs: Math.round(actual * 1000),
    width: written.video?.width || null,
    height: written.video?.height || null,
    videoCodec: written.video?.codec ?? null,
    audioCodec: written.audio?.codec ?? null,
  };
}

/** A frame of the first video, a second in (or a third of the way in when it is shorter), as JPEG. */
async function posterFrame(part: MediaPartDone, ctx: Context): Promise<MediaDoneMessage['cover']> {
  const at = Math.min(1, part.durationMs / 3000);
  return jpeg(['-ss', at.toFixed(3), ...inputArgs(path.join(ctx.writer.dir, part.name)), '-map', '0:V:0'], ctx);
}

/** The art embedded in the first part (an audiobook's cover), as JPEG; null when it has none. */
async function embeddedArt(segment: Segment, ctx: Context): Promise<MediaDoneMessage['cover']> {
  if (segment.probe.artIndex === null) return null;
  return jpeg([...inputArgs(segment.file), '-map', `0:${segment.probe.artIndex}`], ctx).catch((error: unknown) => {
    if (error instanceof IngestError && /limit/.test(error.message)) throw error;
    ctx.warnings.push(`the cover art in ${segment.name} could not be read; the title has no cover`);
    return null;
  });
}

async function jpeg(input: string[], ctx: Context): Promise<MediaDoneMessage['cover']> {
  const target = ctx.writer.reserve('.jpg');
  try {
    await runTool('ffmpeg', [...input, '-frames:v', '1', '-vf', "scale='min(800,iw)':-2", '-c:v', 'mjpeg', '-q:v', '4', '-f', 'image2', '-update', '1', '-fs', String(ctx.writer.remaining + 1), '-y', `file:${target.path}`], {
      deadline: ctx.deadline,
      timeoutMessage: timeoutMessage(ctx.limits),
    });
    const size = (await fs.stat(target.path)).size;
    if (size === 0) throw new ToolFailed('ffmpeg', 'no frame');
    ctx.writer.count(size);
    return { name: target.name, mediaType: 'image/jpeg' };
  } catch (error) {
    if (error instanceof ToolFailed) {
      await fs.rm(target.path, { force: true });
      return null;
    }
    throw error;
  }
}

/** The opening MEDIA_PREVIEW_SECONDS of the first part (all of it when shorter), in the part's own format. */
async function previewClip(part: MediaPartDone, ctx: Context): Promise<MediaDoneMessage['preview']> {
  const ext = path.extname(part.name);
  const target = ctx.writer.reserve(ext);
  const format = ext === '.mp3' ? ['-f', 'mp3'] : ['-movflags', '+faststart', '-f', 'mp4'];
  await runTool(
    'ffmpeg',
    [...inputArgs(path.join(ctx.writer.dir, part.name)), '-t', String(MEDIA_PREVIEW_SECONDS), '-map', '0', '-c', 'copy', ...format, '-fs', String(ctx.writer.remaining + 1), '-y', `file:${target.path}`],
    { deadline: ctx.deadline, timeoutMessage: timeoutMessage(ctx.limits) },
  );
  ctx.writer.count((await fs.stat(target.path)).size);
  return { name: target.name, mime: part.mime };
}

async function readTranscript(transcript: { file: string; name: string }) {
  const size = (await fs.stat(transcript.file)).size;
  if (size > MAX_TRANSCRIPT_BYTES) throw new IngestError(`the transcript ${transcript.name} is larger than ${MAX_TRANSCRIPT_BYTES / MB} MB`);
  const text = new TextDecoder('utf-8', { fatal: false }).decode(await fs.readFile(transcript.file));
  return parseTranscript(text, transcript.name);
}

/** "03 - The Rabbit Hole.mp3" -> "The Rabbit Hole", "2-the-slides.mp4" -> "The slides"; "" when only a number. */
export function labelFromName(name: string): string {
  let label = path.basename(name, path.extname(name)).replace(/_+/g, ' ');
  // a name without spaces uses hyphens for them
  if (!/\s/.test(label.trim())) label = label.replace(/-+/g, ' ');
  label = label.replace(/^\s*\d+\s*[-.)_:]*\s*/, '').replace(/\s+/g, ' ').trim();
  return label.charAt(0).toUpperCase() + label.slice(1);
}

function splitNames(value: string): string[] {
  return value
    .split(/\s*[;/]\s*|\s*,\s*(?=\S+\s+\S+)|\s+&\s+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, 10);
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

function timeoutMessage(limits: ImportLimits): string {
  return `the import took longer than ${Math.round(limits.timeoutMs / 100) / 10} s, the limit for one import (${LIMIT_NAMES.timeoutMs})`;
}

function reasonOf(error: ToolFailed): string {
  // the last two things it said: the specific one ("moov atom not found") comes before the general one
  const lines = [...new Set(error.stderr.trim().split('\n').map((l) => l.replace(/^\[[^\]]*\]\s*/, '').replace(/^file:\S+:\s*/, '').trim()).filter(Boolean))].slice(-2);
  return (lines.join('; ') || `${error.tool} could not read it`).slice(0, 300);
}
