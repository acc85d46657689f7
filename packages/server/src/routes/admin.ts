/** Operators' endpoints (admins and content creators: policies/admin.ts): upload files to import, set chapter flags. */
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ADMIN_MESSAGES, adminTopicNamesSchema, chapterFlagsSchema, type ImportReport, UPLOAD_BODY_MESSAGES } from '@lectern/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { badRequest } from '../errors.ts';
import type { ImportLimits } from '../ingest/worker-protocol.ts';
import { assertContentRole } from '../policies/admin.ts';
import { currentUser } from '../plugins/auth-context.ts';
import type { ChapterFlagsService } from '../services/chapter-flags.ts';
import { type ImportService, replacedByOneFile } from '../services/import.ts';
import type { ImportJobs } from '../services/import-jobs.ts';

const MB = 1024 * 1024;
const MAX_FILES = 20;
const chapterParams = z.object({ bookId: z.string().min(1).max(200), '*': z.string().min(1).max(1000) });

const fileError = (message: string) => badRequest(message, { file: [message] });

export function adminRoutes(app: FastifyInstance, deps: { importer: ImportService; jobs: ImportJobs; flags: ChapterFlagsService }): void {
  /**
   * multipart: one or more `file` parts, optional `topics` fields (slugs); answers the import report once every
   * file has been through its worker. Each file streams to a temporary file under a per-file and a per-request
   * byte cap (never a buffer of the whole upload); the folder goes when the request ends, whatever happened.
   */
  app.post('/api/v1/admin/import/', async (request, reply) => {
    const user = await currentUser(request);
    assertContentRole(user);
    // ?replace=<book_id>: the one file is a new edition of that book (services/import.ts replaceFile).
    const replace = replaceOf(request.query);
    // (a video course's or audiobook's new edition is its media files: a folder of parts, up to MAX_FILES)
    const target = replace !== null ? await deps.importer.replaceable(replace) : null;
    if (!request.isMultipart()) throw fileError(ADMIN_MESSAGES.notMultipart);
    const boundary = boundaryProblem(request.headers['content-type']);
    if (boundary) throw fileError(boundary);
    // The upload is a job in the database (services/import-jobs.ts): its files are received here, then stored in the
    // content store's upload area, any server's worker may run it, and this request answers with its outcome, as
    // before (a 503 when the database or the store failed it: not the file's fault).
    const upload = await deps.jobs.begin();
    let report: ImportReport;
    try {
      const received = await receiveFiles(request, upload.dir, deps.importer.limits);
      const files = received.files;
      const topics = topicsOf(received.topics);
      // the audit entry names them (plugins/admin-audit.ts)
      request.auditDetail = topics.length ? { topics } : null;
      if (target && replacedByOneFile(target) && files.length !== 1) {
        throw replaceError(`A replacement takes exactly one file; ${files.length} were sent.`);
      }
      await deps.jobs.submit(upload, user?.id ?? null, { files: files.map((f) => ({ name: f.name, at: path.basename(f.path) })), topics, replace });
      const answer = await deps.jobs.answer(upload);
      const shown = files.length === 1 ? files[0]!.name : `${files.length} files`;
      report = 'imported' in answer ? answer : { imported: [], failed: [{ file: shown, reason: answer.failed }] };
    } finally {
      // Before answering: once the client has its answer, nothing of the upload is left (unless its job still runs).
      await deps.jobs.end(upload);
    }
    const failures = report.failed.map((f) => `${f.file}: ${f.reason}`);
    // A new edition creates nothing: 200, where new titles are 201.
    const ok = replace !== null ? 200 : 201;
    return reply.status(report.imported.length ? ok : 400).send(report.imported.length ? report : { detail: failures.join('; '), errors: { file: failures }, ...report });
  });

  app.patch('/api/v1/admin/book/:bookId/chapter/*', async (request) => {
    assertContentRole(await currentUser(request));
    const { bookId, '*': fullPath } = chapterParams.parse(request.params);
    return deps.flags.set(bookId, fullPath, chapterFlagsSchema.parse(request.body ?? {}));
  });
}

