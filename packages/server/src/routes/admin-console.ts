/**
 * The operators' console API (docs/decisions.md "Operators' console: the server side"; contract in core/admin.ts):
 * audit log, titles, people, dashboard, health. Admins only, but for the titles, which content creators may use too
 * (not their readers' list: emails and ids are for admins). Every unsafe call here sets `request.audit` with what it
 * changed, as soon as the change is committed; plugins/admin-audit.ts writes it whatever the answer then turns out to
 * be.
 */
import {
  ADMIN_CONSOLE_MESSAGES as M,
  adminAuditQuerySchema,
  adminDashboardQuerySchema,
  adminPageQuerySchema,
  adminPaths,
  ADMIN_COVER_LIMITS,
  adminNamesQuerySchema,
  adminTitlePatchSchema,
  adminTitleScriptsSchema,
  adminTitlesQuerySchema,
  adminUserCreateSchema,
  adminUserPatchSchema,
  adminUsersQuerySchema,
  APP_MESSAGES,
} from '@lectern/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, fieldError } from '../errors.ts';
import { assertAdmin, assertContentRole } from '../policies/admin.ts';
import { currentUser } from '../plugins/auth-context.ts';
import type { AuditLog } from '../services/admin-audit.ts';
import type { AdminDashboardService } from '../services/admin-dashboard.ts';
import { TitleConflict, type AdminTitlesService } from '../services/admin-titles.ts';
import type { AdminUsersService } from '../services/admin-users.ts';

const bookParams = z.object({ bookId: z.string().min(1).max(200) });
const userParams = z.object({ userId: z.string().min(1).max(64) });

/** If-Match: "3", W/"3" or 3; undefined when absent; a 400 naming version when it is something else. */
function ifMatchVersion(request: FastifyRequest): number | undefined {
  const header = request.headers['if-match'];
  if (header === undefined) return undefined;
  const m = /^\s*(?:W\/)?"?([1-9][0-9]{0,9})"?\s*$/.exec(String(header));
  if (!m) throw fieldError('version', M.versionMissing);
  return Number(m[1]);
}

