/** The reader's calls (reader.md §7): chapter blocks, the key, the table of contents, usage and progress. */
import { type ArchiveItem, blockRequestSchema, LIMITS, MESSAGES, paths, usageEventsRequestSchema } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { currentUser, requireSignedIn } from '../plugins/auth-context.ts';
import type { ReaderService } from '../services/reader.ts';
import { gzipBase64 } from '../util/base64-gzip.ts';
import { acceptsGzip, chooseCoding, CompressedBytes } from '../util/compressed-bytes.ts';

const tocQuery = z.object({ book_id: z.string().min(1, 'book_id is required').max(200), chapter_href: z.string().max(1000).optional() });
const progressQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(LIMITS.progressPageSize),
});
const bookParams = z.object({ bookId: z.string().min(1).max(200) });

/** Stands for a crypt64 content while the rest is serialised (NUL cannot occur in a book's text or labels). */
const marker = (i: number) => `\u0000crypt64-${i}\u0000`;

/**
 * The block answer's JSON bytes. A crypt64 content is base64, which JSON needs no escape for: it is left out of
 * JSON.stringify (which scanned every character of it for escapes) and copied in as bytes where its marker is.
 */
function blockBody(items: ArchiveItem[]): Buffer {
  const contents: string[] = [];
  for (const item of items) {
    const chapter = item.resources[0];
    if (chapter?.encoding !== 'crypt64') continue;
    contents.push(chapter.content);
    chapter.content = marker(contents.length - 1);
  }
  const json = JSON.stringify(items);
  if (contents.length === 0) return Buffer.from(json);
  // The JSON around the contents, in pieces; the answer is written once into a buffer of its exact size.
  const pieces: string[] = [];
  let from = 0;
  let size = 0;
  contents.forEach((content, i) => {
    const quoted = JSON.stringify(marker(i));
    const at = json.indexOf(quoted, from);
    // The marker's quotes stay: the content goes between them.
    pieces.push(json.slice(from, at + 1));
    from = at + quoted.length - 1;
    size += content.length;
  });
  pieces.push(json.slice(from));
  for (const piece of pieces) size += Buffer.byteLength(piece);
  const body = Buffer.allocUnsafe(size);
  let o = 0;
  contents.forEach((content, i) => {
    o += body.write(pieces[i]!, o);
    o += body.write(content, o, 'latin1');
  });
  body.write(pieces[pieces.length - 1]!, o);
  return body;
}

export function readerRoutes(app: FastifyInstance, deps: { reader: ReaderService }): void {
  const { reader } = deps;

  app.post('/nest/epub/block/', async (request, reply) => {
    const items = await reader.block(await currentUser(request), blockRequestSchema.parse(request.body ?? {}));
    const body = new CompressedBytes(blockBody(items));
    reply.header('cache-control', 'private, no-store').type('application/json; charset=utf-8');
    if (!body.compressible) return reply.send(body.raw);
    reply.header('vary', 'Accept-Encoding');
    const acceptEncoding = request.headers['accept-encoding'];
    // A crypt64 chapter is random base64, where zlib finds nothing to match and only its Huffman coding saves
    // (a quarter): gzipBase64 does just that, at half zlib's cost. A plain chapter (a visitor's sample) is HTML,
    // which brotli or gzip shrinks three to five times.
    if (items.some((item) => item.resources[0]?.encoding === 'crypt64')) {
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
