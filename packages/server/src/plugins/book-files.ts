/**
 * How a book's own files leave the server. Imported books are hostile: whatever type a book declares, no byte of
 * it may run script on the app's origin. Every book file (resources, covers, the PDF of a document) goes out with
 * - `Content-Security-Policy: sandbox; default-src 'none'; …`: opened in a tab, it is a document of an opaque
 *   origin that may run nothing and fetch nothing but its own images, styles, fonts and media;
 * - `X-Content-Type-Options: nosniff`, and a type the browser will not execute as a page: images (SVG only when it
 *   carries no script), CSS, fonts, audio, video, PDF and text tracks keep theirs (the reader frame needs them);
 *   scripts keep a script type only for titles an admin allowed to run scripts (their reader frame loads them);
 *   HTML, XHTML, XML, scripts and anything unknown become `text/plain`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { DomUtils, parseDocument } from 'htmlparser2';
import { ReadCache } from '../util/cache.ts';
import { type ContentStore, LocalContentStore, readStored, type StoredFile } from '../storage/content-store.ts';

export const BOOK_FILE_CSP =
  "sandbox; default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; media-src 'self'; form-action 'none'; frame-ancestors 'self'";

const PASSED_THROUGH = [
  /^image\/(png|jpeg|jpg|gif|webp|avif|bmp|x-ms-bmp|tiff|x-icon|vnd\.microsoft\.icon)$/,
  /^text\/css$/,
  /^font\/[a-z0-9.+-]+$/,
  /^application\/(font-woff2?|x-font-woff|x-font-ttf|x-font-truetype|x-font-otf|x-font-opentype|font-sfnt|vnd\.ms-opentype|vnd\.ms-fontobject)$/,
  /^audio\/[a-z0-9.+-]+$/,
  /^video\/[a-z0-9.+-]+$/,
  /^application\/pdf$/,
  /^text\/vtt$/,
];
const SCRIPT_TYPES = new Set(['application/javascript', 'text/javascript', 'application/ecmascript', 'text/ecmascript', 'application/x-javascript']);
const SVG = 'image/svg+xml';
const PLAIN = 'text/plain; charset=utf-8';
/** Larger SVGs are not parsed on a request: they go out as text (a 2 MB picture in a book is rare). */
const MAX_SVG_BYTES = 2 * 1024 * 1024;

/** The media type without parameters, lower-cased ("Image/SVG+XML; charset=x" -> "image/svg+xml"). */
function essence(mediaType: string): string {
  return mediaType.split(';')[0]!.trim().toLowerCase();
}

/** Verdicts by stored file: a book's files never change after import (a re-import writes new ones). */
const svgVerdicts = new ReadCache<string, boolean>(10_000, 10 * 60_000);

const SVG_ACTIVE_ELEMENTS = new Set(['script', 'foreignobject', 'iframe', 'embed', 'object', 'handler', 'listener', 'set', 'animate', 'animatemotion', 'animatetransform']);

/**
 * True when an SVG can do nothing but draw: no script element, no event handler attribute, no foreign HTML, no
 * animation (which can rewrite an href into javascript:), and no link or reference that leaves the file except to
 * a fragment or a data: image.
 */
export function isInertSvg(text: string): boolean {
  const document = parseDocument(text, { xmlMode: true });
  const active = DomUtils.findOne((element) => {
    const name = element.name.toLowerCase();
    const local = name.slice(name.indexOf(':') + 1);
    if (SVG_ACTIVE_ELEMENTS.has(local)) return true;
    for (const [attribute, raw] of Object.entries(element.attribs)) {
      const a = attribute.toLowerCase();
      if (a.startsWith('on')) return true;
      const value = raw.replace(/[\u0000-\u0020]/g, '').toLowerCase();
      const dataImage = /^data:image\/(png|jpeg|gif|webp)[;,]/.test(value);
      if (/^(javascript|vbscript):/.test(value) || (value.startsWith('data:') && !dataImage)) return true;
      if ((a === 'href' || a.endsWith(':href')) && /^[a-z][a-z0-9+.-]*:/.test(value) && !dataImage) return true;
    }
    return false;
  }, document.children, true);
  // A processing instruction (<?xml-stylesheet?>) could pull in XSLT.
  const instructions = document.children.some((node) => node.type === 'directive' && /xml-stylesheet/i.test((node as { data?: string }).data ?? ''));
  return !active && !instructions && entitiesInert(text, document);
}

