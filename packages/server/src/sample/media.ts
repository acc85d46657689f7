/**
 * The sample library's media: a short narrated audiobook (espeak-ng reading the opening of Alice's Adventures in
 * Wonderland, the public-domain sample EPUB, encoded to MP3 by ffmpeg) and a short video course (slides drawn by
 * ffmpeg, narrated by espeak-ng, with a WebVTT transcript timed sentence by sentence). Each is a folder with a
 * lectern-media.json manifest, imported like any operator's folder. They are made once into the sample cache and
 * reused; without Debian's ffmpeg and espeak-ng they are listed as unavailable and the books import as before.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseEpub } from '../ingest/epub.ts';
import { findAll, parseHtml, textOf } from '../ingest/markup.ts';
import type { SampleBook, UnavailableBook } from './fetch.ts';

const execFileAsync = promisify(execFile);
const run = (command: string, args: string[]) => execFileAsync(command, args, { timeout: 120_000, maxBuffer: 4 * 1024 * 1024 });

/** Bumped when what is made here changes: a cache of an older make is not reused. */
const MEDIA_VERSION = 'media-v2';
const TOOLS = ['ffmpeg', 'ffprobe', 'espeak-ng'];
export const MEDIA_TOOLS_MISSING = "needs Debian's ffmpeg and espeak-ng (scripts/ensure-media-tools.sh installs them)";

export interface SampleMedia {
  /** the folder to import (it holds a lectern-media.json) */
  folder: string;
  origin: string;
  topics: string[];
}

const AUDIOBOOK_ORIGIN = 'sample audiobook: espeak-ng reading the opening of Alice (npm epub@1.1.0 example/alice.epub)';
const COURSE_ORIGIN = 'sample video course: slides made by ffmpeg, narrated by espeak-ng';