export function adminConsoleRoutes(
  app: FastifyInstance,
  deps: { audit: AuditLog; titles: AdminTitlesService; users: AdminUsersService; dashboard: AdminDashboardService },
): void {
  const admin = async (request: FastifyRequest) => {
    const user = await currentUser(request);
    assertAdmin(user, APP_MESSAGES.adminOnly);
    return user!;
  };
  const content = async (request: FastifyRequest) => {
    const user = await currentUser(request);
    assertContentRole(user);
    return user!;
  };
  /** who changed the title last, by whatever action (the 409 names them) */
  const lastEditor = (bookId: string) => deps.audit.lastActorOn('title', bookId);

  // ---- audit log
  app.get(adminPaths.audit(), async (request) => {
    await admin(request);
    return deps.audit.list(adminAuditQuerySchema.parse(request.query ?? {}));
  });

  // ---- titles (content creators too)
  app.get(adminPaths.titles(), async (request) => {
    await content(request);
    return deps.titles.list(adminTitlesQuerySchema.parse(request.query ?? {}));
  });

  // the title editor's suggestions (content creators too)
  app.get(adminPaths.names(), async (request) => {
    await content(request);
    return deps.titles.names(adminNamesQuerySchema.parse(request.query ?? {}));
  });

  app.get('/api/v1/admin/titles/:bookId/', async (request, reply) => {
    await content(request);
    const detail = await deps.titles.detail(bookParams.parse(request.params).bookId);
    reply.header('etag', `"${detail.version}"`).header('cache-control', 'private, no-cache');
    return detail;
  });

  app.patch('/api/v1/admin/titles/:bookId/', async (request, reply) => {
    await content(request);
    const { bookId } = bookParams.parse(request.params);
    const patch = adminTitlePatchSchema.parse(request.body ?? {});
    const version = patch.version ?? ifMatchVersion(request);
    try {
      const { title, changed } = await deps.titles.edit(bookId, patch, version, lastEditor, (t) => {
        // committed: the entry stands even if what follows fails (the fields' changes are added below)
        request.audit = { action: 'title.edit', target_kind: 'title', target_id: bookId, detail: { title: patch.title ?? t.title } };
      });
      request.audit = { action: 'title.edit', target_kind: 'title', target_id: bookId, detail: { title: title.title, changed } };
      reply.header('etag', `"${title.version}"`);
      return title;
    } catch (err) {
      if (err instanceof TitleConflict) return reply.status(409).send({ detail: err.detail, current: err.current });
      throw err;
    }
  });

  app.post('/api/v1/admin/titles/:bookId/retire/', async (request) => {
    await content(request);
    const { bookId } = bookParams.parse(request.params);
    const title = await deps.titles.retire(bookId, (t) => {
      request.audit = { action: 'title.retire', target_kind: 'title', target_id: bookId, detail: { title: t.title } };
    });
    request.audit = { action: 'title.retire', target_kind: 'title', target_id: bookId, detail: { title: title.title } };
    return title;
  });

  app.post('/api/v1/admin/titles/:bookId/restore/', async (request) => {
    await content(request);
    const { bookId } = bookParams.parse(request.params);
    const title = await deps.titles.restore(bookId, (t) => {
      request.audit = { action: 'title.restore', target_kind: 'title', target_id: bookId, detail: { title: t.title } };
    });
    request.audit = { action: 'title.restore', target_kind: 'title', target_id: bookId, detail: { title: title.title } };
    return title;
  });

  app.get('/api/v1/admin/titles/:bookId/warnings/', async (request, reply) => {
    await content(request);
    reply.header('cache-control', 'private, no-cache');
    return deps.titles.warnings(bookParams.parse(request.params).bookId);
  });

  app.put('/api/v1/admin/titles/:bookId/scripts/', async (request) => {
    await content(request);
    const { bookId } = bookParams.parse(request.params);
    const { allow_scripts } = adminTitleScriptsSchema.parse(request.body ?? {});
    const { title } = await deps.titles.setAllowScripts(bookId, allow_scripts, (t) => {
      request.audit = { action: 'title.scripts', target_kind: 'title', target_id: bookId, detail: { title: t.title, allow_scripts: [t.allow_scripts === 1, allow_scripts] } };
    });
    return title;
  });

  // Readers' emails and account ids: admins only (a content creator sees the detail's totals)
  app.get('/api/v1/admin/titles/:bookId/readers/', async (request) => {
    await admin(request);
    return deps.titles.readers(bookParams.parse(request.params).bookId, adminPageQuerySchema.parse(request.query ?? {}));
  });

  // ---- people
  app.get(adminPaths.users(), async (request) => {
    await admin(request);
    return deps.users.list(adminUsersQuerySchema.parse(request.query ?? {}));
  });

  app.post(adminPaths.users(), async (request, reply) => {
    await admin(request);
    const input = adminUserCreateSchema.parse(request.body ?? {});
    const user = await deps.users.create(input);
    request.audit = { action: 'user.create', target_kind: 'user', target_id: user.user_id, detail: { email: user.email, roles: user.roles, status: user.status } };
    return reply.status(201).send(user);
  });

  app.get('/api/v1/admin/users/:userId/', async (request) => {
    await admin(request);
    return deps.users.detail(userParams.parse(request.params).userId);
  });

  app.patch('/api/v1/admin/users/:userId/', async (request) => {
    const actor = await admin(request);
    const { userId } = userParams.parse(request.params);
    const { user, changed } = await deps.users.edit(userId, adminUserPatchSchema.parse(request.body ?? {}), actor.id, (u) => {
      request.audit = { action: 'user.edit', target_kind: 'user', target_id: u.uuid, detail: { email: u.email } };
    });
    request.audit = { action: 'user.edit', target_kind: 'user', target_id: user.user_id, detail: { email: user.email, changed } };
    return user;
  });

  app.post('/api/v1/admin/users/:userId/password-reset/', async (request, reply) => {
    await admin(request);
    const user = await deps.users.sendPasswordReset(userParams.parse(request.params).userId);
    request.audit = { action: 'user.password-reset', target_kind: 'user', target_id: user.uuid, detail: { email: user.email } };
    return reply.status(202).send({ sent: true });
  });

  app.post('/api/v1/admin/users/:userId/end-sessions/', async (request) => {
    await admin(request);
    const { user, ended } = await deps.users.endSessions(userParams.parse(request.params).userId);
    request.audit = { action: 'user.end-sessions', target_kind: 'user', target_id: user.uuid, detail: { email: user.email, ended } };
    return { ended };
  });

  // ---- dashboard and health
  app.get(adminPaths.dashboard(), async (request, reply) => {
    await admin(request);
    reply.header('cache-control', 'private, no-cache');
    return deps.dashboard.dashboard(adminDashboardQuerySchema.parse(request.query ?? {}));
  });

  app.get(adminPaths.health(), async (request, reply) => {
    await admin(request);
    reply.header('cache-control', 'private, no-cache');
    return deps.dashboard.healthReport();
  });
}

/**
 * The title's cover upload: multipart, so it is registered where multipart is (app.ts's uploads scope). One `file`
 * part read into memory under the cover's byte cap (5 MB), then checked as hostile input by the service.
 */
export function adminCoverRoute(app: FastifyInstance, deps: { titles: AdminTitlesService }): void {
  app.put('/api/v1/admin/titles/:bookId/cover/', async (request) => {
    const user = await currentUser(request);
    assertContentRole(user);
    const { bookId } = bookParams.parse(request.params);
    await deps.titles.detail(bookId); // 404 before reading a body for a title that is not there
    if (!request.isMultipart()) throw fieldError('file', M.coverMissing);
    let bytes: Buffer;
    try {
      const part = await request.file({ limits: { fileSize: ADMIN_COVER_LIMITS.maxBytes, files: 1, fields: 0, parts: 2 } });
      if (!part || part.fieldname !== 'file') throw fieldError('file', M.coverMissing);
      bytes = await part.toBuffer();
    } catch (err) {
      if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw fieldError('file', M.coverTooLarge(ADMIN_COVER_LIMITS.maxBytes / (1024 * 1024)));
      if (err instanceof AppError) throw err;
      // the parser's own complaints (no boundary, a malformed part, too many parts) are the request's fault
      if ((err as { code?: string }).code?.startsWith('FST_') || /multipart|boundary|malformed|part/i.test((err as Error).message)) throw fieldError('file', M.coverMissing);
      throw err;
    }
    const { title, width, height, media_type } = await deps.titles.setCover(bookId, bytes, (t) => {
      request.audit = { action: 'title.cover', target_kind: 'title', target_id: bookId, detail: { title: t.title } };
    });
    request.audit = { action: 'title.cover', target_kind: 'title', target_id: bookId, detail: { title: title.title, media_type, width, height, bytes: bytes.length } };
    return title;
  });
}
