/**
 * The console's selling commands (cli/admin-commands.ts; docs/decisions.md "The console's selling") through the real
 * process on both engines: a team's seats (a bad count named, nothing changed), owner and members, a promotion code's
 * limit and end, the invoices and redemptions listed; each change written to the audit log as done by 'cli'.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, ENGINES } from '../helpers/app.ts';
import { runCli as cli } from '../helpers/cli.ts';



describe.each(ENGINES)('the console’s selling commands on %s', (engine) => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let drop = async () => {};

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-selling-cli-'));
    let databaseUrl = '';
    if (engine === 'postgres') {
      const created = await createTestDatabase();
      databaseUrl = created.url;
      drop = created.drop;
    }
    env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' };
    for (const email of ['kim@example.com', 'lou@example.com']) {
      const made = await cli(['users:create', '--email', email, '--password', 'a long enough password', '--team', 'Night Shift'], env);
      expect(made.code, made.stderr).toBe(0);
    }
  }, 120_000);
  afterAll(async () => {
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("changes a team's seats, owner and members, naming a bad count, each audited as cli", async () => {
    const listed = await cli(['teams:list', '--q', 'night'], env);
    const m = /^(\d+) {2}"Night Shift" {2}no owner {2}0\/0 seats used, 2 members {2}no subscription$/m.exec(listed.stdout);
    expect(m, listed.stdout).not.toBeNull();
    const id = m![1]!;
    const below = await cli(['teams:seats', id, '--seats', '1'], env);
    expect(below.code).toBe(2);
    expect(below.stderr).toMatch(/^2 seats are taken by members/);
    expect((await cli(['teams:seats', id, '--seats', '3'], env)).stdout.trim()).toBe('Night Shift: 3 seats (0 used)');
    expect((await cli(['teams:owner', id, '--email', 'kim@example.com'], env)).stdout.trim()).toBe('Night Shift: owned by kim@example.com');
    expect((await cli(['teams:remove-member', id, '--email', 'kim@example.com'], env)).stderr).toMatch(/^The owner cannot be removed/);
    expect((await cli(['teams:remove-member', id, '--email', 'lou@example.com'], env)).code).toBe(0);
    const shown = await cli(['teams:show', id], env);
    expect(shown.stdout).toContain(`${id}  "Night Shift"  owner kim@example.com`);
    expect(shown.stdout).toMatch(/kim@example\.com {2}\(owner\) {2}joined \S+$/m);
    expect(shown.stdout).not.toContain('lou@example.com');
    expect((await cli(['teams:show', 'nine'], env)).code).not.toBe(0);
    const log = await cli(['audit:list', '--target-kind', 'team'], env);
    expect(log.stdout.trim().split('\n').map((line) => line.split('  ').slice(1, 3))).toEqual([
      ['cli', 'team.remove-member'],
      ['cli', 'team.owner'],
      ['cli', 'team.seats'],
    ]);
  }, 240_000);

  it("changes a code's limit and end, and lists invoices and redemptions", async () => {
    expect((await cli(['promo:add', 'fall', '--percent', '10'], env)).code).toBe(0);
    expect((await cli(['promo:edit', 'fall', '--limit', '3', '--expires', '2030-01-01'], env)).stdout.trim()).toBe('fall: used 0 of 3, ends 2030-01-01T00:00:00.000Z');
    expect((await cli(['promo:edit', 'fall', '--limit', 'none', '--expires', 'none'], env)).stdout.trim()).toBe('fall: used 0, no limit, no end');
    const bad = await cli(['promo:edit', 'fall', '--limit', '0'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^usage_limit: /);
    expect((await cli(['promo:edit', 'winter', '--limit', '2'], env)).code).not.toBe(0);
    const redemptions = await cli(['promo:redemptions', 'fall'], env);
    expect([redemptions.code, redemptions.stdout]).toEqual([0, '']);
    const invoices = await cli(['invoices:list', '--unpaid'], env);
    expect([invoices.code, invoices.stdout]).toEqual([0, '']);
    const log = await cli(['audit:list', '--action', 'promotion-code.edit'], env);
    expect(log.stdout.trim().split('\n')).toHaveLength(2);
    expect(log.stdout).toContain('"changed":{"usage_limit":[3,null],"expires_at":["2030-01-01T00:00:00.000Z",null]}');
  }, 240_000);
});
