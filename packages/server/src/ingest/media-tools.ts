/**
 * Running Debian's ffprobe and ffmpeg on an untrusted media file, from the import worker: no shell (arguments as an
 * array), no standard input (`-nostdin`), a deadline (the import's time bound: the child is killed when it passes),
 * a cap on what it may print, and inputs read only as local files of the formats listed here — never a URL, a
 * playlist or a concatenation list that would make ffmpeg open something other than the staged copy
 * (`-protocol_whitelist`, `-format_whitelist`, and the `file:` prefix so that a name is never read as a protocol).
 * What it writes is bounded by `-fs` (the import's write budget). Its memory counts against the worker's bound:
 * the worker host adds its children's resident memory to the worker's own (worker-host.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { IngestError } from './types.ts';

/** The demuxers an import may use: media containers only (no hls, concat, image sequences, subtitles or data). */
export const MEDIA_DEMUXERS = [
  'mov,mp4,m4a,3gp,3g2,mj2',
  'matroska,webm',
  'avi',
  'asf',
  'mp3',
  'flac',
  'ogg',
  'wav',
  'w64',
  'aac',
  'flv',
  'mpeg',
  'mpegts',
  'aiff',
  'wv',
  'ape',
  'amr',
  'caf',
  'ac3',
  'eac3',
].join(',');

/** What every input is opened with: local files of the formats above, nothing else. */
export function inputArgs(file: string): string[] {
  return ['-protocol_whitelist', 'file,pipe', '-format_whitelist', MEDIA_DEMUXERS, '-i', `file:${file}`];
}

export interface ToolResult {
  stdout: string;
  /** the end of what it wrote to stderr */
  stderr: string;
  /** whether `stderrPattern` was seen in anything it wrote to stderr */
  stderrMatched: boolean;
}

export interface ToolOptions {
  /** Date.now() value past which the child is killed */
  deadline: number;
  /** the import's time bound, said in the message when the deadline passes */
  timeoutMessage: string;
  /** the most stdout kept; more and the child is killed and the file refused */
  maxStdoutBytes?: number;
  /** each chunk of stdout as it comes (ffmpeg's -progress); may throw to stop the child */
  onStdout?: (chunk: string) => void;
  /** ffprobe/ffmpeg's log level (default: error) */
  logLevel?: 'error' | 'warning';
  /** looked for in each line it writes to stderr (ToolResult.stderrMatched) */
  stderrPattern?: RegExp;
}

/** Thrown when a tool exits with an error: the file could not be read or converted. */
export class ToolFailed extends Error {
  override name = 'ToolFailed';
  constructor(
    readonly tool: string,
    readonly stderr: string,
  ) {
    super(`${tool} failed${stderr ? `: ${lastLine(stderr)}` : ''}`);
  }
}

const DEFAULT_MAX_STDOUT = 8 * 1024 * 1024;
const STDERR_KEPT = 4000;

export function runTool(tool: 'ffmpeg' | 'ffprobe', args: string[], options: ToolOptions): Promise<ToolResult> {
  const level = options.logLevel ?? 'error';
  const full = tool === 'ffmpeg' ? ['-nostdin', '-hide_banner', '-loglevel', level, ...args] : ['-hide_banner', '-loglevel', level, ...args];
  const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT;
  return new Promise<ToolResult>((resolve, reject) => {
    const remaining = options.deadline - Date.now();
    if (remaining <= 0) return reject(new IngestError(options.timeoutMessage));
    const child = spawn(tool, full, { shell: false, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let stderrMatched = false;
    let failure: Error | null = null;
    const stop = (error: Error): void => {
      failure ??= error;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(new IngestError(options.timeoutMessage)), remaining);
    child.stdout.on('data', (chunk: Buffer) => {
      if (failure) return;
      outBytes += chunk.byteLength;
      if (outBytes > maxStdout) return stop(new IngestError(`${tool} said more than ${Math.round(maxStdout / 1024)} KB about the file; refused`));
      if (options.onStdout) {
        try {
          options.onStdout(chunk.toString('utf8'));
        } catch (error) {
          return stop(error as Error);
        }
      } else {
        out.push(chunk);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      const joined = stderr + chunk.toString('utf8');
      if (options.stderrPattern && !stderrMatched) stderrMatched = options.stderrPattern.test(joined.slice(-(chunk.byteLength + 200)));
      stderr = joined.slice(-STDERR_KEPT);
    });
    child.on('error', (error) => stop(new IngestError(`${tool} could not run (${error.message}): media import needs Debian's ffmpeg package`)));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failure) return reject(failure);
      if (code !== 0) return reject(new ToolFailed(tool, stderr));
      resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr, stderrMatched });
    });
  });
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n').map((l) => l.trim()).filter(Boolean);
  // ffmpeg prefixes lines with "[demuxer @ 0x…]" and the input's name: what it says is at the end
  return (lines.at(-1) ?? '').replace(/^\[[^\]]*\]\s*/, '').replace(/^file:\S+:\s*/, '').slice(0, 200);
}

let available: boolean | null = null;
/**
 * Whether ffmpeg and ffprobe can be run here (asked once per process). Without them media import says so, and
 * books import as before.
 */
export function mediaToolsAvailable(): boolean {
  if (available === null) {
    available = ['ffmpeg', 'ffprobe'].every((tool) => {
      const r = spawnSync(tool, ['-version'], { stdio: 'ignore', timeout: 10_000 });
      return r.status === 0;
    });
  }
  return available;
}

/** For tests: forget what was found (a test hides the tools by PATH). */
export function forgetMediaTools(): void {
  available = null;
}

export const NO_MEDIA_TOOLS = "media import needs ffmpeg and ffprobe (Debian's ffmpeg package), which are not installed on this server";
