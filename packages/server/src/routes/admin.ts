/** Operators' endpoints (admins only): upload files to import, set chapter flags. */
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { APP_MESSAGES, chapterFlagsSchema, type ImportReport } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest } from '../errors.ts';
import { assertAdmin } from '../policies/reading.ts';
import { currentUser } from '../plugins/auth-context.ts';
import type { ChapterFlagsService } from '../services/chapter-flags.ts';
import { type ImportService, reasonOf } from '../services/import.ts';

const MB = 1024 * 1024;
const MAX_FILES = 20;
const chapterParams = z.object({ bookId: z.string().min(1).max(200), '*': z.string().min(1).max(1000) });

const fileError = (message: string) => badRequest(message, { file: [message] });

export function adminRoutes(app: FastifyInstance, deps: { importer: ImportService; flags: ChapterFlagsService }): void {
  /**
   * multipart: one or more `file` parts, optional `topics` fields (slugs); answers the import report once every
   * file has been through its worker. Each file streams to a temporary file under a per-file and a per-request
   * byte cap (never a buffer of the whole upload); the folder goes when the request ends, whatever happened.
   */
  app.post('/api/v1/admin/import/', async (request, reply) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    if (!request.isMultipart()) throw fileError('Send the files as multipart/form-data.');
    const { maxFileBytes, maxUploadBytes } = deps.importer.limits;
    const topics: string[] = [];
    const files: { name: string; path: string }[] = [];
    const upload = await deps.importer.beginUpload();
    try {
      let received = 0;
      const parts = request.parts({ limits: { fileSize: maxFileBytes, files: MAX_FILES, fields: 50, fieldSize: 64 * 1024 } });
      try {
        for await (const part of parts) {
          if (part.type === 'file') {
            const target = path.join(upload.dir, String(files.length));
            const name = part.filename || `file ${files.length + 1}`;
            // Counts what the whole request has sent so far; busboy's fileSize caps each file on its own.
            const cap = new Transform({
              transform(chunk: Buffer, _encoding, done) {
                received += chunk.byteLength;
                if (received > maxUploadBytes) done(new UploadTooLarge());
                else done(null, chunk);
              },
            });
            try {
              await pipeline(part.file, cap, fs.createWriteStream(target));
            } catch (err) {
              if (err instanceof UploadTooLarge) {
                throw fileError(`The files together are larger than ${Math.round(maxUploadBytes / MB)} MB, the limit for one upload.`);
              }
              if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE' || part.file.truncated) {
                throw fileError(`${name} is larger than ${Math.round(maxFileBytes / MB)} MB, the limit for one file.`);
              }
              throw err;
            }
            files.push({ name, path: target });
          } else if (part.fieldname === 'topics' && typeof part.value === 'string') {
            topics.push(...part.value.split(',').map((t) => t.trim()).filter(Boolean));
          }
        }
      } catch (err) {
        if ((err as { code?: string }).code === 'FST_FILES_LIMIT') throw fileError(`Send at most ${MAX_FILES} files at once.`);
        throw err;
      }
      if (files.length === 0) throw fileError('Attach at least one EPUB or PDF file.');
      const report: ImportReport = { imported: [], failed: [] };
      for (const f of files) {
        try {
          report.imported.push(await deps.importer.importFile(f.path, f.name, { topics, origin: `upload ${f.name}` }));
        } catch (err) {
          report.failed.push({ file: f.name, reason: reasonOf(err) });
        }
      }
      return reply.status(report.imported.length ? 201 : 400).send(
        report.imported.length ? report : { detail: report.failed.map((f) => `${f.file}: ${f.reason}`).join('; '), errors: { file: report.failed.map((f) => `${f.file}: ${f.reason}`) }, ...report },
      );
    } finally {
      await upload.remove();
    }
  });

  app.patch('/api/v1/admin/book/:bookId/chapter/*', async (request) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    const { bookId, '*': fullPath } = chapterParams.parse(request.params);
    return deps.flags.set(bookId, fullPath, chapterFlagsSchema.parse(request.body ?? {}));
  });
}

class UploadTooLarge extends Error {}