/** A plain internal entity declaration: its name and literal value (parameter and external entities never match). */
const ENTITY_DECLARATION = /<!ENTITY\s+([A-Za-z_][\w.:-]*)\s+(?:"([^"]*)"|'([^']*)')\s*>/g;

/**
 * The DOCTYPE's entities, which the parser above leaves as text where a browser's XML parser expands them: their
 * replacement text is read as markup where they are used ("&#60;script&#62;" is a script element there), and in an
 * attribute it is the attribute's value ("javascript:…"). Inert only when every declaration is a plain internal
 * one whose value holds no markup and no reference (Adobe Illustrator's namespace entities), used in namespace
 * declarations alone.
 */
function entitiesInert(text: string, document: ReturnType<typeof parseDocument>): boolean {
  const declared = text.match(/<!ENTITY\b/gi)?.length ?? 0;
  if (declared === 0) return true;
  const names: string[] = [];
  for (const m of text.matchAll(ENTITY_DECLARATION)) {
    if (/[<&%]/.test(m[2] ?? m[3] ?? '')) return false;
    names.push(m[1]!);
  }
  // a parameter or external entity, or a declaration this reading does not follow
  if (names.length !== declared) return false;
  const uses = (value: string) => names.some((name) => value.includes(`&${name};`));
  const misused = DomUtils.findOne(
    (element) => Object.entries(element.attribs).some(([attribute, value]) => uses(value) && attribute !== 'xmlns' && !attribute.startsWith('xmlns:')),
    document.children,
    true,
  );
  const inText = DomUtils.filter((node) => node.type === 'text' && uses((node as { data: string }).data), document.children, true, 1);
  return !misused && inText.length === 0;
}

async function svgIsInert(store: ContentStore, file: string): Promise<boolean> {
  const known = svgVerdicts.get(file);
  if (known !== undefined) return known;
  const stat = await store.stat(file);
  if (!stat) throw Object.assign(new Error(`no stored file ${file}`), { code: 'ENOENT' });
  const verdict = stat.size <= MAX_SVG_BYTES && isInertSvg((await readStored(store, file, MAX_SVG_BYTES)).toString('utf8'));
  svgVerdicts.set(file, verdict);
  return verdict;
}

/** The Content-Type a book file (`file`: its storage path) is served with (see the module comment). */
export async function bookFileType(declared: string, store: ContentStore, file: string, opts: { allowScripts: boolean }): Promise<string> {
  const type = essence(declared);
  if (PASSED_THROUGH.some((pattern) => pattern.test(type))) return type;
  if (type === SVG) return (await svgIsInert(store, file)) ? SVG : PLAIN;
  if (SCRIPT_TYPES.has(type) && opts.allowScripts) return 'text/javascript';
  return PLAIN;
}

/** Sends a stored book file (`file`: its storage path) with the headers every book file carries and the type chosen above. */
export async function sendBookFile(reply: FastifyReply, store: ContentStore, file: string, declared: string, opts: { allowScripts: boolean }): Promise<FastifyReply> {
  if (!(store instanceof LocalContentStore)) {
    // another store: its size and time first, so a missing file is the 404 @fastify/send answers on disk
    const stat = await store.stat(file);
    if (!stat) return notFound(reply);
    bookFileHeaders(reply, await bookFileType(declared, store, file, opts));
    return sendFromStore(reply, store, file, stat, { weakTag: true });
  }
  bookFileHeaders(reply, await bookFileType(declared, store, file, opts));
  // contentType: false — the plugin would otherwise type the file by its stored name's extension, over ours;
  // highWaterMark as for media files (sendMediaFile): fs's 64 KiB reads, not @fastify/send's 16 KiB.
  const options = { contentType: false, highWaterMark: MEDIA_READ_BYTES } as Parameters<typeof reply.sendFile>[2];
  return reply.sendFile(localPath(store, file), store.root, options);
}

