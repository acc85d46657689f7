/**
 * Runs one import in a worker process (./worker.ts) and holds it to its bounds. A child process rather than a
 * worker thread: it can be killed even inside a native call, its V8 heap has its own limit, and its resident
 * memory (which counts the buffers a heap limit does not) can be read from /proc and capped.
 * The server's event loop only passes messages meanwhile.
 *
 * Each worker reads one file and exits: no state of one (hostile) file can reach the next import. What used to
 * come with that, a process start and a module load per book, is taken off the import's path: the worker is
 * compiled JavaScript (./worker-build.ts), and when an import's worker is done a spare one is started and loads
 * while the server writes that book, so the next import begins at once. The spare holds nothing open (the server
 * and the command line exit past it) and goes after a while without imports.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { IngestError } from './types.ts';
import { workerEntry, type WorkerEntry } from './worker-build.ts';
import {
  type DoneMessage,
  type ImportLimits,
  LIMIT_NAMES,
  type MediaDoneMessage,
  type MediaJob,
  type ParsedMessage,
  type StartMessage,
  type WorkerMessage,
} from './worker-protocol.ts';

const MB = 1024 * 1024;
const MEMORY_POLL_MS = 20;
/** A spare worker nobody took for this long is stopped (a server without imports keeps no process for them). */
const SPARE_IDLE_MS = 60_000;

export interface WorkerRunStats {
  /** The worker's peak resident memory, as far as it was seen. */
  peakRssBytes: number;
  /** Why the worker was stopped, if it was. */
  stopped: 'memory' | 'time' | null;
  /** The worker's process id (each import has a process of its own). */
  pid: number | null;
}

export interface WorkerJob {
  file: string;
  fileName: string;
  stagingDir: string;
  allowScripts: boolean;
  /** a video course or audiobook: the worker probes and converts its parts with ffprobe/ffmpeg (ingest/media.ts) */
  media?: MediaJob;
}

/**
 * Parses and renders `job.file` in a worker. `decide` gets the parsed facts and answers the book id (or throws
 * to stop the import, e.g. for a file already in the library). Resolves with what the worker wrote.
 */
export function runImportWorker(
  job: WorkerJob,
  limits: ImportLimits,
  decide: (parsed: ParsedMessage) => Promise<string>,
  observe: (stats: WorkerRunStats) => void = () => {},
): Promise<DoneMessage> {
  // The RSS cap (polled) bounds heap and buffers together. The V8 heap limit is only the backstop (and the bound
  // where /proc is missing): set at the cap itself, V8 would collect garbage ever harder as it neared it and the
  // worker would crawl to the time limit instead of being stopped at the memory one.
  const heapMb = Math.max(64, Math.floor((limits.maxMemoryBytes * 1.5) / MB));
  return takeWorker(heapMb)
    .then((worker) => runIn(worker, job, limits, decide, observe))
    .then((done) => {
      if (done.type !== 'done') throw new Error('the import worker answered a media title for a book');
      return done;
    });
}

/** As runImportWorker, for a video course or audiobook (`job.media`): the same worker, bounds and protocol. */
export function runMediaWorker(
  job: WorkerJob & { media: MediaJob },
  limits: ImportLimits,
  decide: (parsed: ParsedMessage) => Promise<string>,
  observe: (stats: WorkerRunStats) => void = () => {},
): Promise<MediaDoneMessage> {
  const heapMb = Math.max(64, Math.floor((limits.maxMemoryBytes * 1.5) / MB));
  return takeWorker(heapMb)
    .then((worker) => runIn(worker, job, limits, decide, observe))
    .then((done) => {
      if (done.type !== 'media-done') throw new Error('the import worker answered a book for a media title');
      return done;
    });
}

