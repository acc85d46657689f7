/**
 * The operators' console's actions on the command line (everything the console does is also in the CLI;
 * docs/decisions.md "Operators' console: the server side"), through the same services; each change is written to the
 * audit log as done by 'cli'.
 *   users:list [--q TEXT] [--role admin|content-creator|preview-creator|reader] [--status S]
 *   users:role --email E [--role R]...          (the whole set of roles; none makes a plain reader)
 *   users:status --email E --status trial|subscriber|expired|cancelled
 *   users:end-sessions --email E
 *   titles:list [--q TEXT] [--state active|retired|all]
 *   titles:edit <book_id> [--title T] [--author NAME]... [--description D] [--language TAG] [--publisher P]
 *               [--topic NAME]... [--pick true|false]
 *   titles:retire <book_id> | titles:restore <book_id>
 *   titles:cover <book_id> <file> | titles:scripts <book_id> on|off
 *   audit:list [--action A] [--actor EMAIL|cli] [--target-kind K] [--target-id ID] [--limit N]
 *   users:show --email E | users:send-reset --email E | titles:show <book_id> | health
 *   dashboard [--from DAY] [--to DAY]
 *   invoices:list [--unpaid | --state unpaid|paid|all] [--q EMAIL]
 *   teams:list [--q TEXT] | teams:show <team_id> | teams:seats <team_id> --seats N
 *   teams:owner <team_id> --email E | teams:remove-member <team_id> --email E
 *   promo:edit <code> [--limit N|none] [--expires ISO-DATE|none] | promo:redemptions <code>
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  ADMIN_COVER_LIMITS,
  adminAuditQuerySchema,
  adminDashboardQuerySchema,
  adminInvoicesQuerySchema,
  adminPageQuerySchema,
  adminPromotionCodePatchSchema,
  adminTeamsQuerySchema,
  adminTitlePatchSchema,
  adminTitlesQuerySchema,
  adminUserPatchSchema,
  adminUsersQuerySchema,
} from '@lectern/core';
import type { Services } from '../build-services.ts';
import { AppError } from '../errors.ts';
import { teamIdOf } from '../services/admin-selling.ts';

export const ADMIN_USAGE = `  users:list [--q TEXT] [--role admin|content-creator|preview-creator|reader] [--status S]
  users:role --email E [--role admin|content-creator|preview-creator]...   (the whole set; none: a plain reader)
  users:status --email E --status trial|subscriber|expired|cancelled
  users:end-sessions --email E
  titles:list [--q TEXT] [--state active|retired|all]
  titles:edit <book_id> [--title T] [--author NAME]... [--description D] [--language TAG] [--publisher P] [--topic NAME]... [--pick true|false]
  titles:retire <book_id> | titles:restore <book_id>   (out of the catalog and back; readers' notes and positions kept)
  titles:cover <book_id> <file>   (a JPEG, PNG or WebP as the title's cover)
  titles:scripts <book_id> on|off   (allow the title's scripts, as import --allow-scripts; needs SCRIPTED_ORIGIN)
  audit:list [--action A] [--actor EMAIL|cli] [--target-kind K] [--target-id ID] [--limit N]
  users:show --email E          (status, roles, trial end, team, sessions)
  users:send-reset --email E    (emails the account a link to choose a new password)
  titles:show <book_id>         (the title with its readers, minutes read and completion)
  health                        (version, database engine and size, content-store size, titles)
  dashboard [--from DAY] [--to DAY]   (the console's figures per day, default the last 30 days, and what led)
  invoices:list [--unpaid | --state unpaid|paid|all] [--q EMAIL]   (newest first; mark one paid with invoices:paid)
  teams:list [--q TEXT]         (name or owner's email; seats used of total)
  teams:show <team_id>          (the team with its members and when they joined)
  teams:seats <team_id> --seats N   (never below the seats in use; added seats of a live team are invoiced to its owner)
  teams:owner <team_id> --email E   (a member becomes the owner)
  teams:remove-member <team_id> --email E
  promo:edit <code> [--limit N|none] [--expires ISO-DATE|none]   (a limit never below the redemptions made)
  promo:redemptions <code>      (who redeemed it, newest first)`;

const needEmail = (command: string, email: string | undefined) => {
  if (!email) throw new AppError(400, `${command} needs --email`);
  return email;
};

const money = (cents: number, currency: string) => `${(cents / 100).toFixed(2)} ${currency}`;

/** `--limit N|none`, `--expires ISO|none`: undefined when not given, null for none. */
const orNone = <T,>(value: string | undefined, read: (v: string) => T): T | null | undefined => (value === undefined ? undefined : value === 'none' ? null : read(value));

