/**
 * Every admin action that changed something is written to the audit log (docs/decisions.md "Operators' console: the
 * server side"), in one place rather than in each route: an onSend hook on the unsafe admin routes (`/api/v1/admin/`,
 * `/api/v2/admin/`). It runs after the action's transaction has committed and before the answer leaves (a client that
 * has its answer can read the entry). The console's routes set `request.audit` as soon as their change commits: that is
 * written whatever the status (a 5xx from work after the commit still leaves its entry). The older routes are described
 * here from their address, parameters, body and answer, for a 2xx only: they cannot tell a failure after their commit
 * from one before. Other refusals change nothing and are not written, except an import whose every file was refused:
 * the refusals are what the dashboard's import failures show.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { AppError } from '../errors.ts';
import type { AuditLog, AuditNote } from '../services/admin-audit.ts';
import type { RecentErrors } from '../services/admin-dashboard.ts';
import { currentUser } from './auth-context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** what this admin request did, when the route says it itself */
    audit: AuditNote | null;
    /** what an older route adds to the entry described from its address (the import's topics) */
    auditDetail: Record<string, unknown> | null;
  }
}

const ADMIN_ROUTE = /^\/api\/v[12]\/admin\//;
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export function registerAdminAudit(app: FastifyInstance, audit: AuditLog, errors?: RecentErrors): void {
  app.decorateRequest('audit', null);
  app.decorateRequest('auditDetail', null);
  // Callback style with the common case leaving at once: as an async hook it cost every request of every route
  // (the reader's chapter request, the playlists' 304s) a promise and a microtask hop for nothing.
  app.addHook('onSend', (request, reply, payload, done) => {
    // request.routeOptions makes an object of a dozen fields at each read: read only where an admin route can
    // have matched, an address naming it or percent-encoded (the router decodes before it matches)
    if (SAFE.has(request.method) || !(request.url.includes('admin') || request.url.includes('%'))) return done(null, payload);
    const url = request.routeOptions.url;
    if (!url || !ADMIN_ROUTE.test(url)) return done(null, payload);
    record(request, reply, url, payload).then(() => done(null, payload), done);
  });

  async function record(request: FastifyRequest, reply: FastifyReply, url: string, payload: unknown): Promise<void> {
    const answer = jsonOf(payload);
    const refusedImport = reply.statusCode === 400 && url === '/api/v1/admin/import/' && Array.isArray((answer as { failed?: unknown })?.failed);
    if (!request.audit && reply.statusCode >= 300 && !refusedImport) return;
    const user = await currentUser(request);
    if (!user) return;
    const note = request.audit ?? describe(request, reply, url, answer);
    const write = () => audit.record({ id: user.id, uuid: user.uuid, email: user.email }, note, request.ip);
    try {
      // once more on failure (a busy database); the action has committed, so answering a failure would mislead
      await write().catch(write);
    } catch (err) {
      // a lost entry is logged and shown on the console's health page (its last errors), not hidden in the log
      request.log.error({ err, audit: note }, 'writing the audit entry failed');
      errors?.note({ method: request.method, url: request.url, status: 500, message: `audit entry lost (${note.action} ${note.target_id ?? ''}): ${(err as Error).message}`.slice(0, 500) });
    }
  }
}

function jsonOf(payload: unknown): unknown {
  if (typeof payload !== 'string') return null;
  try {
    return JSON.parse(payload);
  } catch {
    return null;
  }
}

type Params = Record<string, string | undefined>;
const idOf = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);

