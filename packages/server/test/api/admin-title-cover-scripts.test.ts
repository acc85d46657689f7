/**
 * A title's cover upload and its scripts flag from the console (docs/decisions.md "The console's titles"), on both
 * engines: allowed to operators and content creators, refused to readers and visitors; hostile images refused with
 * `file` named and nothing changed (a lying signature, a truncated file, a name that says image but bytes that do not,
 * too large, too many pixels); the stored cover is served as covers are, with its card variant; every change audited.
 * Scripts: refused with `allow_scripts` named without a scripted origin, allowed with one.
 */
import { ADMIN_CONSOLE_MESSAGES as M, ADMIN_COVER_LIMITS, adminPaths, adminTitleDetailSchema, auditPageSchema } from '@lectern/core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { multipart } from '../helpers/multipart.ts';
import { epubBook } from '../ingest/helpers.ts';

const PASSWORD = 'a long enough password';

/** a cover as the title editor sends it: one `file` part (or another name, to be refused) */
const cover = (data: Uint8Array, field = 'file', name = 'cover.png') => multipart([{ name, data }], { field, type: 'image/png' });

const image = (width: number, height: number, format: 'png' | 'jpeg' | 'webp') =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .withMetadata({ exif: { IFD0: { Copyright: 'secret place' } } })
    .toFormat(format)
    .toBuffer();

async function withTitle(engine: (typeof ENGINES)[number], overrides: Parameters<typeof startTestApp>[1] = {}) {
  const t = await startTestApp(engine, overrides);
  const accounts = t.lectern.services.accounts;
  await accounts.createUser({ email: 'root@example.com', password: PASSWORD, role: 'admin' });
  await accounts.createUser({ email: 'maker@example.com', password: PASSWORD, role: 'content-creator' });
  const admin = new TestClient(t.lectern.app);
  await admin.login('root@example.com', PASSWORD);
  const creator = new TestClient(t.lectern.app);
  await creator.login('maker@example.com', PASSWORD);
  const [reader] = await signedInSubscribers(t.lectern, ['ada@example.com']);
  const data = epubBook({ identifier: 'urn:uuid:0c0ffee0-0000-4000-8000-000000000001', title: 'Cover Story', creator: 'Ann Inks', chapters: [{ path: 'one.xhtml', label: 'One', body: '<h1>One</h1><p>Words.</p>' }] });
  const upload = multipart([{ name: 'cover-story.epub', data }], { type: 'application/epub+zip' });
  const res = await creator.request('POST', adminPaths.import(), upload);
  expect(res.statusCode, res.body).toBe(201);
  const bookId = (res.json().imported as { book_id: string }[])[0]!.book_id;
  return { t, admin, creator, reader: reader, anon: new TestClient(t.lectern.app), bookId };
}