function runIn(
  worker: Worker,
  job: WorkerJob,
  limits: ImportLimits,
  decide: (parsed: ParsedMessage) => Promise<string>,
  observe: (stats: WorkerRunStats) => void,
): Promise<DoneMessage | MediaDoneMessage> {
  const { child } = worker;
  const stats: WorkerRunStats = { peakRssBytes: 0, stopped: null, pid: child.pid ?? null };
  const stderr = () => worker.stderr;

  return new Promise<DoneMessage | MediaDoneMessage>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, done?: DoneMessage | MediaDoneMessage): void => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      clearTimeout(timer);
      const settle = (): void => {
        startSpare(worker.heapMb);
        observe(stats);
        if (error) reject(error);
        else resolve(done!);
      };
      // Settle only once the worker is gone: a worker still writing would race the removal of its staging folder.
      // ffprobe/ffmpeg children of a media import share the worker's process group and go with it.
      if (child.exitCode === null && child.signalCode === null) {
        child.once('exit', settle);
        killGroup(child);
      } else {
        killGroup(child);
        settle();
      }
    };
    const memoryMessage = `the import needed more than ${Math.round(limits.maxMemoryBytes / MB)} MB of memory, the limit for one import (${LIMIT_NAMES.maxMemoryBytes})`;
    const stop = (reason: 'memory' | 'time', message: string): void => {
      stats.stopped = reason;
      finish(new IngestError(message));
    };

    const poll = setInterval(() => {
      const rss = readRss(child);
      if (rss === null) return;
      stats.peakRssBytes = Math.max(stats.peakRssBytes, rss.peak);
      if (rss.current > limits.maxMemoryBytes) {
        stop('memory', memoryMessage);
      }
    }, MEMORY_POLL_MS);
    const timer = setTimeout(
      () => stop('time', `the import took longer than ${Math.round(limits.timeoutMs / 100) / 10} s, the limit for one import (${LIMIT_NAMES.timeoutMs})`),
      limits.timeoutMs,
    );

    child.on('message', (message: WorkerMessage) => {
      if (message.type === 'parsed') {
        decide(message).then(
          (bookId) => {
            if (!settled) child.send({ type: 'continue', bookId });
          },
          (error: Error) => finish(error),
        );
      } else if (message.type === 'done' || message.type === 'media-done') {
        stats.peakRssBytes = Math.max(stats.peakRssBytes, message.peakRssBytes);
        finish(null, message);
      } else {
        finish(message.refused ? new IngestError(message.message) : new Error(message.message));
      }
    });
    child.on('error', (error) => finish(new Error(`the import worker could not run: ${error.message}`)));
    child.on('close', (code, signal) => {
      if (settled) return;
      // V8 aborts the process at its heap limit, which lies above the memory bound: the bound was passed too.
      if (/heap out of memory|Reached heap limit/i.test(stderr())) {
        stop('memory', memoryMessage);
      } else {
        finish(new Error(`the import worker stopped unexpectedly (${signal ?? `exit code ${code}`})${stderr() ? `: ${stderr().trim().split('\n').slice(-3).join(' ')}` : ''}`));
      }
    });
    const start: StartMessage = { type: 'start', ...job, limits };
    child.send(start);
  });
}

/** A started worker process, and the end of what it wrote to stderr (read from its start on). */
interface Worker {
  child: ChildProcess;
  heapMb: number;
  stderr: string;
}

let spare: Worker | null = null;
let spareTimer: NodeJS.Timeout | null = null;
/** The worker script the last import used: the spare is started from it. */
let lastEntry: WorkerEntry | null = null;

/** A worker for one import: the spare when it is alive and made for the same heap, else a new one. */
async function takeWorker(heapMb: number): Promise<Worker> {
  const entry = await workerEntry();
  lastEntry = entry;
  let worker = spare && spare.heapMb === heapMb && isUsable(spare.child) ? spare : null;
  if (spare && !worker) killGroup(spare.child);
  spare = null;
  worker ??= startWorker(entry, heapMb);
  // this one runs now: it keeps the process alive until it is done, as any import does
  worker.child.ref();
  worker.child.channel?.ref();
  (worker.child.stderr as { ref?: () => void } | null)?.ref?.();
  return worker;
}

