/**
 * Compresses the JSON answers and pages the routes send as text, for a browser that takes brotli or gzip
 * (docs/decisions.md "The first screen's data in the page, a first paint without script, answers compressed": the
 * home's answers and the page itself, 3-7 KB each, went uncompressed over a phone's link). What a route
 * compresses itself (chapters, with their compressed forms made once: util/compressed-bytes.ts) or streams (files)
 * passes untouched, and so does what is too small to gain. Small answers are compressed inline (brotli at quality 4
 * costs about as much as gzip at 6 and sends less); large ones (a whole playlist list) on the thread pool, so one
 * megabyte does not hold the event loop. A route that chose its coding itself says so by its `Vary: Accept-Encoding`
 * (the block request sends crypt64 gzipped or as it is, never brotli: routes/reader.ts) and is left alone.
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { chooseCoding, type ContentCoding } from '../util/compressed-bytes.ts';

/** Below this, compression saves less than it costs (the header, the work). */
const MIN_BYTES = 1024;
/** From this size on, off the event loop. */
const ASYNC_FROM = 32 * 1024;
const COMPRESSIBLE = /^(application\/json|text\/html)/;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const brotliOptions = (size: number) => ({ params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: size } });

/** `bytes` in `coding` (not identity), made on this thread. */
export function compressSync(bytes: Buffer, coding: Exclude<ContentCoding, 'identity'>): Buffer {
  return coding === 'br' ? brotliCompressSync(bytes, brotliOptions(bytes.byteLength)) : gzipSync(bytes, { level: 6 });
}

const negotiated = (vary: unknown) => vary !== undefined && /accept-encoding|\*/i.test(String(vary));

function addVary(reply: FastifyReply, vary: unknown): void {
  reply.header('vary', vary === undefined ? 'Accept-Encoding' : `${String(vary)}, Accept-Encoding`);
}

export function registerAnswerCompression(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    // The common case leaves first: nothing to send (a 304), a stream, or a short answer.
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
    if (payload.length < MIN_BYTES || request.method === 'HEAD' || reply.hasHeader('content-encoding')) return done(null, payload);
    if (!COMPRESSIBLE.test(String(reply.getHeader('content-type') ?? ''))) return done(null, payload);
    const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
    if (bytes.byteLength < MIN_BYTES) return done(null, payload);
    const vary = reply.getHeader('vary');
    if (negotiated(vary)) return done(null, payload);
    addVary(reply, vary);
    const coding = chooseCoding(request.headers['accept-encoding']);
    if (coding === 'identity') return done(null, payload);
    const answer = (compressed: Buffer) => {
      reply.header('content-encoding', coding);
      reply.removeHeader('content-length');
      done(null, compressed);
    };
    if (bytes.byteLength < ASYNC_FROM) return answer(compressSync(bytes, coding));
    const work = coding === 'br' ? brotliAsync(bytes, brotliOptions(bytes.byteLength)) : gzipAsync(bytes, { level: 6 });
    work.then(answer, (err: Error) => done(err));
  });
}