describe.each(ENGINES)('a title’s cover and scripts from the console on %s', (engine) => {
  let ctx: Awaited<ReturnType<typeof withTitle>>;
  beforeAll(async () => {
    ctx = await withTitle(engine);
  });
  afterAll(() => ctx.t.close());

  const entries = async (action: string) => auditPageSchema.parse((await ctx.admin.get(`${adminPaths.audit()}?action=${action}`)).json()).results;

  it('stores a PNG as the cover, without its metadata, served with its card variant, audited', async () => {
    const png = await image(600, 900, 'png');
    const before = adminTitleDetailSchema.parse((await ctx.admin.get(adminPaths.title(ctx.bookId))).json());
    const res = await ctx.creator.request('PUT', adminPaths.titleCover(ctx.bookId), cover(png));
    expect(res.statusCode, res.body).toBe(200);
    const after = adminTitleDetailSchema.parse(res.json());
    expect(after.version).toBe(before.version + 1);
    expect(after.cover_url).toContain(`v=${after.version}`);
    const served = await ctx.anon.get(after.cover_url!);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toContain('image/png');
    const meta = await sharp(served.rawPayload).metadata();
    expect([meta.width, meta.height, meta.format, meta.exif]).toEqual([600, 900, 'png', undefined]);
    const card = await ctx.anon.get(`/api/v1/book/${encodeURIComponent(ctx.bookId)}/cover?h=360`);
    expect(card.statusCode).toBe(200);
    expect((await sharp(card.rawPayload).metadata()).height).toBe(360);
    const [entry] = await entries('title.cover');
    expect(entry).toMatchObject({ actor_label: 'maker@example.com', target_id: ctx.bookId, detail: { media_type: 'image/png', width: 600, height: 900 } });
    // a second cover replaces the first (a JPEG this time)
    const again = await ctx.admin.request('PUT', adminPaths.titleCover(ctx.bookId), cover(await image(300, 400, 'jpeg'), 'file', 'x.png'));
    expect(again.statusCode, again.body).toBe(200);
    const jpeg = await ctx.anon.get(adminTitleDetailSchema.parse(again.json()).cover_url!);
    expect(jpeg.headers['content-type']).toContain('image/jpeg');
  });

  it('refuses hostile or wrong files with `file` named, changing nothing and writing no entry', async () => {
    const before = adminTitleDetailSchema.parse((await ctx.admin.get(adminPaths.title(ctx.bookId))).json());
    const count = (await entries('title.cover')).length;
    const png = await image(40, 40, 'png');
    const jpeg = await image(40, 40, 'jpeg');
    const cases: [Uint8Array, string][] = [
      [new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), M.coverKind],
      [Buffer.concat([png.subarray(0, 8), jpeg.subarray(3)]), M.coverBroken], // a PNG signature before other bytes
      [png.subarray(0, png.length - 30), M.coverBroken], // truncated
      [await sharp({ create: { width: 7000, height: 10, channels: 3, background: 'white' } }).png().toBuffer(), M.coverDimensions(ADMIN_COVER_LIMITS.maxSide, 25)],
      [Buffer.alloc(ADMIN_COVER_LIMITS.maxBytes + 10, 0xff), M.coverTooLarge(5)],
    ];
    for (const [data, message] of cases) {
      const res = await ctx.admin.request('PUT', adminPaths.titleCover(ctx.bookId), cover(data));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().errors.file).toEqual([message]);
    }
    // not multipart, or the part under another name
    const json = await ctx.admin.request('PUT', adminPaths.titleCover(ctx.bookId), { json: {} });
    expect([json.statusCode, json.json().errors?.file]).toEqual([400, [M.coverMissing]]);
    const other = await ctx.admin.request('PUT', adminPaths.titleCover(ctx.bookId), cover(png, 'picture'));
    expect([other.statusCode, other.json().errors?.file]).toEqual([400, [M.coverMissing]]);
    const after = adminTitleDetailSchema.parse((await ctx.admin.get(adminPaths.title(ctx.bookId))).json());
    expect(after.version).toBe(before.version);
    expect(await entries('title.cover')).toHaveLength(count);
  });

  it('refuses the cover and the scripts to readers (403) and visitors (401), and a missing title is 404', async () => {
    const png = await image(40, 40, 'png');
    expect((await ctx.reader.request('PUT', adminPaths.titleCover(ctx.bookId), cover(png))).statusCode).toBe(403);
    expect((await ctx.anon.request('PUT', adminPaths.titleCover(ctx.bookId), cover(png))).statusCode).toBe(401);
    expect((await ctx.reader.request('PUT', adminPaths.titleScripts(ctx.bookId), { json: { allow_scripts: false } })).statusCode).toBe(403);
    expect((await ctx.anon.request('PUT', adminPaths.titleScripts(ctx.bookId), { json: { allow_scripts: false } })).statusCode).toBe(401);
    expect((await ctx.admin.request('PUT', adminPaths.titleCover('no-such-title'), cover(png))).statusCode).toBe(404);
    // a cover sent without the CSRF token changes nothing
    expect((await ctx.admin.request('PUT', adminPaths.titleCover(ctx.bookId), { ...cover(png), csrf: false })).statusCode).toBe(403);
  });

  it('refuses to allow scripts without a scripted origin, naming allow_scripts; bad input named too', async () => {
    const res = await ctx.admin.request('PUT', adminPaths.titleScripts(ctx.bookId), { json: { allow_scripts: true } });
    expect([res.statusCode, res.json().errors?.allow_scripts]).toEqual([400, [M.noScriptedOrigin]]);
    const bad = await ctx.admin.request('PUT', adminPaths.titleScripts(ctx.bookId), { json: { allow_scripts: 'yes' } });
    expect([bad.statusCode, Object.keys(bad.json().errors ?? {})]).toEqual([400, ['allow_scripts']]);
    const detail = adminTitleDetailSchema.parse((await ctx.admin.get(adminPaths.title(ctx.bookId))).json());
    expect([detail.allow_scripts, detail.scripts_available]).toEqual([false, false]);
    expect(await entries('title.scripts')).toEqual([]);
  });

  it('suggests topics and publishers that a title in the catalog carries, not those only retired titles carry', async () => {
    const names = async (c: TestClient, query: string) => ctx.admin === c ? (await c.get(`${adminPaths.names()}?${query}`)).json().results : (await c.get(`${adminPaths.names()}?${query}`)).statusCode;
    const { version } = adminTitleDetailSchema.parse((await ctx.admin.get(adminPaths.title(ctx.bookId))).json());
    const saved = await ctx.admin.request('PATCH', adminPaths.title(ctx.bookId), { json: { version, topics: ['Sailing', 'Salt marshes', 'Knots'], publisher: 'Saltwater Press' } });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(await names(ctx.admin, 'kind=topic&q=sa')).toEqual(['Sailing', 'Salt marshes']);
    expect(await names(ctx.admin, 'kind=publisher&q=SALT')).toEqual(['Saltwater Press']);
    expect(await names(ctx.admin, 'kind=topic&q=%25')).toEqual([]); // punctuation alone starts no name (and a wildcard is no wildcard)
    expect(await names(ctx.creator, 'kind=topic&q=sa')).toBe(200);
    // only a retired title carries them now: not offered
    expect((await ctx.admin.post(adminPaths.titleRetire(ctx.bookId))).statusCode).toBe(200);
    expect(await names(ctx.admin, 'kind=topic&q=sa')).toEqual([]);
    expect(await names(ctx.admin, 'kind=publisher')).toEqual([]);
    expect((await ctx.admin.post(adminPaths.titleRestore(ctx.bookId))).statusCode).toBe(200);
    expect(await names(ctx.admin, 'kind=topic&q=kn')).toEqual(['Knots']);
    // bad input named; readers and visitors refused
    const bad = await ctx.admin.get(`${adminPaths.names()}?kind=planet`);
    expect([bad.statusCode, bad.json().errors?.kind]).toEqual([400, [M.unknownNameKind]]);
    expect(await names(ctx.reader, 'kind=topic')).toBe(403);
    expect(await names(ctx.anon, 'kind=topic')).toBe(401);
  });
});

