/**
 * The operators' command line: `npm run lectern -- <command>`.
 *   users:create --email E --password P [--role admin|content-creator|preview-creator] [--status trial|subscriber|expired|cancelled] [--team NAME]
 *   import <file-or-folder>... [--topic slug]...
 *   library:sample [--with-debian]
 *   chapters:flag <book_id> <chapter_path> [--sample true|false] [--public true|false]
 *   migrate
 */
import { parseArgs } from 'node:util';
import type { ImportReport } from '@lectern/core';
import { buildServices } from '../app.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { AppError } from '../errors.ts';
import { importSampleLibrary } from '../first-start.ts';

const USAGE = `usage: npm run lectern -- <command>
  users:create --email E --password P [--role admin|content-creator|preview-creator] [--status trial|subscriber|expired|cancelled] [--team NAME]
  import <file-or-folder>... [--topic slug]...
  library:sample [--with-debian]
  chapters:flag <book_id> <chapter_path> [--sample true|false] [--public true|false]
  migrate`;

function printReport(report: ImportReport): void {
  for (const b of report.imported) {
    console.log(`imported  ${b.book_id}  "${b.title}"  ${b.chapters} chapters`);
    for (const w of b.warnings) console.log(`  warning: ${w}`);
  }
  for (const f of report.failed) console.log(`FAILED    ${f.file}: ${f.reason}`);
  console.log(`${report.imported.length} imported, ${report.failed.length} failed`);
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
  const { db, services } = await buildServices(config);
  try {
    switch (command) {
      case 'migrate': {
        const applied = await migrateToLatest(db);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : `the ${db.engine} database is up to date`);
        return 0;
      }
      case 'users:create': {
        const { values } = parseArgs({
          args: rest,
          options: { email: { type: 'string' }, password: { type: 'string' }, role: { type: 'string' }, status: { type: 'string' }, team: { type: 'string' }, username: { type: 'string' } },
        });
        if (!values.email || !values.password) throw new AppError(400, 'users:create needs --email and --password');
        const user = await services.accounts.createUser(values as { email: string; password: string });
        console.log(`created user ${user.email} (${user.status}${user.is_admin ? ', admin' : ''}) uuid ${user.uuid}`);
        return 0;
      }
      case 'import': {
        const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { topic: { type: 'string', multiple: true } } });
        if (positionals.length === 0) throw new AppError(400, 'import needs at least one file or folder');
        const report = await services.importer.importPaths(positionals, { topics: values.topic ?? [] });
        printReport(report);
        return report.failed.length ? 1 : 0;
      }
      case 'library:sample': {
        const { values } = parseArgs({ args: rest, options: { 'with-debian': { type: 'boolean' } } });
        const report = await importSampleLibrary(services, config, { withDebian: values['with-debian'] ?? false, log: (m) => console.log(m) });
        printReport(report);
        // Books already in the library are not a failure of this command.
        return report.failed.some((f) => !f.reason.startsWith('already in the library')) ? 1 : 0;
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
      default:
        console.error(`unknown command: ${command}\n${USAGE}`);
        return 2;
    }
  } finally {
    await db.close();
  }
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof ConfigError || err instanceof AppError) console.error(err.message);
    else console.error(err);
    process.exit(err instanceof AppError ? 2 : 1);
  },
);