/**
 * The import's topics by the title editor's rule (core adminTopicNamesSchema), as the command line's --topic: a 400
 * naming `topics`, before anything is imported.
 */
function topicsOf(values: string[]): string[] {
  const parsed = adminTopicNamesSchema.safeParse(values);
  if (parsed.success) return parsed.data;
  const message = parsed.error.issues[0]!.message;
  throw badRequest(message, { topics: [message] });
}

const replaceError = (message: string) => badRequest(message, { replace: [message] });

/** The `replace` query parameter: null when absent, else one book id (a 400 naming `replace` otherwise). */
function replaceOf(query: unknown): string | null {
  const value = (query as Record<string, unknown> | undefined)?.replace;
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200) throw replaceError('replace must be the book id of one book in the library.');
  return value.trim();
}

class UploadTooLarge extends Error {}

/**
 * RFC 2046's boundary is 1 to 70 characters. The parser throws a plain error on none (or on one longer than its
 * search allows), which would be a 500: the request is what is wrong.
 */
function boundaryProblem(contentType: string | undefined): string | null {
  const m = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  const boundary = m ? (m[1] ?? m[2] ?? '') : '';
  if (boundary === '') return UPLOAD_BODY_MESSAGES.noBoundary;
  if (boundary.length > 70) return UPLOAD_BODY_MESSAGES.boundaryTooLong;
  return null;
}

/** The parser's own complaints about the body (they carry no code; ours and the file system's do). */
function isMalformedMultipart(err: unknown): boolean {
  return err instanceof Error && (err as { code?: unknown }).code === undefined && /multipart|boundary|malformed|part header/i.test(err.message);
}

/**
 * Streams every file part of the request to its own file in `dir`, under busboy's per-file cap and a count of
 * the whole request's bytes; fields are read as they come.
 */
async function receiveFiles(
  request: FastifyRequest,
  dir: string,
  limits: Pick<ImportLimits, 'maxFileBytes' | 'maxUploadBytes'>,
): Promise<{ files: { name: string; path: string }[]; topics: string[] }> {
  const topics: string[] = [];
  const files: { name: string; path: string }[] = [];
  let received = 0;
  let current = '';
  const tooLarge = () => fileError(ADMIN_MESSAGES.fileTooLarge(current, Math.round(limits.maxFileBytes / MB)));
  try {
    // preservePath: a folder upload names its files "course/01-intro.mp4", and the folder makes them one title
    for await (const part of request.parts({ preservePath: true, limits: { fileSize: limits.maxFileBytes, files: MAX_FILES, fields: 50, fieldSize: 64 * 1024 } })) {
      if (part.type === 'file') {
        current = part.filename || `file ${files.length + 1}`;
        const target = path.join(dir, String(files.length));
        const cap = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            received += chunk.byteLength;
            done(received > limits.maxUploadBytes ? new UploadTooLarge() : null, chunk);
          },
        });
        await pipeline(part.file, cap, fs.createWriteStream(target));
        if (part.file.truncated) throw tooLarge();
        files.push({ name: current, path: target });
      } else if (part.fieldname === 'topics' && typeof part.value === 'string') {
        topics.push(...part.value.split(',').map((t) => t.trim()).filter(Boolean));
      }
    }
  } catch (err) {
    if (err instanceof UploadTooLarge) throw fileError(ADMIN_MESSAGES.uploadTooLarge(Math.round(limits.maxUploadBytes / MB)));
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    if (code === 'FST_FILES_LIMIT') throw fileError(ADMIN_MESSAGES.tooManyFiles(MAX_FILES));
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') throw badRequest(ADMIN_MESSAGES.tooManyFields, { topics: [ADMIN_MESSAGES.tooManyFields] });
    if (isMalformedMultipart(err)) throw fileError(UPLOAD_BODY_MESSAGES.malformed);
    throw err;
  }
  if (files.length === 0) throw fileError(ADMIN_MESSAGES.noFiles);
  return { files, topics };
}
