/**
 * library-playlists-account.md §7 `POST /debug/` on both engines: present in test mode (a visitor's and a reader's
 * message recorded with who sent it; the CSRF check as on every unsafe call; 400 naming the field, nothing recorded),
 * and absent (404) with a production configuration. Which configuration is which: config.ts debugMode.
 */
import { APP_MESSAGES, DEBUG_MESSAGE_MAX, debugPaths } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { DEBUG_ENTRIES_KEPT } from '../../src/services/debug-log.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';

describe('debug mode (config)', () => {
  it('is on under NODE_ENV=test or LOG_LEVEL debug / trace, and off otherwise (production among them)', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).debugMode).toBe(true);
    expect(loadConfig({ LOG_LEVEL: 'debug' }).debugMode).toBe(true);
    expect(loadConfig({ LOG_LEVEL: 'trace', NODE_ENV: 'production' }).debugMode).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).debugMode).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'info' }).debugMode).toBe(false);
    expect(loadConfig({}).debugMode).toBe(false);
  });
});

describe.each(ENGINES)('POST /debug/ on %s', (engine) => {
  describe('in test mode', () => {
    let t: TestApp;
    let visitor: TestClient;
    let reader: TestClient;
    let readerUuid: string;

    beforeAll(async () => {
      t = await startTestApp(engine, { debugMode: true });
      visitor = new TestClient(t.lectern.app);
      [reader] = await signedInSubscribers(t.lectern, ['debugger@example.com']);
      readerUuid = (await t.lectern.db.kysely.selectFrom('users').select('uuid').where('email', '=', 'debugger@example.com').executeTakeFirstOrThrow()).uuid;
    });
    afterAll(() => t.close());

    const recent = () => t.lectern.debug!.recent().map((e) => ({ user: e.user, message: e.message }));

    it("records a visitor's and a reader's message with who sent it, and answers 204", async () => {
      const before = recent().length;
      const a = await visitor.post(debugPaths.message(), { message: 'chapter frame did not paint' });
      expect(a.statusCode, a.body).toBe(204);
      expect(a.body).toBe('');
      const b = await reader.post(debugPaths.message(), { message: '  reader: position 0.42  ' });
      expect(b.statusCode, b.body).toBe(204);
      expect(recent().slice(before)).toEqual([
        { user: null, message: 'chapter frame did not paint' },
        { user: readerUuid, message: 'reader: position 0.42' },
      ]);
    });

    it('refuses a call without the CSRF token (403) or from another origin, and records nothing', async () => {
      const before = recent().length;
      const res = await reader.post(debugPaths.message(), { message: 'forged' }, { csrf: false });
      expect(res.statusCode).toBe(403);
      expect(res.json().detail).toBe(APP_MESSAGES.csrfFailed);
      const cross = await reader.post(debugPaths.message(), { message: 'forged' }, { headers: { origin: 'https://evil.example' } });
      expect(cross.statusCode).toBe(403);
      expect(recent().length).toBe(before);
    });

    it('answers 400 naming the field for a missing, empty, too long or extra field, and records nothing', async () => {
      const before = recent().length;
      for (const [body, field] of [
        [{}, 'message'],
        [{ message: '   ' }, 'message'],
        [{ message: 7 }, 'message'],
        [{ message: 'x'.repeat(DEBUG_MESSAGE_MAX + 1) }, 'message'],
        [{ message: 'fine', level: 'warn' }, 'level'],
      ] as const) {
        const res = await visitor.post(debugPaths.message(), body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(Object.keys(res.json().errors)).toEqual([field]);
      }
      expect(recent().length).toBe(before);
    });

    it(`keeps only the last ${DEBUG_ENTRIES_KEPT} messages in memory`, async () => {
      for (let i = 0; i < DEBUG_ENTRIES_KEPT + 5; i++) expect((await visitor.post(debugPaths.message(), { message: `m${i}` })).statusCode).toBe(204);
      const kept = recent();
      expect(kept.length).toBe(DEBUG_ENTRIES_KEPT);
      expect(kept.at(-1)!.message).toBe(`m${DEBUG_ENTRIES_KEPT + 4}`);
      expect(kept[0]!.message).toBe('m5');
    });
  });

  describe('in production', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(engine, { debugMode: loadConfig({ NODE_ENV: 'production' }).debugMode });
    });
    afterAll(() => t.close());

    it('is absent: 404 with a valid token, and nothing kept', async () => {
      expect(t.lectern.debug).toBeNull();
      const [reader] = await signedInSubscribers(t.lectern, ['prod@example.com']);
      const res = await reader.post(debugPaths.message(), { message: 'hello' });
      expect(res.statusCode).toBe(404);
      const visitor = new TestClient(t.lectern.app);
      expect((await visitor.post(debugPaths.message(), { message: 'hello' })).statusCode).toBe(404);
    });
  });
});
