/**
 * The operators' audit log (docs/decisions.md "Operators' console: the server side"): every admin action that changed
 * something is one entry, whether it came from the console, the API or the command line. HTTP actions are written by
 * plugins/admin-audit.ts before the answer leaves (so a client that has its answer can read the entry); the command
 * line calls `record` with actor 'cli'.
 */
import { type AdminAuditQuery, ADMIN_CONSOLE_MESSAGES as M, ADMIN_PAGE_SIZE, type AuditEntry, type AuditPage } from '@lectern/core';
import type { AuditLogRow } from '../db/schema.ts';
import { fieldError } from '../errors.ts';
import type { AuditRepository } from '../repositories/audit.ts';
import { dayOrInstant } from './admin-range.ts';

export interface AuditActor {
  id: number;
  uuid: string;
  email: string;
}

export interface AuditNote {
  action: string;
  target_kind: string;
  target_id: string | null;
  detail?: Record<string, unknown>;
}

/** Keys whose values never go into the log. */
const SECRET_KEY = /password|token|secret|cookie/i;

/** The detail without secrets, and bounded: a long text is cut (the log is for people, not a backup). */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > 500 ? `${value.slice(0, 500)}…` : value;
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    if (depth > 4) return '…';
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '(hidden)' : redact(v, depth + 1);
    return out;
  }
  return value;
}

export class AuditLog {
  constructor(
    private readonly repo: AuditRepository,
    /** who each actor id is now (for the entry's actor link); null when the account is gone */
    private readonly uuidOf: (ids: number[]) => Promise<Map<number, string>>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(actor: AuditActor | 'cli', note: AuditNote, ip: string | null): Promise<void> {
    await this.repo.insert({
      at: this.now().toISOString(),
      actor_id: actor === 'cli' ? null : actor.id,
      actor_label: actor === 'cli' ? 'cli' : actor.email,
      action: note.action,
      target_kind: note.target_kind,
      target_id: note.target_id,
      detail: JSON.stringify(redact(note.detail ?? {})),
      ip,
    });
  }

  async list(q: AdminAuditQuery): Promise<AuditPage> {
    const limit = q.limit ?? ADMIN_PAGE_SIZE.default;
    let beforeId: number | undefined;
    if (q.cursor !== undefined) {
      if (!/^[1-9][0-9]{0,15}$/.test(q.cursor)) throw fieldError('cursor', M.cursorShape);
      beforeId = Number(q.cursor);
    }
    const rows = await this.repo.list({
      actorLabel: q.actor?.toLowerCase() === 'cli' ? 'cli' : q.actor?.toLowerCase(),
      action: q.action,
      targetKind: q.target_kind,
      targetId: q.target_id,
      from: q.from !== undefined ? dayOrInstant(q.from, 'start') : undefined,
      to: q.to !== undefined ? dayOrInstant(q.to, 'end') : undefined,
      beforeId,
      limit,
    });
    const page = rows.slice(0, limit);
    const uuids = await this.uuidOf([...new Set(page.flatMap((r) => (r.actor_id === null ? [] : [r.actor_id])))]);
    return {
      results: page.map((r) => toEntry(r, uuids)),
      next_cursor: rows.length > limit ? String(page[page.length - 1]!.id) : null,
    };
  }

  /** Who last changed this target, by any action (an edit, a retire, a new edition's import): the 409's name. */
  async lastActorOn(targetKind: string, targetId: string): Promise<string | null> {
    const [row] = await this.repo.list({ targetKind, targetId, limit: 1 });
    return row?.actor_label ?? null;
  }

  /** The dashboard's refused files: import entries of [from, to), newest first. */
  importEntries(from: string, to: string, limit: number): Promise<AuditLogRow[]> {
    return this.repo.ofActions(['import', 'import.replace'], from, to, limit);
  }
}

function toEntry(r: AuditLogRow, uuids: Map<number, string>): AuditEntry {
  const uuid = r.actor_id === null ? undefined : uuids.get(r.actor_id);
  return {
    id: String(r.id),
    at: r.at,
    actor: uuid ? { user_id: uuid, email: r.actor_label } : null,
    actor_label: r.actor_label,
    action: r.action,
    target_kind: r.target_kind,
    target_id: r.target_id,
    detail: parseDetail(r.detail),
    ip: r.ip,
  };
}

export function parseDetail(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