function bookFileHeaders(reply: FastifyReply, type: string): void {
  reply.header('content-security-policy', BOOK_FILE_CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('cross-origin-resource-policy', 'same-origin');
  reply.type(type);
}

/** The path below the store's folder @fastify/send is given (checked by resolve: nothing outside the folder). */
const localPath = (store: LocalContentStore, file: string) => store.resolve(file).slice(store.root.length + 1);

function notFound(reply: FastifyReply): FastifyReply {
  reply.callNotFound();
  return reply;
}

/**
 * A stored media file (a video course's or audiobook's part, a preview clip), sent as book files are (the same
 * sandbox, nosniff and type rules, @fastify/send's ranges, HEAD and streaming from disk) with what a player's
 * range requests need beyond them (RFC 9110 §13, §14):
 * - a strong ETag: the file is written once by its import and never changes in place (a new edition gets a new
 *   folder), so `"size-mtime"` is an honest strong validator; @fastify/send only makes weak ones, and If-Range
 *   must compare strongly, so a weak tag could never make a Range fresh;
 * - If-Range by entity-tag compared strongly here (a date is left to @fastify/send, against Last-Modified);
 *   If-None-Match (weakly, 304) and If-Match (strongly, 412) likewise, since @fastify/send no longer sees a tag;
 * - a suffix range longer than the file (`bytes=-N`, N > size) is the whole file (§14.1.3), not a 416.
 * Several ranges are answered with the whole file, 200 (a server may ignore Range, §14.2; players ask for one):
 * docs/decisions.md "Media streaming".
 */
export async function sendMediaFile(reply: FastifyReply, store: ContentStore, file: string, declared: string): Promise<FastifyReply> {
  const stat = await store.stat(file).catch(() => null);
  if (!stat) return notFound(reply);
  const etag = `"${stat.size.toString(16)}-${stat.mtime.getTime().toString(16)}"`;
  const headers = reply.request.raw.headers;
  reply.header('etag', etag);
  const verdict = preconditions(headers, etag);
  if (verdict !== null) {
    reply.header('content-security-policy', BOOK_FILE_CSP).header('x-content-type-options', 'nosniff');
    return reply.code(verdict).send();
  }
  normaliseRange(headers, stat.size);
  bookFileHeaders(reply, await bookFileType(declared, store, file, { allowScripts: false }));
  if (!(store instanceof LocalContentStore)) return sendFromStore(reply, store, file, stat, { weakTag: false });
  // highWaterMark: @fastify/send hands fs.createReadStream `highWaterMark: null` when none is given, which is not
  // fs's 64 KiB default but a plain stream's 16 KiB: four times the reads and writes per byte, 2-3 times a bare
  // node:http sender's CPU per MB (bench/media-stream.ts). Its type declarations do not name the option.
  const options = { contentType: false, etag: false, highWaterMark: MEDIA_READ_BYTES } as Parameters<typeof reply.sendFile>[2];
  return reply.sendFile(localPath(store, file), store.root, options);
}

/**
 * A file of a store that is not this machine's disk (storage/s3-content-store.ts), answered as @fastify/send answers
 * for a local one: Accept-Ranges, Last-Modified, a weak ETag for book files (sendMediaFile set its strong one and
 * took its tag preconditions already), 304 for If-None-Match / If-Modified-Since, If-Range, one byte range as a 206
 * read from the store as a range (never the whole file), 416 with `bytes *\/size` for a range past the end, several
 * ranges as the whole file, HEAD without a body.
 */
async function sendFromStore(reply: FastifyReply, store: ContentStore, file: string, stat: StoredFile, opts: { weakTag: boolean }): Promise<FastifyReply> {
  const headers = reply.request.raw.headers;
  const lastModified = stat.mtime.toUTCString();
  reply.header('accept-ranges', 'bytes').header('last-modified', lastModified);
  if (opts.weakTag) {
    const etag = `W/"${stat.size.toString(16)}-${stat.mtime.getTime().toString(16)}"`;
    reply.header('etag', etag);
    const ifNoneMatch = headers['if-none-match'];
    if (ifNoneMatch !== undefined) {
      if (tagList(ifNoneMatch).some((t) => t === '*' || opaque(t) === opaque(etag))) return reply.code(304).send();
    } else if (notModifiedSince(headers['if-modified-since'], stat.mtime)) {
      return reply.code(304).send();
    }
  } else if (headers['if-none-match'] === undefined && notModifiedSince(headers['if-modified-since'], stat.mtime)) {
    return reply.code(304).send();
  }
  let range = byteRange(headers.range, stat.size);
  const ifRange = String(headers['if-range'] ?? '').trim();
  // a tag in If-Range never matches a weak tag; a date must be the file's own (RFC 9110 §13.1.5)
  if (range && ifRange && (ifRange.startsWith('"') || ifRange.startsWith('W/') || Date.parse(ifRange) !== Math.floor(stat.mtime.getTime() / 1000) * 1000)) range = null;
  if (range === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${stat.size}`).send();
  if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${stat.size}`);
  const length = range ? range.end - range.start + 1 : stat.size;
  reply.header('content-length', String(length));
  if (reply.request.method === 'HEAD' || length === 0) return reply.send();
  return reply.send(await store.read(file, range ?? undefined));
}

function notModifiedSince(value: string | undefined, mtime: Date): boolean {
  if (!value) return false;
  const since = Date.parse(value);
  return !Number.isNaN(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
}

/**
 * One byte range of a file of `size` bytes, as @fastify/send (range-parser) reads it: null for none, an invalid one
 * or several (the whole file), 'unsatisfiable' for one past the end (416).
 */
export function byteRange(value: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (value === undefined) return null;
  const set = /^\s*bytes\s*=(.*)$/i.exec(value);
  if (!set) return null;
  const specs = set[1]!.split(',').map((spec) => spec.trim());
  if (specs.length !== 1) return null;
  const m = /^(\d*)-(\d*)$/.exec(specs[0]!);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end && m[1] !== '' && m[2] !== '' && Number(m[1]) > Number(m[2])) return null;
  if (start > end || start >= size) return 'unsatisfiable';
  return { start, end };
}

/** fs.createReadStream's own default; more grows memory with the readers (100 readers x 256 KiB: +28 MB). */
const MEDIA_READ_BYTES = 64 * 1024;

/** The entity-tags of an If-Match / If-None-Match list ('*' stands alone). */
function tagList(value: string): string[] {
  return value.split(',').map((t) => t.trim()).filter(Boolean);
}
const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/**
 * Evaluates the entity-tag preconditions against our strong tag and takes them off the request (what is left for
 * @fastify/send: Range, and the date forms of If-Range and If-Modified-Since): 304, 412, or null to go on.
 */
export function preconditions(headers: IncomingHttpHeaders, etag: string): 304 | 412 | null {
  const ifMatch = headers['if-match'];
  if (ifMatch !== undefined) {
    delete headers['if-match'];
    const tags = tagList(ifMatch);
    if (!tags.includes('*') && !tags.includes(etag)) return 412;
  }
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    delete headers['if-none-match'];
    // If-Modified-Since is ignored when If-None-Match is given (RFC 9110 §13.1.3).
    delete headers['if-modified-since'];
    const tags = tagList(ifNoneMatch);
    if (tags.includes('*') || tags.some((t) => opaque(t) === etag)) return 304;
  }
  const ifRange = String(headers['if-range'] ?? '').trim();
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) {
    delete headers['if-range'];
    // Strong comparison: a weak tag never matches; not fresh means the whole file, 200.
    if (ifRange !== etag) delete headers.range;
  }
  return null;
}