const needTeam = (command: string, id: string | undefined) => {
  if (!id) throw new AppError(400, `${command} needs <team_id>`);
  return teamIdOf(id);
};

/** Runs one of the console's commands; null when `command` is not one of them. */
export async function runAdminCommand(command: string, rest: string[], services: Services): Promise<number | null> {
  const { audit, titles, users, selling } = services.admin;
  switch (command) {
    case 'invoices:list': {
      const { values } = parseArgs({ args: rest, options: { unpaid: { type: 'boolean' }, state: { type: 'string' }, q: { type: 'string' } } });
      let cursor: string | undefined;
      do {
        const page = await selling.invoices(adminInvoicesQuerySchema.parse({ state: values.unpaid ? 'unpaid' : values.state, q: values.q, cursor, limit: '200' }));
        for (const i of page.results) {
          const what = i.team ? `team ${i.team.name}, ${i.seats} seats` : i.plan;
          console.log(`${i.id}  ${i.created_at.slice(0, 10)}  ${i.status === 'open' ? 'UNPAID' : i.status}  ${money(i.amount_cents, i.currency)}  ${i.account.email}  ${what}${i.promotion_code ? `  code ${i.promotion_code}` : ''}`);
        }
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return 0;
    }
    case 'teams:list': {
      const { values } = parseArgs({ args: rest, options: { q: { type: 'string' } } });
      let cursor: string | undefined;
      do {
        const page = await selling.teamList(adminTeamsQuerySchema.parse({ q: values.q, cursor, limit: '200' }));
        for (const t of page.results) console.log(`${t.team_id}  "${t.name}"  ${t.owner?.email ?? 'no owner'}  ${t.seats_used}/${t.seats} seats used, ${t.members} members  ${t.status ?? 'no subscription'}`);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return 0;
    }
    case 'teams:show': {
      const t = await selling.team(needTeam(command, rest[0]));
      console.log(`${t.team_id}  "${t.name}"  owner ${t.owner?.email ?? 'none'}  ${t.plan ?? 'no plan'}, ${t.status ?? 'no subscription'}${t.subscription_ends_at ? ` until ${t.subscription_ends_at}` : ''}${t.live ? '' : ' (members do not read through it)'}`);
      console.log(`${t.seats_used} of ${t.seats} seats used: ${t.members} members, ${t.invitations.length} pending invitations`);
      for (const m of t.member_list) console.log(`  ${m.user_id}  ${m.email}${m.is_owner ? '  (owner)' : ''}  joined ${m.joined_at ?? 'unknown'}`);
      for (const i of t.invitations) console.log(`  invited ${i.email}  until ${i.expires_at}`);
      return 0;
    }
    case 'teams:seats': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { seats: { type: 'string' } } });
      const teamId = needTeam(command, positionals[0]);
      const { team, changed } = await selling.setSeats(teamId, { seats: values.seats === undefined ? undefined : Number(values.seats) });
      await audit.record('cli', { action: 'team.seats', target_kind: 'team', target_id: team.team_id, detail: { name: team.name, changed } }, null);
      console.log(`${team.name}: ${team.seats} seats (${team.seats_used} used)`);
      return 0;
    }
    case 'teams:owner':
    case 'teams:remove-member': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { email: { type: 'string' } } });
      const teamId = needTeam(command, positionals[0]);
      const member = await users.find(needEmail(command, values.email));
      if (command === 'teams:owner') {
        const { team, changed } = await selling.setOwner(teamId, member.uuid);
        await audit.record('cli', { action: 'team.owner', target_kind: 'team', target_id: team.team_id, detail: { name: team.name, changed } }, null);
        console.log(`${team.name}: owned by ${member.email}`);
      } else {
        const { team, email } = await selling.removeMember(teamId, member.uuid);
        await audit.record('cli', { action: 'team.remove-member', target_kind: 'team', target_id: team.team_id, detail: { name: team.name, member: email } }, null);
        console.log(`${team.name}: ${email} is no longer a member (${team.seats_used} of ${team.seats} seats used)`);
      }
      return 0;
    }
    case 'promo:edit': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { limit: { type: 'string' }, expires: { type: 'string' } } });
      if (!positionals[0]) throw new AppError(400, 'promo:edit needs <code>');
      const patch = adminPromotionCodePatchSchema.parse({
        usage_limit: orNone(values.limit, Number),
        // a day or a date and time, as promo:add takes it
        expires_at: orNone(values.expires, (v) => (Number.isNaN(Date.parse(v)) ? v : new Date(v).toISOString())),
      });
      const { code, changed } = await selling.editPromotionCode(positionals[0], patch);
      await audit.record('cli', { action: 'promotion-code.edit', target_kind: 'promotion-code', target_id: code.code, detail: { changed } }, null);
      console.log(`${code.code}: used ${code.used_count}${code.usage_limit === null ? ', no limit' : ` of ${code.usage_limit}`}, ${code.expires_at ? `ends ${code.expires_at}` : 'no end'}`);
      return 0;
    }
    case 'promo:redemptions': {
      if (!rest[0]) throw new AppError(400, 'promo:redemptions needs <code>');
      let cursor: string | undefined;
      do {
        const page = await selling.redemptions(rest[0], adminPageQuerySchema.parse({ cursor, limit: '200' }));
        for (const r of page.results) console.log(`${r.at}  ${r.account.email}  ${r.plan}  ${money(r.amount_cents, r.currency)}  invoice ${r.invoice_id}`);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return 0;
    }
    case 'users:list': {
      const { values } = parseArgs({ args: rest, options: { q: { type: 'string' }, role: { type: 'string' }, status: { type: 'string' } } });
      let cursor: string | undefined;
      do {
        const page = await users.list(adminUsersQuerySchema.parse({ ...values, cursor, limit: '200' }));
        for (const u of page.results) console.log(`${u.user_id}  ${u.email}  ${u.effective_status}${u.roles.length ? `  ${u.roles.join(',')}` : ''}`);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return 0;
    }
    case 'users:role': {
      const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, role: { type: 'string', multiple: true } } });
      const user = await users.find(needEmail(command, values.email));
      const patch = adminUserPatchSchema.parse({ roles: values.role ?? [] });
      const { changed } = await users.edit(user.uuid, patch, null);
      await audit.record('cli', { action: 'user.edit', target_kind: 'user', target_id: user.uuid, detail: { email: user.email, changed } }, null);
      console.log(`${user.email}: roles ${patch.roles!.length ? patch.roles!.join(', ') : 'none (a reader)'}`);
      return 0;
    }
    case 'users:status': {
      const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, status: { type: 'string' } } });
      const user = await users.find(needEmail(command, values.email));
      const { user: after, changed } = await users.edit(user.uuid, adminUserPatchSchema.parse({ status: values.status }), null);
      await audit.record('cli', { action: 'user.edit', target_kind: 'user', target_id: user.uuid, detail: { email: user.email, changed } }, null);
      console.log(`${user.email}: ${after.status}${after.status === 'trial' ? ` until ${after.trial_ends_at}` : ''}`);
      return 0;
    }
    case 'users:end-sessions': {
      const { values } = parseArgs({ args: rest, options: { email: { type: 'string' } } });
      const { user, ended } = await users.endSessions(needEmail(command, values.email));
      await audit.record('cli', { action: 'user.end-sessions', target_kind: 'user', target_id: user.uuid, detail: { email: user.email, ended } }, null);
      console.log(`${user.email}: ${ended} session${ended === 1 ? '' : 's'} ended`);
      return 0;
    }
    case 'titles:list': {
      const { values } = parseArgs({ args: rest, options: { q: { type: 'string' }, state: { type: 'string' } } });
      let cursor: string | undefined;
      do {
        const page = await titles.list(adminTitlesQuerySchema.parse({ ...values, cursor, limit: '200' }));
        for (const t of page.results) console.log(`${t.book_id}  "${t.title}"  ${t.authors.join(', ')}${t.retired_at ? '  (retired)' : ''}`);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return 0;
    }
    case 'titles:edit': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          title: { type: 'string' },
          author: { type: 'string', multiple: true },
          description: { type: 'string' },
          language: { type: 'string' },
          publisher: { type: 'string' },
          topic: { type: 'string', multiple: true },
          pick: { type: 'string' },
        },
      });
      const [bookId] = positionals;
      if (!bookId) throw new AppError(400, 'titles:edit needs <book_id>');
      if (values.pick !== undefined && values.pick !== 'true' && values.pick !== 'false') throw new AppError(400, '--pick must be true or false');
      const patch = adminTitlePatchSchema.parse({
        title: values.title,
        authors: values.author,
        description: values.description,
        language: values.language,
        publisher: values.publisher,
        topics: values.topic,
        editors_pick: values.pick === undefined ? undefined : values.pick === 'true',
      });
      // the command line edits what is there now: its version is the current one
      const current = await titles.detail(bookId);
      // a save between that read and this write is a 409 naming who made it, as the console's is
      const lastEditor = (id: string) => audit.lastActorOn('title', id);
      const { title, changed } = await titles.edit(bookId, patch, current.version, lastEditor);
      await audit.record('cli', { action: 'title.edit', target_kind: 'title', target_id: bookId, detail: { title: title.title, changed } }, null);
      console.log(`${bookId}: ${Object.keys(changed).length ? `changed ${Object.keys(changed).join(', ')}` : 'nothing changed'} (version ${title.version})`);
      return 0;
    }
    case 'titles:retire':
    case 'titles:restore': {
      const [bookId] = rest;
      if (!bookId) throw new AppError(400, `${command} needs <book_id>`);
      const title = command === 'titles:retire' ? await titles.retire(bookId) : await titles.restore(bookId);
      await audit.record('cli', { action: command === 'titles:retire' ? 'title.retire' : 'title.restore', target_kind: 'title', target_id: bookId, detail: { title: title.title } }, null);
      console.log(`${bookId} "${title.title}": ${title.retired_at ? 'retired (out of the catalog)' : 'back in the catalog'}`);
      return 0;
    }
    case 'titles:cover': {
      const [bookId, file] = rest;
      if (!bookId || !file) throw new AppError(400, 'titles:cover needs <book_id> <file>');
      const stat = await fs.stat(file).catch(() => null);
      if (!stat?.isFile()) throw new AppError(400, `titles:cover: no such file: ${file}`);
      // read no more than the cap allows (and one byte to know it is over)
      const handle = await fs.open(file, 'r');
      const bytes = Buffer.alloc(Math.min(stat.size, ADMIN_COVER_LIMITS.maxBytes + 1));
      await handle.read(bytes, 0, bytes.length, 0).finally(() => handle.close());
      const { title, width, height, media_type } = await titles.setCover(bookId, bytes);
      await audit.record('cli', { action: 'title.cover', target_kind: 'title', target_id: bookId, detail: { title: title.title, media_type, width, height, bytes: bytes.length } }, null);
      console.log(`${bookId} "${title.title}": cover set (${media_type}, ${width}×${height})`);
      return 0;
    }
    case 'titles:scripts': {
      const [bookId, onOff] = rest;
      if (!bookId || (onOff !== 'on' && onOff !== 'off')) throw new AppError(400, 'titles:scripts needs <book_id> on|off');
      const before = await titles.detail(bookId);
      const { title, changed } = await titles.setAllowScripts(bookId, onOff === 'on');
      if (changed) await audit.record('cli', { action: 'title.scripts', target_kind: 'title', target_id: bookId, detail: { title: title.title, allow_scripts: [before.allow_scripts, title.allow_scripts] } }, null);
      console.log(`${bookId} "${title.title}": scripts ${title.allow_scripts ? 'allowed' : 'not allowed'}${changed ? '' : ' (already)'}`);
      return 0;
    }
    case 'audit:list': {
      const { values } = parseArgs({
        args: rest,
        options: { action: { type: 'string' }, actor: { type: 'string' }, 'target-kind': { type: 'string' }, 'target-id': { type: 'string' }, limit: { type: 'string' } },
      });
      const page = await audit.list(
        adminAuditQuerySchema.parse({ action: values.action, actor: values.actor, target_kind: values['target-kind'], target_id: values['target-id'], limit: values.limit ?? '50' }),
      );
      for (const e of page.results) {
        console.log(`${e.at}  ${e.actor_label}  ${e.action}  ${e.target_kind}${e.target_id ? ` ${e.target_id}` : ''}${e.ip ? `  from ${e.ip}` : ''}  ${JSON.stringify(e.detail)}`);
      }
      return 0;
    }
    case 'users:show': {
      const { values } = parseArgs({ args: rest, options: { email: { type: 'string' } } });
      const u = await users.detail((await users.find(needEmail(command, values.email))).uuid);
      console.log(`${u.email} (${u.username}) uuid ${u.user_id}`);
      console.log(`status ${u.effective_status}${u.effective_status !== u.status ? ` (stored ${u.status})` : ''}${u.trial_ends_at ? `, trial ends ${u.trial_ends_at}` : ''}`);
      console.log(`roles ${u.roles.length ? u.roles.join(', ') : 'none (a reader)'}${u.plan ? `, plan ${u.plan}` : ''}${u.team ? `, team ${u.team.name} (${u.team.role})` : ''}`);
      console.log(`${u.sessions.length} session${u.sessions.length === 1 ? '' : 's'}`);
      for (const x of u.sessions) console.log(`  ${x.session_id}  since ${x.created_at}  ${x.user_agent ?? ''}`);
      return 0;
    }
    case 'users:send-reset': {
      const { values } = parseArgs({ args: rest, options: { email: { type: 'string' } } });
      const user = await users.sendPasswordReset((await users.find(needEmail(command, values.email))).uuid);
      await audit.record('cli', { action: 'user.password-reset', target_kind: 'user', target_id: user.uuid, detail: { email: user.email } }, null);
      console.log(`a link to choose a new password was sent to ${user.email}`);
      return 0;
    }
    case 'titles:show': {
      const [bookId] = rest;
      if (!bookId) throw new AppError(400, 'titles:show needs <book_id>');
      const t = await titles.detail(bookId);
      console.log(`${t.book_id}  "${t.title}"  ${t.authors.join(', ')}  (${t.content_format}, version ${t.version}${t.retired_at ? `, retired ${t.retired_at}` : ''})`);
      console.log(`${t.chapters} chapters; topics ${t.topics.map((x) => x.name).join(', ') || 'none'}; publisher ${t.publisher ?? 'none'}; editors' pick ${t.editors_pick ? 'yes' : 'no'}`);
      console.log(`${t.stats.readers} readers, ${t.stats.minutes_read} minutes read, ${t.stats.completed_readers} finished, completion ${Math.round(t.stats.completion * 100)}%`);
      return 0;
    }
    case 'health': {
      const h = await services.admin.dashboard.healthReport();
      const mb = (n: number | null) => (n === null ? 'unknown' : `${(n / 1024 / 1024).toFixed(1)} MB`);
      console.log(`Lectern ${h.version} on ${h.engine}: database ${mb(h.db_bytes)}, content store ${mb(h.content_store_bytes)}, ${h.titles} titles`);
      // the import queue, recent errors and scheduled jobs live in the server's process: its console's health page
      return 0;
    }
    case 'dashboard': {
      const { values } = parseArgs({ args: rest, options: { from: { type: 'string' }, to: { type: 'string' } } });
      const d = await services.admin.dashboard.dashboard(adminDashboardQuerySchema.parse(values));
      const cols = ['day', 'readers', 'minutes', 'new accounts', 'conversions', 'imports', 'refused'];
      console.log(cols.join('  '));
      for (const x of d.days) {
        const cells = [x.day, x.active_readers, x.minutes_read.toFixed(1), x.new_accounts, x.trial_conversions, x.imports, x.import_failures];
        console.log(cells.map((c, i) => String(c).padStart(cols[i]!.length)).join('  '));
      }
      const list = (label: string, items: string[]) => console.log(`${label}: ${items.length ? items.join('; ') : 'none'}`);
      list('most read titles', d.top_titles.map((t) => `${t.title} (${t.minutes_read} min, ${t.readers} readers)`));
      list('most read topics', d.top_topics.map((t) => `${t.name} (${t.minutes_read} min)`));
      list('searches that found nothing', d.empty_searches.map((q) => `"${q.query}" ×${q.count}`));
      list('refused imports', d.import_failures.map((f) => `${f.file}: ${f.reason}`));
      return 0;
    }
    default:
      return null;
  }
}

