/**
 * Runs one import in a worker process (./worker.ts) and holds it to its bounds. A child process rather than a
 * worker thread: it can be killed even inside a native call, its V8 heap has its own limit, and its resident
 * memory (which counts the buffers a heap limit does not) can be read from /proc and capped.
 * The server's event loop only passes messages meanwhile.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { IngestError } from './types.ts';
import {
  type DoneMessage,
  type ImportLimits,
  LIMIT_NAMES,
  type ParsedMessage,
  type StartMessage,
  type WorkerMessage,
} from './worker-protocol.ts';

const MB = 1024 * 1024;
const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
/** The worker is TypeScript like the rest of the server; tsx (a dependency) loads it. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MEMORY_POLL_MS = 20;

export interface WorkerRunStats {
  /** The worker's peak resident memory, as far as it was seen. */
  peakRssBytes: number;
  /** Why the worker was stopped, if it was. */
  stopped: 'memory' | 'time' | null;
}

export interface WorkerJob {
  file: string;
  fileName: string;
  stagingDir: string;
  allowScripts: boolean;
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
  const child = fork(WORKER, [], {
    execArgv: ['--import', TSX_LOADER, `--max-old-space-size=${heapMb}`],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
    // The worker handles hostile bytes: it gets no secrets (LECTERN_SECRET, DATABASE_URL), only what node needs.
    env: pick(process.env, ['PATH', 'TMPDIR', 'TMP', 'TEMP', 'HOME', 'NODE_ENV', 'LANG', 'TZ']),
  });
  const stats: WorkerRunStats = { peakRssBytes: 0, stopped: null };
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });

  return new Promise<DoneMessage>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, done?: DoneMessage): void => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      clearTimeout(timer);
      const settle = (): void => {
        observe(stats);
        if (error) reject(error);
        else resolve(done!);
      };
      // Settle only once the worker is gone: a worker still writing would race the removal of its staging folder.
      if (child.exitCode === null && child.signalCode === null) {
        child.once('exit', settle);
        child.kill('SIGKILL');
      } else {
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
      } else if (message.type === 'done') {
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
      if (/heap out of memory|Reached heap limit/i.test(stderr)) {
        stop('memory', memoryMessage);
      } else {
        finish(new Error(`the import worker stopped unexpectedly (${signal ?? `exit code ${code}`})${stderr ? `: ${stderr.trim().split('\n').slice(-3).join(' ')}` : ''}`));
      }
    });
    const start: StartMessage = { type: 'start', ...job, limits };
    child.send(start);
  });
}

/** Current and peak resident memory from /proc (Linux); null where there is none. */
function readRss(child: ChildProcess): { current: number; peak: number } | null {
  if (!child.pid) return null;
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    return { current: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return null;
  }
}

function pick(env: NodeJS.ProcessEnv, names: string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(names.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}