/** The sample audiobook and video course, made when missing; what cannot be made is listed with the reason. */
export async function sampleMedia(cacheDir: string, books: SampleBook[], log: (message: string) => void = () => {}): Promise<{ media: SampleMedia[]; unavailable: UnavailableBook[] }> {
  const missing = TOOLS.filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore', timeout: 10_000 }).status !== 0 && spawnSync(tool, ['-version'], { stdio: 'ignore', timeout: 10_000 }).status !== 0);
  if (missing.length) {
    const reason = `${missing.join(', ')} not found: the sample media ${MEDIA_TOOLS_MISSING}`;
    return { media: [], unavailable: [{ origin: AUDIOBOOK_ORIGIN, reason }, { origin: COURSE_ORIGIN, reason }] };
  }
  const root = path.join(cacheDir, MEDIA_VERSION);
  const media: SampleMedia[] = [];
  const unavailable: UnavailableBook[] = [];
  const made = async (name: string, origin: string, topics: string[], make: (dir: string) => Promise<void>) => {
    const folder = path.join(root, name);
    try {
      if (!(await exists(path.join(folder, 'lectern-media.json')))) {
        log(`making the sample ${name.replace('-', ' ')} with ffmpeg and espeak-ng…`);
        const building = `${folder}.building-${process.pid}`;
        await fs.rm(building, { recursive: true, force: true });
        await fs.mkdir(building, { recursive: true });
        try {
          await make(building);
          await fs.rm(folder, { recursive: true, force: true });
          await fs.rename(building, folder);
        } finally {
          await fs.rm(building, { recursive: true, force: true });
        }
      }
      media.push({ folder, origin, topics });
    } catch (error) {
      unavailable.push({ origin, reason: `could not be made: ${(error as Error).message.split('\n')[0]}` });
    }
  };
  const alice = books.find((b) => /alice\.epub$/i.test(b.file));
  if (alice) await made('audiobook', AUDIOBOOK_ORIGIN, ['classics', 'fiction'], (dir) => makeAudiobook(dir, alice.file));
  else unavailable.push({ origin: AUDIOBOOK_ORIGIN, reason: 'it reads the sample Alice EPUB, which could not be fetched' });
  await made('video-course', COURSE_ORIGIN, ['science'], makeCourse);
  return { media, unavailable };
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

/** The opening paragraphs of Alice's first real chapter, read in two parts. */
async function makeAudiobook(dir: string, epub: string): Promise<void> {
  const parsed = parseEpub(new Uint8Array(await fs.readFile(epub)), path.basename(epub));
  const chapter = parsed.chapters[parsed.sampleIndex] ?? parsed.chapters[0]!;
  const paragraphs = findAll(parseHtml(chapter.rawHtml), 'p')
    .map((p) => textOf(p).replace(/\s+/g, ' ').trim())
    .filter((p) => p.length > 80);
  if (paragraphs.length < 2) throw new Error('the sample Alice EPUB has too little text to read');
  const parts = [paragraphs[0]!, paragraphs[1]!].map((p) => (p.length > 700 ? `${p.slice(0, p.lastIndexOf(' ', 700))}…` : p));
  const titles = ['By the River Bank', 'The White Rabbit'];
  for (const [i, text] of parts.entries()) {
    const wav = path.join(dir, `part-${i}.wav`);
    await speak(text, wav);
    await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', wav, '-ac', '1', '-ar', '22050', '-c:a', 'libmp3lame', '-b:a', '48k', '-metadata', `title=${titles[i]}`, '-metadata', 'artist=Lewis Carroll', path.join(dir, `${i + 1} ${titles[i]}.mp3`)]);
    await fs.rm(wav);
  }
  await writeManifest(dir, {
    // not "Alice…": the sample EPUB keeps that name to itself (tests and people look it up by it)
    title: 'Down the Rabbit-Hole, Read Aloud',
    authors: ['Lewis Carroll'],
    description:
      'The opening paragraphs of the first chapter of Lewis Carroll\'s Wonderland story (1865, public domain), read by the espeak-ng speech synthesizer: a short sample audiobook.',
    publisher: 'Lectern Samples',
    topics: ['Classics', 'Fiction'],
    language: 'en',
    parts: titles.map((title, i) => ({ file: `${i + 1} ${title}.mp3`, title })),
  });
}

const COURSE = [
  {
    title: 'What a Lighthouse Does',
    sentences: ['A lighthouse marks a dangerous coast, or the way into a safe harbour.', 'Its light can be seen from far out at sea.', 'Each lighthouse flashes in a pattern of its own, so that sailors know which one they see.'],
    colour: '0x1d3557',
  },
  {
    title: 'How the Light Is Made',
    sentences: ['The first lighthouses burned wood or coal in an open fire.', 'Later, oil lamps stood in front of polished mirrors.', 'The Fresnel lens bends the light of one lamp into a narrow and powerful beam.'],
    colour: '0x2a6f4e',
  },
];

/** Two slides, each narrated sentence by sentence, with a transcript whose cues are the sentences' real times. */
async function makeCourse(dir: string): Promise<void> {
  const font = ['/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf', '/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf'];
  const fontFile = (await Promise.all(font.map(exists))).findIndex(Boolean);
  for (const [i, part] of COURSE.entries()) {
    const wavs: string[] = [];
    const cues: string[] = [];
    let at = 0;
    for (const [j, sentence] of part.sentences.entries()) {
      const wav = path.join(dir, `s-${i}-${j}.wav`);
      await speak(sentence, wav);
      const seconds = Number((await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', wav])).stdout.trim());
      cues.push(`${stamp(at)} --> ${stamp(at + seconds)}\n${sentence}`);
      at += seconds;
      wavs.push(wav);
    }
    const narration = path.join(dir, `narration-${i}.wav`);
    await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...wavs.flatMap((w) => ['-i', w]), '-filter_complex', `concat=n=${wavs.length}:v=0:a=1`, narration]);
    const slideText = path.join(dir, `slide-${i}.txt`);
    await fs.writeFile(slideText, part.title);
    const footText = path.join(dir, `foot-${i}.txt`);
    await fs.writeFile(footText, `Lighthouses, part ${i + 1} of ${COURSE.length}`);
    const fontArg = fontFile >= 0 ? `fontfile=${font[fontFile]}:` : '';
    const draw = `drawtext=${fontArg}textfile=${slideText}:fontcolor=white:fontsize=36:x=(w-text_w)/2:y=(h-text_h)/2,drawtext=${fontArg}textfile=${footText}:fontcolor=white@0.8:fontsize=18:x=(w-text_w)/2:y=h-50`;
    const file = path.join(dir, `${i + 1}-${slug(part.title)}.mp4`);
    const encode = (filters: string[]) =>
      run('ffmpeg', [
        '-nostdin', '-v', 'error', '-y',
        '-f', 'lavfi', '-i', `color=c=${part.colour}:s=640x360:r=10:d=${at.toFixed(3)}`,
        '-i', narration,
        ...filters,
        '-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'stillimage', '-crf', '30', '-pix_fmt', 'yuv420p',
        '-c:a', 'aac', '-b:a', '64k', '-ac', '1', '-t', at.toFixed(3), '-movflags', '+faststart', file,
      ]);
    // a slide without its words where ffmpeg has no font to draw them with
    await encode(['-vf', draw]).catch(() => encode([]));
    await fs.writeFile(path.join(dir, `${i + 1}-${slug(part.title)}.vtt`), `WEBVTT\n\n${cues.join('\n\n')}\n`);
    for (const f of [...wavs, narration, slideText, footText]) await fs.rm(f);
  }
  await writeManifest(dir, {
    title: 'Beacons of the Coast: A Two-Part Course',
    authors: ['Lectern Samples'],
    description: 'A very short video course on what lighthouses do and how their light is made: two narrated slides with transcripts, made by ffmpeg and espeak-ng.',
    publisher: 'Lectern Samples',
    topics: ['Science'],
    language: 'en',
    parts: COURSE.map((part, i) => ({
      file: `${i + 1}-${slug(part.title)}.mp4`,
      title: part.title,
      description: part.sentences[0],
      transcript: `${i + 1}-${slug(part.title)}.vtt`,
    })),
  });
}

async function speak(text: string, wav: string): Promise<void> {
  const textFile = `${wav}.txt`;
  await fs.writeFile(textFile, text);
  await run('espeak-ng', ['-v', 'en-gb', '-s', '160', '-f', textFile, '-w', wav]);
  await fs.rm(textFile);
}

function writeManifest(dir: string, manifest: unknown): Promise<void> {
  return fs.writeFile(path.join(dir, 'lectern-media.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

function stamp(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`;
}
