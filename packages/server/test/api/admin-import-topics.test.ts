/**
 * The console's import with topics (docs/decisions.md "The console's titles"; core adminTopicNamesSchema, the title
 * editor's and the command line's
 * --topic rule) on both engines: the `topics` field gives each imported title those topics, the audit entry names
 * them, and a topic the rule refuses is a 400 naming `topics` with nothing imported and nothing written to the log.
 */
import { ADMIN_CONSOLE_MESSAGES as M, adminPaths, adminTitleDetailSchema, auditPageSchema } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { multipart } from '../helpers/multipart.ts';
import { epubBook } from '../ingest/helpers.ts';

const PASSWORD = 'a long enough password';

/** one book, and `topics` as the web client sends them: one field, comma-separated */
function upload(name: string, id: string, title: string, topics?: string) {
  const data = epubBook({ identifier: `urn:uuid:${id}`, title, creator: 'Ann Tide', chapters: [{ path: 'one.xhtml', label: 'One', body: `<h1>One</h1><p>${'Tides and topics. '.repeat(100)}</p>` }] });
  return multipart([{ name, data }], { fields: topics === undefined ? {} : { topics } });
}

describe.each(ENGINES)('the console import with topics on %s', (engine) => {
  let t: TestApp;
  let admin: TestClient;
  let reader: TestClient;
  const entries = async () => {
    const res = await admin.get(`${adminPaths.audit()}?action=import`);
    expect(res.statusCode, res.body).toBe(200);
    return auditPageSchema.parse(res.json()).results;
  };
  const titles = async () => Number((await t.lectern.db.kysely.selectFrom('titles').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  beforeAll(async () => {
    t = await startTestApp(engine);
    await t.lectern.services.accounts.createUser({ email: 'root@example.com', password: PASSWORD, role: 'admin' });
    admin = new TestClient(t.lectern.app);
    await admin.login('root@example.com', PASSWORD);
    [reader] = await signedInSubscribers(t.lectern, ['ada@example.com']);
  });
  afterAll(() => t?.close());

  it('gives the imported title the topics and names them in the audit entry', async () => {
    const res = await admin.request('POST', adminPaths.import(), upload('tides.epub', '7a000000-0000-4000-8000-000000000001', 'Tides', ' Sea Stories , classics '));
    expect(res.statusCode, res.body).toBe(201);
    const [done] = res.json().imported as { book_id: string }[];
    const detail = adminTitleDetailSchema.parse((await admin.get(adminPaths.title(done!.book_id))).json());
    expect(detail.topics.map((x) => x.name).sort()).toEqual(['Classics', 'Sea Stories']);
    const [entry] = await entries();
    expect(entry).toMatchObject({ action: 'import', actor_label: 'root@example.com' });
    expect(entry!.detail).toMatchObject({ topics: ['Sea Stories', 'classics'], imported: [expect.objectContaining({ book_id: done!.book_id })] });
  });

  it.each([
    ['a topic longer than 80 characters', 'x'.repeat(81), M.topicTooLong],
    ['more than 30 topics', Array.from({ length: 31 }, (_, i) => `topic ${i}`).join(','), M.tooManyTopics],
  ])('refuses %s: 400 naming topics, nothing imported or logged', async (_what, topics, message) => {
    const [before, logged] = [await titles(), (await entries()).length];
    const res = await admin.request('POST', adminPaths.import(), upload('refused.epub', '7a000000-0000-4000-8000-000000000002', 'Refused', topics));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors).toEqual({ topics: [message] });
    expect(await titles()).toBe(before);
    expect((await entries()).length).toBe(logged);
  });

  it('is refused to a reader (403) and to nobody signed in (401)', async () => {
    const body = upload('reader.epub', '7a000000-0000-4000-8000-000000000003', 'Reader', 'classics');
    expect((await reader!.request('POST', adminPaths.import(), body)).statusCode).toBe(403);
    expect((await new TestClient(t.lectern.app).request('POST', adminPaths.import(), body)).statusCode).toBe(401);
  });
});
