/** The reader's calls (reader.md §7): chapter blocks, the key, the table of contents, usage and progress. */
import { type ArchiveItem, blockRequestSchema, LIMITS, MESSAGES, paths, usageEventsRequestSchema } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { currentUser, requireSignedIn } from '../plugins/auth-context.ts';
import type { BlockPart, ReaderService } from '../services/reader.ts';
import { gzipBase64 } from '../util/base64-gzip.ts';
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

/** A slot's value as JSON text. A crypt64 content is base64, which JSON needs no escape for: quoted as it is. */
function slotJson(part: BlockPart, slot: Slot): string {
  if (slot === 'top') return JSON.stringify(part.top);
  if (slot === 'checksum') return JSON.stringify(part.checksum);
  return `"${part.content!}"`;
}

/**
 * The block answer's JSON bytes (the same bytes as JSON.stringify of the whole items, `archiveItemOf`), written
 * once into a buffer of their exact size: the shared pieces copied, the reader's parts written in their slots
 * (all ASCII: a number, base64, a hex checksum).
 */
export function blockBody(parts: BlockPart[]): Buffer {
  let size = 2 + Math.max(0, parts.length - 1); // the brackets and the commas between items
  const values: string[][] = [];
  const shapes: Template[] = [];
  for (const part of parts) {
    const template = templateOf(part.shared);
    shapes.push(template);
    const own = template.slots.map((slot) => slotJson(part, slot));
    values.push(own);
    for (const piece of template.pieces) size += piece.length;
    for (const v of own) size += v.length;
  }
  const body = Buffer.allocUnsafe(size);
  let o = 0;
  body[o++] = 0x5b; // [
  shapes.forEach((template, i) => {
    if (i > 0) body[o++] = 0x2c; // ,
    const own = values[i]!;
    for (let s = 0; s < own.length; s++) {
      o += template.pieces[s]!.copy(body, o);
      o += body.write(own[s]!, o, 'latin1');
    }
    o += template.pieces[own.length]!.copy(body, o);
  });
  body[o++] = 0x5d; // ]
  return body;
}

export function readerRoutes(app: FastifyInstance, deps: { reader: ReaderService }): void {
  const { reader } = deps;

  app.post('/nest/epub/block/', async (request, reply) => {
    const parts = await reader.blockParts(await currentUser(request), blockRequestSchema.parse(request.body ?? {}));
    const body = new CompressedBytes(blockBody(parts));
    reply.header('cache-control', 'private, no-store').type('application/json; charset=utf-8');
    if (!body.compressible) return reply.send(body.raw);
    reply.header('vary', 'Accept-Encoding');
    const acceptEncoding = request.headers['accept-encoding'];
    // A crypt64 chapter is random base64, where zlib finds nothing to match and only its Huffman coding saves
    // (a quarter): gzipBase64 does just that, at half zlib's cost. A plain chapter (a visitor's sample) is HTML,
    // which brotli or gzip shrinks three to five times.
    if (parts.some((part) => part.shared.resources[0]?.encoding === 'crypt64')) {
      if (!acceptsGzip(acceptEncoding)) return reply.send(body.raw);
      return reply.header('content-encoding', 'gzip').send(gzipBase64(body.raw));
    }
    const coding = chooseCoding(acceptEncoding);
    if (coding !== 'identity') reply.header('content-encoding', coding);
    return reply.send(body.in(coding));
  });

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
