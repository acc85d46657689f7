/** The reader's calls (reader.md §7): chapter blocks, the key, the table of contents, usage and progress. */
import { type ArchiveItem, type BlockRequest, blockRequestSchema, LIMITS, MESSAGES, paths, usageEventsRequestSchema } from '@lectern/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { currentUserNow, requireSignedIn } from '../plugins/auth-context.ts';
import type { BlockPart, Reader, ReaderService } from '../services/reader.ts';
import { gzipText, textOf, type TextPart } from '../util/base64-gzip.ts';
import { acceptsGzip, chooseCoding, CompressedBytes } from '../util/compressed-bytes.ts';

const tocQuery = z.object({ book_id: z.string().min(1, 'book_id is required').max(200), chapter_href: z.string().max(1000).optional() });
const progressQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(LIMITS.progressPageSize),
});
const bookParams = z.object({ bookId: z.string().min(1).max(200) });

/** Stand for the reader's own parts while a shared item is serialised (NUL cannot occur in a book's text or labels). */
const MARKS = { top: '\u0000top\u0000', content: '\u0000content\u0000', checksum: '\u0000checksum\u0000' } as const;
type Slot = keyof typeof MARKS;

/**
 * A shared item's JSON in byte pieces around the slots where each reader's own parts go, in the order they occur:
 * `pieces[i]`, then slot i's value, ..., then the last piece. Made once per shared item (one per cached chapter),
 * so a request serialises only its position, ciphertext and checksum: JSON.stringify of the whole item, with its
 * labels, paths and stylesheet list, was made again for every request.
 */
interface Template {
  pieces: Buffer[];
  slots: Slot[];
}
const templates = new WeakMap<ArchiveItem, Template>();

function templateOf(shared: ArchiveItem): Template {
  let template = templates.get(shared);
  if (template) return template;
  const [resource] = shared.resources;
  let json: string;
  const marked: Slot[] = [];
  if (!resource) json = JSON.stringify(shared);
  else {
    // A crypt64 item's content and checksum are the reader's; a plain item's are the chapter's, shared.
    const own = resource.encoding === 'crypt64';
    const item = {
      ...shared,
      top_percentage: MARKS.top as unknown as number,
      resources: [{ ...resource, ...(own ? { content: MARKS.content, checksum: MARKS.checksum } : {}) }],
    };
    json = JSON.stringify(item);
    marked.push('top', ...(own ? (['content', 'checksum'] as const) : []));
  }
  const at = marked.map((slot) => ({ slot, at: json.indexOf(JSON.stringify(MARKS[slot])) })).sort((a, b) => a.at - b.at);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const { slot, at: i } of at) {
    pieces.push(Buffer.from(json.slice(from, i)));
    from = i + JSON.stringify(MARKS[slot]).length;
  }
  pieces.push(Buffer.from(json.slice(from)));
  template = { pieces, slots: at.map((a) => a.slot) };
  templates.set(shared, template);
  return template;
}

/**
 * The block answer's JSON text (the same bytes as JSON.stringify of the whole items, `archiveItemOf`) as parts:
 * the shared pieces as they are, the reader's own values between them (all ASCII: a number, a hex checksum), and
 * the crypt64 content as the ciphertext whose base64 it is (quoted: JSON needs no escape for base64). The parts are
 * written into the compressed answer directly (`gzipText`), or as text (`blockBody`). Each part's ciphertext is
 * made as the parts are listed: use them before listing another answer's.
 */
export function blockText(parts: BlockPart[]): TextPart[] {
  const text: TextPart[] = ['['];
  // Every part's ciphertext is made in the same buffer: all but the last of an answer's are copied out of it.
  let ciphers = parts.filter((part) => part.cipher !== null).length;
  parts.forEach((part, i) => {
    if (i > 0) text.push(',');
    const template = templateOf(part.shared);
    template.slots.forEach((slot, s) => {
      text.push(template.pieces[s]!);
      if (slot === 'top') text.push(JSON.stringify(part.top));
      else if (slot === 'checksum') text.push(JSON.stringify(part.checksum));
      else {
        const bytes = part.cipher!();
        text.push('"', { base64Of: --ciphers > 0 ? bytes.slice() : bytes }, '"');
      }
    });
    text.push(template.pieces[template.slots.length]!);
  });
  text.push(']');
  return text;
}

/** The block answer's JSON bytes, uncompressed (see {@link blockText}). */
export function blockBody(parts: BlockPart[]): Buffer {
  return textOf(blockText(parts));
}

/**
 * A visitor's answer, one plain chapter (a sample) at position 0, is the same bytes for every visitor: made, and
 * compressed, once per shared item (kept weakly beside it, so it goes when the catalog's cache drops the chapter)
 * instead of brotli over the whole chapter for every request. Anything else is made for its request.
 */
const plainAnswers = new WeakMap<ArchiveItem, CompressedBytes>();
function plainAnswer(parts: BlockPart[]): CompressedBytes {
  const only = parts.length === 1 && parts[0]!.top === 0 && parts[0]!.cipher === null ? parts[0]!.shared : null;
  if (!only) return new CompressedBytes(blockBody(parts));
  let answer = plainAnswers.get(only);
  if (!answer) plainAnswers.set(only, (answer = new CompressedBytes(blockBody(parts))));
  return answer;
}

/** The block answer's headers, set in one call (each `reply.header` is a call of its own on the hottest request). */
const PLAIN_HEADERS = { 'cache-control': 'private, no-store', 'content-type': 'application/json; charset=utf-8' };
const CRYPT64_HEADERS = { ...PLAIN_HEADERS, vary: 'Accept-Encoding' };
const CRYPT64_GZIP_HEADERS = { ...CRYPT64_HEADERS, 'content-encoding': 'gzip' };