type AnyMethod = (...args: never[]) => Promise<unknown>;
const idOf = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);
const field = (v: unknown, k: string) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined);
const reportDetail = (r: unknown) => ({
  imported: ((field(r, 'imported') as Record<string, unknown>[] | undefined) ?? []).map((b) => ({ book_id: b.book_id, title: b.title })),
  failed: ((field(r, 'failed') as Record<string, unknown>[] | undefined) ?? []).map((f) => ({ file: f.file, reason: f.reason })),
});

/**
 * The older commands' changes go to the audit log too, as done by 'cli': the methods they call on this process's
 * services are wrapped so that each success writes its entry (the console's HTTP routes are audited by
 * plugins/admin-audit.ts instead; these services serve no HTTP here). A failed new edition is written with its
 * reason, as the console's refused uploads are.
 */
export function auditCommandLine(services: Services): void {
  const { audit } = services.admin;
  const wrap = <S extends object, K extends keyof S & string>(
    target: S,
    method: K,
    note: (args: unknown[], result: unknown) => { action: string; target_kind: string; target_id: string | null; detail?: Record<string, unknown> },
    onError?: (args: unknown[], err: unknown) => { action: string; target_kind: string; target_id: string | null; detail?: Record<string, unknown> },
  ) => {
    const original = (target[method] as unknown as AnyMethod).bind(target);
    (target as Record<string, unknown>)[method] = async (...args: never[]) => {
      let result: unknown;
      try {
        result = await original(...args);
      } catch (err) {
        if (onError) await audit.record('cli', onError(args, err), null);
        throw err;
      }
      await audit.record('cli', note(args, result), null);
      return result;
    };
  };
  wrap(services.importer, 'importPaths', (_a, r) => ({ action: 'import', target_kind: 'import', target_id: null, detail: reportDetail(r) }));
  wrap(
    services.importer,
    'replacePath',
    ([file, bookId], r) => ({ action: 'import.replace', target_kind: 'import', target_id: idOf(bookId), detail: { file, imported: [{ book_id: field(r, 'book_id'), title: field(r, 'title') }], failed: [] } }),
    ([file, bookId], err) => ({ action: 'import.replace', target_kind: 'import', target_id: idOf(bookId), detail: { imported: [], failed: [{ file, reason: err instanceof Error ? err.message : String(err) }] } }),
  );
  wrap(services.flags, 'set', ([bookId, path, flags]) => ({ action: 'chapter.flags', target_kind: 'chapter', target_id: `${bookId}/${path}`, detail: flags as Record<string, unknown> }));
  wrap(services.subscriptions, 'setPlan', ([input]) => ({ action: 'plan.set', target_kind: 'plan', target_id: idOf(field(input, 'slug')), detail: input as Record<string, unknown> }));
  wrap(services.subscriptions, 'addPromotionCode', ([input], r) => ({ action: 'promotion-code.create', target_kind: 'promotion-code', target_id: idOf(field(r, 'code')) ?? idOf(field(input, 'code')), detail: input as Record<string, unknown> }));
  wrap(services.subscriptions, 'markInvoicePaid', ([id]) => ({ action: 'invoice.paid', target_kind: 'invoice', target_id: idOf(id), detail: {} }));
  wrap(services.home, 'setEditorsPicks', ([bookIds]) => ({ action: 'editors-picks.set', target_kind: 'editors-picks', target_id: null, detail: { book_ids: bookIds } }));
  wrap(services.home, 'addAnnouncement', ([input], r) => ({ action: 'announcement.create', target_kind: 'announcement', target_id: idOf(field(r, 'id')), detail: input as Record<string, unknown> }));
  wrap(services.home, 'removeAnnouncement', ([id]) => ({ action: 'announcement.remove', target_kind: 'announcement', target_id: idOf(id), detail: {} }));
  wrap(services.live, 'addCourse', ([input], r) => ({ action: 'live-course.create', target_kind: 'live-course', target_id: idOf(field(r, 'course_id')), detail: input as Record<string, unknown> }));
  wrap(services.live, 'addEvent', ([courseId, input]) => ({ action: 'live-event.create', target_kind: 'live-event', target_id: null, detail: { course_id: courseId, ...(input as object) } }));
  wrap(services.live, 'removeCourse', ([id]) => ({ action: 'live-course.remove', target_kind: 'live-course', target_id: idOf(id), detail: {} }));
  wrap(services.live, 'removeEvent', ([id]) => ({ action: 'live-event.remove', target_kind: 'live-event', target_id: idOf(id), detail: {} }));
  wrap(services.accounts, 'createUser', ([input], r) => ({
    action: 'user.create',
    target_kind: 'user',
    target_id: idOf(field(r, 'uuid')),
    detail: { email: field(r, 'email'), role: field(input, 'role') ?? null, status: field(r, 'status'), team: field(input, 'team') ?? null },
  }));
  wrap(services.accounts, 'resetPassword', ([email], r) => ({ action: 'user.password-set', target_kind: 'user', target_id: idOf(field(r, 'uuid')), detail: { email: field(r, 'email') ?? email } }));
}