describe.each(ENGINES)('scripts allowed with a scripted origin on %s', (engine) => {
  let ctx: Awaited<ReturnType<typeof withTitle>>;
  beforeAll(async () => {
    ctx = await withTitle(engine, { scriptedOrigin: 'http://books.localhost:8081', scriptedPort: 0 });
  });
  afterAll(() => ctx.t.close());

  it('sets and clears the flag, audited with before and after; the reader sees it', async () => {
    const res = await ctx.creator.request('PUT', adminPaths.titleScripts(ctx.bookId), { json: { allow_scripts: true } });
    expect(res.statusCode, res.body).toBe(200);
    expect(adminTitleDetailSchema.parse(res.json())).toMatchObject({ allow_scripts: true, scripts_available: true });
    const book = await ctx.reader.get(`/api/v1/book/${encodeURIComponent(ctx.bookId)}/`);
    const chapter = await ctx.reader.get(`/api/v1/book/${encodeURIComponent(ctx.bookId)}/chapter/${book.json().chapters[0].full_path}`);
    expect(chapter.json().allow_scripts).toBe(true);
    const off = await ctx.admin.request('PUT', adminPaths.titleScripts(ctx.bookId), { json: { allow_scripts: false } });
    expect(adminTitleDetailSchema.parse(off.json()).allow_scripts).toBe(false);
    const log = auditPageSchema.parse((await ctx.admin.get(`${adminPaths.audit()}?action=title.scripts`)).json()).results;
    expect(log.map((e) => [e.actor_label, e.detail.allow_scripts])).toEqual([
      ['root@example.com', [true, false]],
      ['maker@example.com', [false, true]],
    ]);
  });
});