const BLOCK_FIELDS = new Set(['book_id', 'hrefs', 'package_resources', 'screen_width', 'screen_height', 'update_progress']);
const PACKAGE_RESOURCES = new Set<unknown>([1, '1', true, 0, '0', false]);
const isPath = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= 1000;
const isScreen = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 20_000);

/**
 * The block request's body as `blockRequestSchema` parses it. The reader's own request (only the schema's fields,
 * each in its plain form: numbers as numbers) is checked here directly, a fifth of zod's cost on the hottest
 * request; anything else (another form, an unknown field, a value out of range) goes through zod, which answers
 * it and words its refusals (the contract's messages). Unit-tested against zod.
 */
export function blockRequestOf(body: unknown): BlockRequest {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    let plain = typeof b.book_id === 'string' && b.book_id.length >= 1 && b.book_id.length <= 200;
    for (const key in b) if (!Object.hasOwn(b, key) || !BLOCK_FIELDS.has(key)) plain = false;
    const hrefs = b.hrefs;
    plain &&= isPath(hrefs) || (Array.isArray(hrefs) && hrefs.length >= 1 && hrefs.length <= 5 && hrefs.every(isPath));
    plain &&= (b.package_resources === undefined || PACKAGE_RESOURCES.has(b.package_resources)) && isScreen(b.screen_width) && isScreen(b.screen_height);
    plain &&= b.update_progress === undefined || typeof b.update_progress === 'boolean' || b.update_progress === 0 || b.update_progress === 1;
    if (plain) {
      const request: BlockRequest = { book_id: b.book_id as string, hrefs: Array.isArray(hrefs) ? [...(hrefs as string[])] : (hrefs as string) };
      if (b.package_resources !== undefined) request.package_resources = b.package_resources as BlockRequest['package_resources'];
      if (b.screen_width !== undefined) request.screen_width = b.screen_width as number;
      if (b.screen_height !== undefined) request.screen_height = b.screen_height as number;
      if (b.update_progress !== undefined) request.update_progress = b.update_progress as BlockRequest['update_progress'];
      return request;
    }
  }
  return blockRequestSchema.parse(body ?? {});
}

export function readerRoutes(app: FastifyInstance, deps: { reader: ReaderService }): void {
  const { reader } = deps;

  // Not an async function: the usual request (its session, chapter and position known at once) is answered
  // without a promise; only a session, title or chapter to be loaded waits. A promise handed to Fastify ends in
  // the reply itself, so Fastify waits for the answer to be out (an onSend hook may still be at work) rather than
  // sending again.
  app.post('/nest/epub/block/', (request, reply) => {
    const user = currentUserNow(request);
    return user instanceof Promise ? user.then((known) => answerBlock(request, reply, known) ?? reply) : answerBlock(request, reply, user);
  });

  function answerBlock(request: FastifyRequest, reply: FastifyReply, user: Reader | null): void | Promise<FastifyReply> {
    const parts = reader.blockParts(user, blockRequestOf(request.body));
    if (parts instanceof Promise)
      return parts.then((loaded) => {
        sendBlock(request, reply, loaded);
        return reply;
      });
    sendBlock(request, reply, parts);
  }

  function sendBlock(request: FastifyRequest, reply: FastifyReply, parts: BlockPart[]): void {
    const acceptEncoding = request.headers['accept-encoding'];
    // A crypt64 chapter is random base64, where zlib finds nothing to match and only its Huffman coding saves
    // (a quarter): gzipText does just that, at half zlib's cost, writing the base64 from the ciphertext as it
    // codes it (no base64 string, no uncompressed body). A plain chapter (a visitor's sample) is HTML, which
    // brotli or gzip shrinks three to five times.
    if (parts.some((part) => part.cipher !== null)) {
      if (!acceptsGzip(acceptEncoding)) return void reply.headers(CRYPT64_HEADERS).send(blockBody(parts));
      return void reply.headers(CRYPT64_GZIP_HEADERS).send(gzipText(blockText(parts)));
    }
    reply.headers(PLAIN_HEADERS);
    const body = plainAnswer(parts);
    if (!body.compressible) return void reply.send(body.raw);
    reply.header('vary', 'Accept-Encoding');
    const coding = chooseCoding(acceptEncoding);
    if (coding !== 'identity') reply.header('content-encoding', coding);
    reply.send(body.in(coding));
  }

  app.get('/nest/key/', async (request, reply) => {
    const { user } = await requireSignedIn(request, MESSAGES.signInToRead);
    return reply.header('cache-control', 'private, no-store').send(reader.userKey(user));
  });

  app.get('/nest/epub/toc/', async (request) => {
    const q = tocQuery.parse(request.query);
    return reader.toc(q.book_id, q.chapter_href ?? null);
  });

  app.post('/api/v1/usage-event/', async (request) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const body = usageEventsRequestSchema.parse(request.body);
    return reader.recordUsage(user, Array.isArray(body) ? body : body.events);
  });

  app.get('/api/v1/book/:bookId/chapter-progress/', async (request) => {
    const { user } = await requireSignedIn(request, MESSAGES.userNotLoggedIn);
    const { bookId } = bookParams.parse(request.params);
    const q = progressQuery.parse(request.query);
    return reader.chapterProgress(user, bookId, q.page, q.page_size, paths.chapterProgress(bookId));
  });
}