/**
 * The Range @fastify/send should see (RFC 9110 §14.1.1-§14.1.3): an invalid byte-range set (`bytes=abc`,
 * `bytes=20-10`) is ignored — the whole file, 200 — where @fastify/send answered 416, which is for a valid range that
 * misses the file; a suffix range longer than the file asks for all of it, where @fastify/send answered 416.
 * Several ranges are the whole file, 200 (docs/decisions.md "Media serving"): send dropped the ranges it could not
 * satisfy (`bytes=0-1,-5000` on 1000 bytes) or merged overlapping ones and answered the one left 206.
 */
export function normaliseRange(headers: IncomingHttpHeaders, size: number): void {
  const range = headers.range;
  if (range === undefined) return;
  const set = /^\s*bytes\s*=(.*)$/i.exec(range);
  // another unit: @fastify/send ignores it already
  if (!set) return;
  const specs = set[1]!.split(',').map((spec) => spec.trim());
  const valid = specs.every((spec) => {
    const m = /^(\d+)-(\d*)$/.exec(spec);
    if (m) return m[2] === '' || Number(m[1]) <= Number(m[2]);
    return /^-\d+$/.test(spec);
  });
  if (!valid || specs.length > 1) {
    delete headers.range;
    return;
  }
  const suffix = /^-(\d+)$/.exec(specs[0]!);
  if (suffix && Number(suffix[1]) > size && size > 0) headers.range = 'bytes=0-';
}