/**
 * Starts the next import's worker once this one is done: while the server writes the finished book (the rows, the
 * search index), not while the worker parses against its time bound on the same cores.
 */
function startSpare(heapMb: number): void {
  if (!lastEntry || (spare && isUsable(spare.child))) return;
  spare = startWorker(lastEntry, heapMb);
  if (spareTimer) clearTimeout(spareTimer);
  spareTimer = setTimeout(stopSpare, SPARE_IDLE_MS).unref();
}

/** Stops the waiting spare worker, if any (idle; and benches that time an import without one). */
export function stopSpare(): void {
  if (spare) killGroup(spare.child);
  spare = null;
}

/** The process id of the spare worker waiting for the next import, if one is. */
export function sparePid(): number | null {
  return spare && isUsable(spare.child) ? (spare.child.pid ?? null) : null;
}

function isUsable(child: ChildProcess): boolean {
  return !child.killed && child.exitCode === null && child.signalCode === null && child.connected;
}

function startWorker(entry: WorkerEntry, heapMb: number): Worker {
  const child = fork(entry.file, [], {
    execArgv: [...entry.execArgv, `--max-old-space-size=${heapMb}`],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
    // a process group of its own: the ffprobe/ffmpeg it starts for a media import are killed with it (killGroup)
    detached: true,
    // The worker handles hostile bytes: it gets no secrets (LECTERN_SECRET, DATABASE_URL), only what node needs.
    env: pick(process.env, ['PATH', 'TMPDIR', 'TMP', 'TEMP', 'HOME', 'NODE_ENV', 'LANG', 'TZ']),
  });
  const worker: Worker = { child, heapMb, stderr: '' };
  child.stderr?.on('data', (chunk: Buffer) => {
    worker.stderr = (worker.stderr + chunk.toString('utf8')).slice(-4000);
  });
  // Until taken it holds nothing open: a server or a command that is done exits past a waiting spare (which exits
  // in turn when its channel closes).
  child.unref();
  child.channel?.unref();
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  // a spare that cannot start is found unusable when taken; its error is not an unhandled one meanwhile
  child.on('error', () => {});
  return worker;
}

/** Kills the worker and whatever it started (its process group: fork's `detached`), or the worker alone. */
function killGroup(child: ChildProcess): void {
  if (child.pid) {
    try {
      process.kill(-child.pid, 'SIGKILL');
      return;
    } catch {
      // no such group (already gone, or not a group leader): the worker alone
    }
  }
  child.kill('SIGKILL');
}

/**
 * Current and peak resident memory from /proc (Linux); null where there is none. The worker's children (ffprobe and
 * ffmpeg for a media import) count too: the memory bound is one import's, whatever process holds it.
 */
function readRss(child: ChildProcess): { current: number; peak: number } | null {
  if (!child.pid) return null;
  try {
    const own = processRss(child.pid);
    let children = 0;
    let childPeak = 0;
    for (const pid of descendants(child.pid)) {
      const rss = processRss(pid, true);
      children += rss.current;
      childPeak = Math.max(childPeak, rss.peak);
    }
    return { current: own.current + children, peak: Math.max(own.peak, own.current + children, own.current + childPeak) };
  } catch {
    return null;
  }
}

/** `mayBeGone`: a process that may have exited meanwhile counts as none. */
function processRss(pid: number, mayBeGone = false): { current: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { current: kb('VmRSS'), peak: kb('VmHWM') };
  } catch (error) {
    if (!mayBeGone) throw error;
    return { current: 0, peak: 0 };
  }
}

/** The processes below `pid` (from /proc's children lists; none where the kernel does not keep them). */
function descendants(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length && found.length < 64) {
    const parent = queue.shift()!;
    let listed = '';
    try {
      listed = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const id of listed.split(' ').filter(Boolean).map(Number)) {
      found.push(id);
      queue.push(id);
    }
  }
  return found;
}

function pick(env: NodeJS.ProcessEnv, names: string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(names.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}
