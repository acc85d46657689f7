/** Operators' endpoints (admins only): upload files to import, set chapter flags. */
import { APP_MESSAGES, chapterFlagsSchema } from '@lectern/core';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest } from '../errors.ts';
import { assertAdmin } from '../policies/reading.ts';
import { currentUser } from '../plugins/auth-context.ts';
import type { ChapterFlagsService } from '../services/chapter-flags.ts';
import { type ImportService, reasonOf } from '../services/import.ts';

const MAX_UPLOAD_BYTES = 500 * 1024 * 1024;
const chapterParams = z.object({ bookId: z.string().min(1).max(200), '*': z.string().min(1).max(1000) });

export function adminRoutes(app: FastifyInstance, deps: { importer: ImportService; flags: ChapterFlagsService }): void {
  /** multipart: one or more `file` parts, optional `topics` fields (slugs); answers the import report. */
  app.post('/api/v1/admin/import/', async (request, reply) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    if (!request.isMultipart()) throw badRequest('Send the files as multipart/form-data.', { file: ['Send the files as multipart/form-data.'] });
    const topics: string[] = [];
    const files: { name: string; data: Uint8Array }[] = [];
    for await (const part of request.parts({ limits: { fileSize: MAX_UPLOAD_BYTES, files: 20 } })) {
      if (part.type === 'file') {
        const data = await part.toBuffer();
        if (part.file.truncated) throw badRequest(`${part.filename} is larger than 500 MB.`, { file: [`${part.filename} is larger than 500 MB.`] });
        files.push({ name: part.filename, data: new Uint8Array(data) });
      } else if (part.fieldname === 'topics' && typeof part.value === 'string') {
        topics.push(...part.value.split(',').map((t) => t.trim()).filter(Boolean));
      }
    }
    if (files.length === 0) throw badRequest('Attach at least one EPUB or PDF file.', { file: ['Attach at least one EPUB or PDF file.'] });
    const report = { imported: [] as Awaited<ReturnType<ImportService['importBytes']>>[], failed: [] as { file: string; reason: string }[] };
    for (const f of files) {
      try {
        report.imported.push(await deps.importer.importBytes(f.data, f.name, { topics, origin: `upload ${f.name}` }));
      } catch (err) {
        report.failed.push({ file: f.name, reason: reasonOf(err) });
      }
    }
    return reply.status(report.imported.length ? 201 : 400).send(
      report.imported.length ? report : { detail: report.failed.map((f) => `${f.file}: ${f.reason}`).join('; '), errors: { file: report.failed.map((f) => `${f.file}: ${f.reason}`) }, ...report },
    );
  });

  app.patch('/api/v1/admin/book/:bookId/chapter/*', async (request) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
    const { bookId, '*': fullPath } = chapterParams.parse(request.params);
    return deps.flags.set(bookId, fullPath, chapterFlagsSchema.parse(request.body ?? {}));
  });
}
