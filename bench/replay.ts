/**
 * What the HTTP benches share: the reader's recorded block request (bench/reader-requests.json, taken from
 * Chromium's network log by e2e/reader-requests.e2e.ts) filled in for a bench reader, the anchor's answers, and
 * starting a bench process that prints one JSON line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface AnchorAnswer {
  headers: Record<string, string>;
  /** base64 of the body bytes */
  body: string;
}

export interface AnchorAnswers {
  chapter: AnchorAnswer;
  /** by blockKey(cookie, body) */
  block: Record<string, AnchorAnswer>;
}

/** Which answer a block request gets: the reader (the whole cookie header) and what it asked for. */
export function blockKey(cookie: string | undefined, body: { book_id?: unknown; hrefs?: unknown }): string {
  return `${cookie ?? ''}|${String(body.book_id)}|${JSON.stringify(body.hrefs)}`;
}

/** The reader's block request on opening a chapter, as recorded. */
export function recordedBlockRequest(): RecordedRequest {
  const file = JSON.parse(fs.readFileSync(path.join(root, 'bench/reader-requests.json'), 'utf8')) as { requests: RecordedRequest[] };
  const block = file.requests.find((r) => r.path === '/nest/epub/block/');
  if (!block) throw new Error('bench/reader-requests.json holds no block request: record it with e2e/reader-requests.e2e.ts');
  return block;
}

export interface Reader {
  cookie: string;
  csrfToken: string;
}

/** The recorded request for this reader, book and chapter: placeholders filled in, everything else as the browser sent it. */
export function fillIn(recorded: RecordedRequest, reader: Reader, bookId: string, href: string): { method: string; path: string; headers: Record<string, string>; body: string } {
  const headers = Object.fromEntries(
    Object.entries(recorded.headers).map(([k, v]) => [k, v === '{cookie}' ? reader.cookie : v === '{csrftoken}' ? reader.csrfToken : v]),
  );
  const fill = (v: unknown): unknown => (v === '{book_id}' ? bookId : v === '{href}' ? href : Array.isArray(v) ? v.map(fill) : v);
  const body = Object.fromEntries(Object.entries(recorded.body).map(([k, v]) => [k, fill(v)]));
  return { method: recorded.method, path: recorded.path, headers, body: JSON.stringify(body) };
}

/**
 * Starts `node --import tsx script args` from the repository root (with `env` over this process's environment);
 * resolves with the first JSON line it prints.
 */
export function startJsonProcess<T>(script: string, args: string[] = [], nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<{ child: ChildProcess; info: T }> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      // Complete lines only: a long line arrives in several chunks.
      const line = out.split('\n').slice(0, -1).find((l) => l.startsWith('{'));
      if (line) resolve({ child, info: JSON.parse(line) as T });
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}
