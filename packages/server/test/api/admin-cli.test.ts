/**
 * The operators' console's commands on the command line (cli/admin-commands.ts; docs/decisions.md "Operators' console:
 * the server side"), through the real process on both engines: roles, status, sessions, a title's edit, retirement and
 * restoring, each written to the audit log as done by 'cli' and listed by audit:list; a bad value is named and changes
 * nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINES } from '../helpers/app.ts';
import { epubBook } from '../ingest/helpers.ts';
import { runCli as cli } from '../helpers/cli.ts';



describe.each(ENGINES)('the console commands on %s', (engine) => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let drop = async () => {};
  let bookId: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-admin-cli-'));
    let databaseUrl = '';
    if (engine === 'postgres') {
      const created = await createTestDatabase();
      databaseUrl = created.url;
      drop = created.drop;
    }
    env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' };
    const file = path.join(dataDir, 'tide.epub');
    fs.writeFileSync(
      file,
      epubBook({ identifier: 'urn:uuid:7e1d0000-0000-4000-8000-00000000cafe', title: 'Tide Tables', creator: 'June Moss', chapters: [{ path: 'a.xhtml', label: 'A', body: '<p>Low water.</p>' }] }),
    );
    const made = await cli(['users:create', '--email', 'ivy@example.com', '--password', 'a long enough password', '--status', 'subscriber'], env);
    expect(made.code, made.stderr).toBe(0);
    const imported = await cli(['import', file], env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    bookId = /imported\s+(\S+)/.exec(imported.stdout)![1]!;
  }, 240_000);
  afterAll(async () => {
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('changes roles and status, names a bad status, and audits each as cli', async () => {
    const bad = await cli(['users:status', '--email', 'ivy@example.com', '--status', 'banned'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^status: /);
    const role = await cli(['users:role', '--email', 'ivy@example.com', '--role', 'content-creator'], env);
    expect(role.stdout.trim()).toBe('ivy@example.com: roles content-creator');
    const status = await cli(['users:status', '--email', 'ivy@example.com', '--status', 'expired'], env);
    expect(status.stdout.trim()).toBe('ivy@example.com: expired');
    const listed = await cli(['users:list', '--role', 'content-creator'], env);
    expect(listed.stdout).toMatch(/ivy@example\.com {2}expired {2}content-creator/);
    const ended = await cli(['users:end-sessions', '--email', 'ivy@example.com'], env);
    expect(ended.stdout.trim()).toBe('ivy@example.com: 0 sessions ended');
    const shown = await cli(['users:show', '--email', 'ivy@example.com'], env);
    expect(shown.stdout).toMatch(/^status expired$/m);
    expect(shown.stdout).toMatch(/^roles content-creator, plan basic$/m);
    expect(shown.stdout).toMatch(/^0 sessions$/m);
    // without SMTP_URL the mail goes to the log, the link in it
    const reset = await cli(['users:send-reset', '--email', 'ivy@example.com'], env);
    expect(reset.stdout).toContain('/reset-password/?token=');
    expect(reset.stdout).toContain('a link to choose a new password was sent to ivy@example.com');
    expect((await cli(['users:send-reset', '--email', 'nobody@example.com'], env)).code).not.toBe(0);
  }, 240_000);

  it('edits, retires and restores a title, listed in the audit log', async () => {
    const edit = await cli(['titles:edit', bookId, '--title', 'Tide Tables, Revised', '--topic', 'Coasts', '--pick', 'true'], env);
    expect(edit.code, edit.stderr).toBe(0);
    expect(edit.stdout.trim()).toBe(`${bookId}: changed title, topics, editors_pick (version 2)`);
    expect((await cli(['titles:retire', bookId], env)).stdout.trim()).toBe(`${bookId} "Tide Tables, Revised": retired (out of the catalog)`);
    expect((await cli(['titles:list', '--state', 'retired'], env)).stdout).toContain(`${bookId}  "Tide Tables, Revised"  June Moss  (retired)`);
    expect((await cli(['titles:restore', bookId], env)).stdout.trim()).toBe(`${bookId} "Tide Tables, Revised": back in the catalog`);
    const shown = await cli(['titles:show', bookId], env);
    expect(shown.stdout).toContain(`${bookId}  "Tide Tables, Revised"  June Moss  (book, version `);
    expect(shown.stdout).toContain("1 chapters; topics Coasts; publisher none; editors' pick yes");
    expect(shown.stdout).toContain('0 readers, 0 minutes read, 0 finished, completion 0%');
    const today = new Date().toISOString().slice(0, 10);
    const figures = (await cli(['dashboard', '--from', today, '--to', today], env)).stdout.split('\n');
    expect(figures[0]).toBe('day  readers  minutes  new accounts  conversions  imports  refused');
    // one account made and one title imported today, nothing read
    expect(figures[1]!.trim().split(/\s+/)).toEqual([today, '0', '0.0', '1', '0', '1', '0']);
    expect(figures).toContain('refused imports: none');
    expect((await cli(['dashboard', '--from', 'last week'], env)).stderr).toMatch(/^from: /);
    expect((await cli(['health'], env)).stdout).toMatch(new RegExp(`^Lectern \\S+ on ${engine}: database [0-9.]+ MB, content store [0-9.]+ MB, 1 titles$`, 'm'));
    const log = await cli(['audit:list', '--actor', 'cli'], env);
    const actions = log.stdout.trim().split('\n').map((line) => line.split('  ')[2]);
    // the older commands of beforeAll too (users:create, import), oldest last
    expect(actions).toEqual(['title.restore', 'title.retire', 'title.edit', 'user.password-reset', 'user.end-sessions', 'user.edit', 'user.edit', 'import', 'user.create']);
  }, 240_000);

  it("writes the older commands' changes as cli, and nothing for a refused one", async () => {
    const refused = await cli(['announce:add', '--message', 'Closed on Monday', '--url', 'javascript:alert(1)'], env);
    expect(refused.code).not.toBe(0);
    const added = await cli(['announce:add', '--message', 'Closed on Monday'], env);
    expect(added.code, added.stderr).toBe(0);
    const log = await cli(['audit:list', '--target-kind', 'announcement'], env);
    const lines = log.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ {2}cli {2}announcement\.create {2}announcement \d+ {2}\{.*"message":"Closed on Monday"/);
    const imported = await cli(['audit:list', '--action', 'import'], env);
    expect(imported.stdout).toContain(`"imported":[{"book_id":"${bookId}","title":"Tide Tables"}],"failed":[]`);
  }, 240_000);
});
