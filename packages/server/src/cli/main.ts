/**
 * The operators' command line: `npm run lectern -- <command>`.
 *   users:create --email E (--password P | --password-stdin) [--role admin|content-creator|preview-creator] [--status trial|subscriber|expired|cancelled] [--team NAME]
 *   users:reset-password --email E [--password-stdin]      (asks for it in a terminal)
 *   import <file-or-folder>... [--topic slug]... [--allow-scripts]   (books, media files, media folders, lectern-media.json)
 *   import <file> --replace <book_id> [--topic slug]...      (a new edition of that title, keeping its book id; a
 *                                                            media title's file or folder)
 *   library:sample [--with-debian]
 *   chapters:flag <book_id> <chapter_path> [--sample true|false] [--public true|false]
 *   plans:set <basic|pro> --name N --price CENTS --currency USD --period month|year
 *   promo:add <code> (--percent N | --fixed CENTS) [--plan basic|pro] [--expires ISO-DATE] [--limit N] [--sale]
 *   promo:list
 *   invoices:paid <invoice id>
 *   picks:set <book_id>...                                 (the home's editors' picks, in this order; none clears them)
 *   picks:list
 *   announce:add --message TEXT [--url /path-or-https] [--until ISO-DATE]
 *   announce:list
 *   newsletter:send [--now]                                  (the newsletter's job: sends when due; --now: an issue now)
 *   announce:remove <id>
 *   live:course-add --title T [--slug S] [--description D] [--image /path-or-https] [--topic NAME]...
 *   live:event-add <course_id> --start ISO-DATETIME (--end ISO-DATETIME | --minutes N) --join https://… [--presenter NAME [--headshot URL]]...
 *   live:list
 *   live:remove <course_id> | live:remove --event <event_id>
 *   content:move --to s3://bucket/prefix | --to local        (docs/operations.md "The content store")
 *   analytics:report [--from DAY|ISO] [--to DAY|ISO] [--category C]   (counts by category, action and label; default the last 30 days)
 *   migrate
 * and the operators' console's commands (users:list, users:role, users:status, users:end-sessions, titles:list,
 * titles:edit, titles:retire, titles:restore, audit:list): cli/admin-commands.ts
 */
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ZodError } from 'zod';
import { adminTopicNamesSchema, analyticsReportQuerySchema, announcementRequestSchema, editorsPicksRequestSchema, type ImportReport, liveCourseRequestSchema, liveEventRequestSchema } from '@lectern/core';
import { ConfigError, loadConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import type { SampleImportReport } from '../first-start.ts';
import { describeStartupError } from '../startup-errors.ts';
import { ADMIN_USAGE, auditCommandLine, runAdminCommand } from './admin-commands.ts';
import { promptHidden, readStdin } from './input.ts';

const USAGE = `usage: npm run lectern -- <command>
  users:create --email E (--password P | --password-stdin) [--role admin|content-creator|preview-creator] [--status trial|subscriber|expired|cancelled] [--team NAME]
  users:reset-password --email E [--password-stdin]
  import <file-or-folder>... [--topic slug]... [--allow-scripts]   (--allow-scripts: the book's scripts run, on SCRIPTED_ORIGIN only)
      books: .epub and .pdf files, each a title. Video courses and audiobooks (needs Debian's ffmpeg): a media file
      (.mp4 .mkv .webm .avi .mov .mp3 .m4a .m4b .flac .wma …; an M4B's chapters become its parts), a folder of numbered
      media files (one title, parts in natural order, a .vtt/.srt of the same name is a part's transcript), or a folder
      with a lectern-media.json manifest: {"title", "authors", "description", "publisher", "topics", "language",
      "parts": [{"file", "title", "description", "transcript"}]} (paths inside the folder only)
  import <file> --replace <book_id> [--topic slug]...   (a new edition of that book: same book id, EPUB for EPUB, PDF for PDF;
                                                         a video course or audiobook takes its new file or folder)
  library:sample [--with-debian]   (the sample books; with ffmpeg and espeak-ng also a narrated audiobook and a video course)
  chapters:flag <book_id> <chapter_path> [--sample true|false] [--public true|false]
  plans:set <basic|pro> --name N --price CENTS --currency USD --period month|year
  promo:add <code> (--percent N | --fixed CENTS) [--plan basic|pro] [--expires ISO-DATE] [--limit N] [--sale]
  promo:list
  invoices:paid <invoice id>
  picks:set <book_id>...
  picks:list
  announce:add --message TEXT [--url /path-or-https] [--until ISO-DATE]
  announce:list
  announce:remove <id>
  live:course-add --title T [--slug S] [--description D] [--image /path-or-https] [--topic NAME]...
  live:event-add <course_id> --start ISO-DATETIME (--end ISO-DATETIME | --minutes N) --join https://… [--presenter NAME [--headshot URL]]...
  live:list
  live:remove <course_id> | live:remove --event <event_id>
  content:move --to s3://bucket/prefix | --to local   (copies every stored file to that store, each verified; then set CONTENT_STORE)
  analytics:report [--from DAY|ISO] [--to DAY|ISO] [--category C]
${ADMIN_USAGE}
  migrate`;

function printReport(report: ImportReport | SampleImportReport): void {
  for (const b of report.imported) {
    console.log(`imported  ${b.book_id}  "${b.title}"  ${b.chapters} chapters`);
    for (const w of b.warnings) console.log(`  warning: ${w}`);
  }
  const already = 'already' in report ? report.already : [];
  const unavailable = 'unavailable' in report ? report.unavailable : [];
  const mediaUnavailable = 'mediaUnavailable' in report ? report.mediaUnavailable : [];
  for (const a of already) console.log(`present   ${a.file}: ${a.reason}`);
  for (const u of unavailable) console.log(`UNAVAILABLE ${u.origin}: ${u.reason}`);
  // the sample audiobook and video course need ffmpeg and espeak-ng: said, not a failure (the books are there)
  for (const u of mediaUnavailable) console.log(`not made  ${u.origin}: ${u.reason}`);
  for (const f of report.failed) console.log(`FAILED    ${f.file}: ${f.reason}`);
  const counts = [`${report.imported.length} imported`];
  if (already.length) counts.push(`${already.length} already in the library`);
  if (unavailable.length) counts.push(`${unavailable.length} could not be fetched`);
  counts.push(`${report.failed.length} failed`);
  console.log(counts.join(', '));
}

/** The password from --password, stdin (--password-stdin: the first line) or, in a terminal, a hidden prompt. */
async function passwordFrom(values: { password?: string; 'password-stdin'?: boolean }, command: string, prompt: boolean): Promise<string> {
  if (values.password !== undefined && values['password-stdin']) throw new AppError(400, `${command}: give --password or --password-stdin, not both`);
  if (values.password !== undefined) return values.password;
  if (values['password-stdin']) return (await readStdin()).split(/\r?\n/)[0] ?? '';
  if (prompt && process.stdin.isTTY) {
    const first = await promptHidden('New password: ');
    const again = await promptHidden('Repeat it: ');
    if (first !== again) throw new AppError(400, 'The two passwords differ: nothing changed.');
    return first;
  }
  throw new AppError(400, `${command} needs ${prompt ? '--password-stdin (or a terminal to ask in)' : '--password or --password-stdin'}`);
}

function flag(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new AppError(400, `--${name} must be true or false`);
}

async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  const config = loadConfig(process.env, { logLevel: 'silent' });
  // The services, and what only some commands use, are loaded when a command runs, not at start (docs/performance.md
  // "The command line's start"): `--help` and a bad option load none of them.
  const { buildServices } = await import('../build-services.ts');
  const { db, services } = await buildServices(config);
  try {
    // what the commands change is written to the audit log as done by 'cli' (cli/admin-commands.ts)
    auditCommandLine(services);
    const consoleCommand = await runAdminCommand(command, rest, services);
    if (consoleCommand !== null) return consoleCommand;
    switch (command) {
      case 'migrate': {
        const { migrateToLatest } = await import('../db/migrate.ts');
        const applied = await migrateToLatest(db);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : `the ${db.engine} database is up to date`);
        return 0;
      }
      case 'users:create': {
        const { values } = parseArgs({
          args: rest,
          options: {
            email: { type: 'string' },
            password: { type: 'string' },
            'password-stdin': { type: 'boolean' },
            role: { type: 'string' },
            status: { type: 'string' },
            team: { type: 'string' },
            username: { type: 'string' },
          },
        });
        if (!values.email) throw new AppError(400, 'users:create needs --email');
        const password = await passwordFrom(values, 'users:create', false);
        const { 'password-stdin': _stdin, ...fields } = values;
        const user = await services.accounts.createUser({ ...(fields as { email: string }), password });
        const { rolesOf } = await import('../services/accounts.ts');
        // every role it set, and the team, said back: the operator sees what the account may do
        const said = [user.status, ...rolesOf(user), ...(values.team ? [`team ${values.team.trim()}`] : [])].join(', ');
        console.log(`created user ${user.email} (${said}) uuid ${user.uuid}`);
        return 0;
      }
      case 'users:reset-password': {
        const { values } = parseArgs({ args: rest, options: { email: { type: 'string' }, 'password-stdin': { type: 'boolean' } } });
        if (!values.email) throw new AppError(400, 'users:reset-password needs --email');
        const password = await passwordFrom(values, 'users:reset-password', true);
        const user = await services.accounts.resetPassword(values.email, password);
        console.log(`new password set for ${user.email}; their sessions are signed out`);
        return 0;
      }
      case 'import': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { topic: { type: 'string', multiple: true }, replace: { type: 'string' }, 'allow-scripts': { type: 'boolean' } } });
        const allowScripts = values['allow-scripts'] ? true : undefined;
        // the console's import and title editor take topics by the same rule (core adminTopicNamesSchema)
        const topics = adminTopicNamesSchema.parse(values.topic ?? []);
        if (values.replace !== undefined) {
          if (positionals.length !== 1) throw new AppError(400, `import --replace takes exactly one file (${positionals.length} given)`);
          const bookId = values.replace.trim();
          if (!bookId) throw new AppError(400, 'import --replace needs the book id of the book to replace');
          const file = positionals[0]!;
          if (!(await fs.stat(file).catch(() => null))) throw new AppError(400, `import --replace: ${file} is not a file or folder`);
          try {
            // a book's one file, or a video course's or audiobook's file or folder (services/import.ts replacePath)
            const done = await services.importer.replacePath(file, bookId, { topics, allowScripts });
            console.log(`replaced  ${done.book_id}  "${done.title}"  ${done.chapters} chapters (${done.replaced.kept} kept, ${done.replaced.added} new, ${done.replaced.removed.length} removed)`);
            for (const r of done.replaced.removed) console.log(`  removed: ${r}`);
            for (const w of done.warnings) console.log(`  warning: ${w}`);
            return 0;
          } catch (err) {
            const { reasonOf } = await import('../services/import.ts');
            console.log(`FAILED    ${file}: ${reasonOf(err)}`);
            console.log('nothing changed');
            return 1;
          }
        }
        if (positionals.length === 0) throw new AppError(400, 'import needs at least one file or folder');
        const report = await services.importer.importPaths(positionals, { topics, allowScripts });
        printReport(report);
        return report.failed.length ? 1 : 0;
      }
      case 'library:sample': {
        const { values } = parseArgs({ args: rest, options: { 'with-debian': { type: 'boolean' } } });
        const { importSampleLibrary } = await import('../first-start.ts');
        const report = await importSampleLibrary(services, config, { withDebian: values['with-debian'] ?? false, withMedia: true, log: (m) => console.log(m) });
        printReport(report);
        // Books already in the library are not a failure: running it again is how missing books are added.
        return report.failed.length || report.unavailable.length ? 1 : 0;
      }
      case 'chapters:flag': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { sample: { type: 'string' }, public: { type: 'string' } } });
        const [bookId, chapterPath] = positionals;
        if (!bookId || !chapterPath) throw new AppError(400, 'chapters:flag needs <book_id> <chapter_path>');
        const flags = { as_sample: flag(values.sample, 'sample'), is_public: flag(values.public, 'public') };
        if (flags.as_sample === undefined && flags.is_public === undefined) throw new AppError(400, 'give --sample and/or --public');
        const result = await services.flags.set(bookId, chapterPath, flags);
        console.log(`${bookId} ${chapterPath}: as_sample=${result.as_sample} is_public=${result.is_public}`);
        return 0;
      }
      case 'plans:set': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: { name: { type: 'string' }, price: { type: 'string' }, currency: { type: 'string' }, period: { type: 'string' } },
        });
        const plan = await services.subscriptions.setPlan({
          slug: positionals[0],
          name: values.name,
          price_cents: values.price === undefined ? undefined : Number(values.price),
          currency: values.currency,
          period: values.period,
        });
        console.log(`plan ${plan.slug}: ${plan.name}, ${(plan.price_cents / 100).toFixed(2)} ${plan.currency} a ${plan.period}`);
        return 0;
      }
      case 'promo:add': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: {
            percent: { type: 'string' },
            fixed: { type: 'string' },
            plan: { type: 'string' },
            expires: { type: 'string' },
            limit: { type: 'string' },
            sale: { type: 'boolean' },
          },
        });
        if ((values.percent === undefined) === (values.fixed === undefined)) throw new AppError(400, 'promo:add needs --percent N or --fixed CENTS');
        const code = await services.subscriptions.addPromotionCode({
          code: positionals[0],
          kind: values.percent !== undefined ? 'percent' : 'fixed',
          amount: Number(values.percent ?? values.fixed),
          plan: values.plan ?? null,
          expires_at: values.expires ? new Date(values.expires).toISOString() : null,
          usage_limit: values.limit === undefined ? null : Number(values.limit),
          is_sale: values.sale ?? false,
        });
        console.log(`promotion code ${code.code}: ${code.kind === 'percent' ? `${code.amount}%` : `${code.amount} cents`} off${code.plan ? ` the ${code.plan} plan` : ''}`);
        return 0;
      }
      case 'promo:list': {
        for (const c of await services.subscriptions.listPromotionCodes()) {
          const off = c.kind === 'percent' ? `${c.amount}%` : `${c.amount} cents`;
          console.log(`${c.code}\t${off}\t${c.plan ?? 'any plan'}\tused ${c.used_count}${c.usage_limit === null ? '' : `/${c.usage_limit}`}\t${c.expires_at ?? 'no end'}`);
        }
        return 0;
      }
      case 'invoices:paid': {
        const id = Number(rest[0]);
        if (!Number.isInteger(id) || id < 1) throw new AppError(400, 'invoices:paid needs an invoice id');
        const invoice = await services.subscriptions.markInvoicePaid(id);
        console.log(`invoice ${invoice.id} paid (${(invoice.amount_cents / 100).toFixed(2)} ${invoice.currency}, ${invoice.plan})`);
        return 0;
      }
      case 'picks:set': {
        const { book_ids } = editorsPicksRequestSchema.parse({ book_ids: rest });
        const picks = await services.home.setEditorsPicks(book_ids);
        console.log(picks.book_ids.length ? `editors' picks: ${picks.book_ids.join(', ')}` : "editors' picks cleared");
        return 0;
      }
      case 'picks:list': {
        for (const id of (await services.home.editorsPicks()).book_ids) console.log(id);
        return 0;
      }
      case 'announce:add': {
        const { values } = parseArgs({ args: rest, options: { message: { type: 'string' }, url: { type: 'string' }, until: { type: 'string' } } });
        const until = values.until === undefined ? undefined : new Date(values.until);
        if (until && Number.isNaN(until.getTime())) throw new AppError(400, '--until must be a date (2026-12-31 or an ISO date and time)');
        const a = await services.home.addAnnouncement(
          announcementRequestSchema.parse({ message: values.message ?? '', url: values.url ?? null, ends_at: until?.toISOString() ?? null }),
        );
        console.log(`announcement ${a.id}: "${a.message}"${a.url ? ` -> ${a.url}` : ''}${a.ends_at ? ` until ${a.ends_at}` : ''}`);
        return 0;
      }
      case 'announce:list': {
        for (const a of (await services.home.announcements()).results) {
          console.log(`${a.id}\t${a.starts_at}\t${a.ends_at ?? 'no end'}\t${a.message}${a.url ? `\t${a.url}` : ''}`);
        }
        return 0;
      }
      case 'newsletter:send': {
        const { values } = parseArgs({ args: rest, options: { now: { type: 'boolean' } } });
        const run = await services.marketing.runDue(undefined, { force: values.now === true });
        console.log(
          run.issueId === null
            ? 'no newsletter due (the last one was sent less than NEWSLETTER_DAYS ago; --now sends one anyway)'
            : `newsletter ${run.issueId}: ${run.titles} new title(s), sent to ${run.recipients} reader(s)`,
        );
        return 0;
      }
      case 'announce:remove': {
        const id = Number(rest[0]);
        if (!Number.isInteger(id) || id < 1) throw new AppError(400, 'announce:remove needs an announcement id');
        await services.home.removeAnnouncement(id);
        console.log(`announcement ${id} removed`);
        return 0;
      }
      case 'live:course-add': {
        const { values } = parseArgs({
          args: rest,
          options: { title: { type: 'string' }, slug: { type: 'string' }, description: { type: 'string' }, image: { type: 'string' }, topic: { type: 'string', multiple: true } },
        });
        const course = await services.live.addCourse(
          liveCourseRequestSchema.parse({ title: values.title ?? '', slug: values.slug, description: values.description, marketing_image_url: values.image ?? null, topics: values.topic }),
        );
        console.log(`course ${course.course_id} "${course.title}" at ${course.url}`);
        return 0;
      }
      case 'live:event-add': {
        const { values, positionals, tokens } = parseArgs({
          args: rest,
          allowPositionals: true,
          tokens: true,
          options: {
            start: { type: 'string' },
            end: { type: 'string' },
            minutes: { type: 'string' },
            join: { type: 'string' },
            presenter: { type: 'string', multiple: true },
            headshot: { type: 'string', multiple: true },
          },
        });
        const courseId = Number(positionals[0]);
        if (!Number.isInteger(courseId) || courseId < 1) throw new AppError(400, 'live:event-add needs a course id (see live:list)');
        let end = values.end;
        if (values.minutes !== undefined) {
          const minutes = Number(values.minutes);
          const start = Date.parse(values.start ?? '');
          if (!Number.isInteger(minutes) || minutes < 1) throw new AppError(400, '--minutes must be a whole number of minutes');
          if (values.end !== undefined) throw new AppError(400, 'give --end or --minutes, not both');
          if (!Number.isNaN(start)) end = new Date(start + minutes * 60_000).toISOString();
        }
        // A --headshot belongs to the --presenter before it (in the order typed, not by count).
        const presenters: { name: string; headshot_url: string | null }[] = [];
        for (const t of tokens) {
          if (t.kind !== 'option' || t.value === undefined) continue;
          if (t.name === 'presenter') presenters.push({ name: t.value, headshot_url: null });
          else if (t.name === 'headshot') {
            const last = presenters.at(-1);
            if (!last || last.headshot_url !== null) throw new AppError(400, '--headshot must follow the --presenter it shows');
            last.headshot_url = t.value;
          }
        }
        const status = await services.live.addEvent(
          courseId,
          liveEventRequestSchema.parse({
            start_datetime: values.start ?? '',
            end_datetime: end ?? '',
            join_url: values.join ?? '',
            presenters,
          }),
        );
        const event = status.events[0]!;
        console.log(`event ${event.event_id} of course ${status.course_id}: ${event.start_datetime} to ${event.end_datetime} -> ${event.join_url}`);
        return 0;
      }
      case 'live:list': {
        for (const c of (await services.live.adminCourses()).results) {
          console.log(`course ${c.course_id}\t${c.slug}\t${c.title}${c.topics.length ? `\t[${c.topics.map((t) => t.name).join(', ')}]` : ''}`);
          for (const e of c.events) {
            const who = e.presenters.map((p) => p.name).join(', ');
            console.log(`  event ${e.event_id}\t${e.start_datetime}\t${e.end_datetime}\t${e.join_url}${who ? `\t${who}` : ''}`);
          }
        }
        return 0;
      }
      case 'live:remove': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { event: { type: 'string' } } });
        const id = Number(values.event ?? positionals[0]);
        if (!Number.isInteger(id) || id < 1) throw new AppError(400, 'live:remove needs a course id, or --event and an event id');
        if (values.event !== undefined) {
          await services.live.removeEvent(id);
          console.log(`event ${id} removed`);
        } else {
          await services.live.removeCourse(id);
          console.log(`course ${id} removed, with its events`);
        }
        return 0;
      }
      case 'content:move': {
        const { values } = parseArgs({ args: rest, options: { to: { type: 'string' } }, allowPositionals: false });
        const to = values.to;
        if (!to || !(to === 'local' || to.startsWith('s3://'))) throw new AppError(400, 'content:move needs --to s3://bucket/prefix or --to local');
        // the same variables name the other store's endpoint and credentials (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, …)
        const { openContentStore } = await import('../storage/open-content-store.ts');
        const target = await openContentStore({ dataDir: config.dataDir, contentStore: to === 'local' ? null : to, s3: config.s3 });
        const r = await services.contentMove.move(target, (done, total) => {
          if (done % 500 === 0 || done === total) console.log(`${done} of ${total} files`);
        });
        await services.admin.audit.record('cli', { action: 'content.move', target_kind: 'content-store', target_id: r.to, detail: { from: r.from, copied: r.copied, bytes: r.bytes, missing: r.missing.length, mismatched: r.mismatched.length } }, null);
        console.log(`copied ${r.copied} files (${(r.bytes / (1024 * 1024)).toFixed(1)} MB) from ${r.from} to ${r.to}, each read back and its SHA-256 compared`);
        for (const p of r.missing) console.log(`missing in ${r.from}: ${p}`);
        for (const p of r.mismatched) console.log(`not the same once copied: ${p}`);
        if (r.missing.length || r.mismatched.length) {
          console.log(`${r.missing.length} missing, ${r.mismatched.length} not the same: keep CONTENT_STORE as it is, and run the move again once they are resolved`);
          return 1;
        }
        console.log(`Now set CONTENT_STORE=${to} on every server (with the same AWS_* variables) and restart them; ${r.from} is left as it was.`);
        return 0;
      }
      case 'analytics:report': {
        const { values } = parseArgs({ args: rest, options: { from: { type: 'string' }, to: { type: 'string' }, category: { type: 'string' } } });
        const report = await services.analytics.report(analyticsReportQuerySchema.parse(values));
        console.log(`${report.total} events from ${report.from} to ${report.to}${report.category ? ` in ${report.category}` : ''}`);
        if (report.results.length) console.log('count\tsigned in\tcategory\taction\tlabel');
        for (const r of report.results) console.log(`${r.count}\t${r.signed_in}\t${r.category}\t${r.action}\t${r.label}`);
        if (report.truncated) console.log(`(the ${report.results.length} biggest counts; narrow the span or give --category for the rest)`);
        return 0;
      }
      default:
        console.error(`unknown command: ${command}\n${USAGE}`);
        return 2;
    }
  } finally {
    // what a command queued (an operator's reset link waits for itself) is sent before the process ends
    if (!(await services.mail.drain())) console.error(`[lectern] ${services.mail.pending} mail(s) unsent (${services.mail.unsentLine()}): the mail server did not answer in time`);
    await db.close();
  }
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof ConfigError || err instanceof AppError) {
      console.error(err.message);
      process.exit(2);
    }
    // A value an operator gave that a service's schema refuses: say which, in one line.
    if (err instanceof ZodError) {
      console.error(err.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
      process.exit(2);
    }
    // An unknown or malformed option (node:util parseArgs): a usage error, not a bug.
    if (String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      console.error(`${(err as Error).message}\n${USAGE}`);
      process.exit(2);
    }
    // The database (or DATA_DIR) an operator pointed at is unusable: one line, as at server start.
    const config = (() => {
      try {
        return loadConfig(process.env, { logLevel: 'silent' });
      } catch {
        return null;
      }
    })();
    const line = config && describeStartupError(err, 'database', config);
    console.error(line ?? err);
    process.exit(line ? 2 : 1);
  },
);