/** The older admin routes, described from their address (the console's own routes set request.audit). */
function describe(request: FastifyRequest, _reply: FastifyReply, url: string, answer: unknown): AuditNote {
  const p = (request.params ?? {}) as Params;
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
  const a = (answer && typeof answer === 'object' ? answer : {}) as Record<string, unknown>;
  const key = `${request.method} ${url}`;
  switch (key) {
    case 'POST /api/v1/admin/import/': {
      const replace = idOf((request.query as Params | undefined)?.replace);
      const imported = Array.isArray(a.imported) ? (a.imported as Record<string, unknown>[]).map((b) => ({ book_id: b.book_id, title: b.title })) : [];
      const failed = Array.isArray(a.failed) ? (a.failed as Record<string, unknown>[]).map((f) => ({ file: f.file, reason: f.reason })) : [];
      return { action: replace ? 'import.replace' : 'import', target_kind: 'import', target_id: replace, detail: { imported, failed, ...request.auditDetail } };
    }
    case 'PATCH /api/v1/admin/book/:bookId/chapter/*':
      return { action: 'chapter.flags', target_kind: 'chapter', target_id: `${p.bookId}/${p['*']}`, detail: body };
    case 'PUT /api/v2/admin/plans/:slug/':
      return { action: 'plan.set', target_kind: 'plan', target_id: p.slug ?? null, detail: body };
    case 'POST /api/v2/admin/promotion-codes/':
      return { action: 'promotion-code.create', target_kind: 'promotion-code', target_id: idOf(a.code) ?? idOf(body.code), detail: body }; // the code as stored (trimmed, lower case)
    case 'POST /api/v2/admin/invoices/:id/paid/':
      return { action: 'invoice.paid', target_kind: 'invoice', target_id: p.id ?? null, detail: {} };
    case 'PUT /api/v2/admin/editors-picks/':
      return { action: 'editors-picks.set', target_kind: 'editors-picks', target_id: null, detail: body };
    case 'POST /api/v2/admin/announcements/':
      return { action: 'announcement.create', target_kind: 'announcement', target_id: idOf(a.id), detail: body };
    case 'DELETE /api/v2/admin/announcements/:id/':
      return { action: 'announcement.remove', target_kind: 'announcement', target_id: p.id ?? null, detail: {} };
    case 'POST /api/v1/admin/live-training/courses/':
      return { action: 'live-course.create', target_kind: 'live-course', target_id: idOf(a.course_id) ?? idOf(a.id), detail: body };
    case 'DELETE /api/v1/admin/live-training/courses/:id/':
      return { action: 'live-course.remove', target_kind: 'live-course', target_id: p.id ?? null, detail: {} };
    case 'POST /api/v1/admin/live-training/courses/:id/events/':
      return { action: 'live-event.create', target_kind: 'live-event', target_id: idOf(a.event_id) ?? idOf(a.id), detail: { course_id: p.id, ...body } };
    case 'DELETE /api/v1/admin/live-training/events/:id/':
      return { action: 'live-event.remove', target_kind: 'live-event', target_id: p.id ?? null, detail: {} };
    case 'PUT /api/v2/admin/transformation-playlists/:id/':
      return { action: 'transformation-playlist.publish', target_kind: 'transformation-playlist', target_id: p.id ?? null, detail: body };
    case 'DELETE /api/v2/admin/transformation-playlists/:id/':
      return { action: 'transformation-playlist.unpublish', target_kind: 'transformation-playlist', target_id: p.id ?? null, detail: {} };
    default: {
      // a route added later without its own note is still written, named by its method and address
      const kind = url.replace(ADMIN_ROUTE, '').split('/')[0] || 'admin';
      return { action: `${request.method.toLowerCase()} ${url}`, target_kind: kind, target_id: idOf(Object.values(p)[0]), detail: body };
    }
  }
}

/** Server errors (what the error handler answers as a 500) are kept for the console's health page. */
export function registerRecentErrors(app: FastifyInstance, errors: RecentErrors): void {
  app.addHook('onError', async (request, _reply, err) => {
    if (err instanceof AppError || err instanceof ZodError) return;
    const status = typeof (err as { statusCode?: unknown }).statusCode === 'number' ? (err as { statusCode: number }).statusCode : 500;
    if (status < 500) return;
    errors.note({ method: request.method, url: request.url, status, message: err.message.slice(0, 500) });
  });
}
