/**
 * The annotation store (docs/decisions.md "Annotations") on both engines with the real sample library: the Annotator
 * wire format, search and paging, every permission case of reader.md §6 with its status code, the auth token (expiry,
 * forgery, algorithm confusion, where it may travel), the limits, the fragment sanitiser and the export.
 *
 * Store calls go through `store()`, which sends what an unmodified Annotator client sends: JSON and the token
 * header, no cookie and no CSRF header.
 */
import { createHmac } from 'node:crypto';
import {
  ANNOTATION_GROUPS,
  ANNOTATION_MESSAGES,
  type Annotation,
  annotationExportSchema,
  annotationPaths,
  annotationSchema,
  annotationSearchResponseSchema,
  AUTH_TOKEN_HEADER,
  bookDetailSchema,
  contentMetadataSchema,
  CONSUMER_KEY,
  pagedSchema,
  PDF_FRAGMENT_SPEC,
  pdfPageSelector,
} from '@lectern/core';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsersRepository } from '../../src/repositories/users.ts';
import { AnnotationTokens } from '../../src/services/annotation-tokens.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { importSamples } from '../helpers/sample.ts';

type Book = ReturnType<typeof bookDetailSchema.parse>;
const PASSWORD = 'a long enough password';
const SECRET = 'test-secret-'.padEnd(40, 'x');
const WORLD = ANNOTATION_GROUPS.world;

const b64 = (v: string | Buffer) => Buffer.from(v).toString('base64url');
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
const tokenKey = () => createHmac('sha256', SECRET).update('annotator-auth-token-key').digest();

describe.each(ENGINES)('annotation store on %s', (engine) => {
  let t: TestApp;
  let ada: TestClient;
  let bob: TestClient;
  let carl: TestClient;
  let admin: TestClient;
  let lapsed: TestClient;
  let anon: TestClient;
  const tokens = new Map<TestClient, string>();
  const uuids = new Map<TestClient, string>();
  let book: Book;
  let other: Book;
  let open: string; // a sample chapter: everyone may read it
  let locked: string; // a chapter only live subscriptions may read
  let locked2: string;
  let chapterPrefix: (href: string, b?: Book) => string;
  let bookPrefix: string;

  /** A store call as an unmodified Annotator client makes it: the token header, no cookie, no CSRF header. */
  const store = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    opts: { as?: TestClient | null; token?: string; json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<LightMyRequestResponse> => {
    const token = opts.token ?? (opts.as ? tokens.get(opts.as) : undefined);
    const headers: Record<string, string> = { ...opts.headers };
    if (token !== undefined) headers[AUTH_TOKEN_HEADER] = token;
    return t.lectern.app.inject({ method, url, headers, ...(opts.json !== undefined ? { payload: opts.json as object } : {}) });
  };
  const create = async (as: TestClient, href: string, body: Record<string, unknown>): Promise<Annotation> => {
    const res = await store('POST', annotationPaths.annotations(chapterPrefix(href)), { as, json: body });
    expect(res.statusCode, res.body).toBe(200);
    return annotationSchema.parse(res.json());
  };
  const item = (a: Pick<Annotation, 'id' | 'chapter_href'>) => annotationPaths.annotation(chapterPrefix(a.chapter_href), a.id);
  /** A search as Ada unless told otherwise (null: anonymous). */
  const search = async (prefix: string, query: string, as: TestClient | null = ada) => {
    const res = await store('GET', `${annotationPaths.search(prefix)}${query ? `?${query}` : ''}`, { as });
    expect(res.statusCode, res.body).toBe(200);
    return annotationSearchResponseSchema.parse(res.json());
  };

  async function signIn(email: string, role?: 'admin' | 'preview-creator', status: 'subscriber' | 'expired' = 'subscriber') {
    await t.lectern.services.accounts.createUser({ email, password: PASSWORD, status, ...(role ? { role } : {}) });
    const c = new TestClient(t.lectern.app);
    await c.login(email, PASSWORD);
    return c;
  }
  async function fetchToken(c: TestClient) {
    const res = await c.get(annotationPaths.token());
    expect(res.statusCode, res.body).toBe(200);
    tokens.set(c, res.body);
    uuids.set(c, claimsOf(res.body).userId as string);
  }

  beforeAll(async () => {
    t = await startTestApp(engine);
    await importSamples(t.lectern);
    [ada, bob, carl] = await signedInSubscribers(t.lectern, ['ada@example.com', 'bob@example.com', 'carl@example.com']);
    admin = await signIn('root@example.com', 'admin');
    lapsed = await signIn('lapsed@example.com');
    anon = new TestClient(t.lectern.app);
    for (const c of [ada, bob, carl, admin, lapsed]) await fetchToken(c);
    const list = pagedSchema(contentMetadataSchema).parse((await anon.get('/api/v1/book/?page_size=100')).json()).results;
    book = bookDetailSchema.parse((await anon.get(list.find((b) => /War of the Worlds/.test(b.title))!.api_url)).json());
    other = bookDetailSchema.parse((await anon.get(list.find((b) => /Alice/.test(b.title))!.api_url)).json());
    open = book.chapters.find((c) => c.as_sample)!.full_path;
    const closed = book.chapters.filter((c) => !c.as_sample && !c.is_public);
    locked = closed.at(-2)!.full_path;
    locked2 = closed.at(-3)!.full_path;
    chapterPrefix = (href, b = book) => annotationPaths.prefix(b.title_safe, b.book_id, href);
    bookPrefix = annotationPaths.prefix(book.title_safe, book.book_id);
  });
  afterAll(() => t.close());

  describe('the auth token', () => {
    it('is an HS256 token with consumerKey, userId, issuedAt and ttl, for signed-in readers only', async () => {
      expect((await anon.get(annotationPaths.token())).statusCode).toBe(401);
      const res = await ada.get(annotationPaths.token());
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.headers['cache-control']).toBe('private, no-store');
      const [header] = res.body.split('.');
      expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
      const claims = claimsOf(res.body);
      expect(claims).toMatchObject({ consumerKey: CONSUMER_KEY, userId: uuids.get(ada), ttl: 3600 });
      expect(Math.abs(Date.parse(claims.issuedAt as string) - Date.now())).toBeLessThan(60_000);
    });

    it('refuses expired, forged and other-algorithm tokens with a 401, even on search', async () => {
      const real = tokens.get(ada)!;
      const claims = claimsOf(real);
      const [h, p] = real.split('.') as [string, string];
      const sign = (header: object, payload: object, alg: 'sha256' | 'sha512' = 'sha256', key: Buffer | string = tokenKey()) => {
        const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(payload))}`;
        return `${input}.${b64(createHmac(alg, key).update(input).digest())}`;
      };
      // An hour and a second ago, signed with the real key: expired by issuedAt + ttl and by exp.
      const past = new AnnotationTokens(SECRET, 3600, () => new Date(Date.now() - 3_601_000)).issue(claims.userId as string, claims.sid as string);
      const bad: [string, string][] = [
        ['expired', past],
        ['exp passed, issuedAt fresh', sign({ alg: 'HS256', typ: 'JWT' }, { ...claims, exp: Math.floor(Date.now() / 1000) - 1 })],
        ['ttl beyond the server\'s', sign({ alg: 'HS256', typ: 'JWT' }, { ...claims, ttl: 10 * 86400, exp: Math.floor(Date.now() / 1000) + 10 * 86400 })],
        ['wrong signature (the raw secret as key)', sign({ alg: 'HS256', typ: 'JWT' }, claims, 'sha256', SECRET)],
        ['signature of another payload', `${h}.${b64(JSON.stringify({ ...claims, userId: uuids.get(bob) }))}.${real.split('.')[2]}`],
        ['alg none', `${b64(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${p}.`],
        ['alg none with a signature', `${b64(JSON.stringify({ alg: 'none' }))}.${p}.${real.split('.')[2]}`],
        ['alg HS512', sign({ alg: 'HS512', typ: 'JWT' }, claims, 'sha512')],
        ['alg RS256 with the HMAC key', sign({ alg: 'RS256', typ: 'JWT' }, claims)],
        ['a kid header', sign({ alg: 'HS256', typ: 'JWT', kid: '../secret' }, claims)],
        ['no consumerKey', sign({ alg: 'HS256', typ: 'JWT' }, { ...claims, consumerKey: undefined })],
        ['another consumer', sign({ alg: 'HS256', typ: 'JWT' }, { ...claims, consumerKey: 'annotateit' })],
        ['no ttl', sign({ alg: 'HS256', typ: 'JWT' }, { ...claims, ttl: undefined })],
        ['issued in the future', sign({ alg: 'HS256', typ: 'JWT' }, { ...claims, issuedAt: new Date(Date.now() + 600_000).toISOString() })],
        ['another user in a valid session', sign({ alg: 'HS256', typ: 'JWT' }, { ...claims, userId: uuids.get(bob) })],
        ['garbage', 'not.a.token'],
      ];
      for (const [name, token] of bad) {
        const res = await store('GET', annotationPaths.search(chapterPrefix(open)), { token });
        expect(res.statusCode, name).toBe(401);
        const post = await store('POST', annotationPaths.annotations(chapterPrefix(open)), { token, json: { text: name } });
        expect(post.statusCode, name).toBe(401);
      }
      // The well-formed one still works, and the test-made token with the real key works too (the key is right).
      expect((await store('GET', annotationPaths.search(chapterPrefix(open)), { token: real })).statusCode).toBe(200);
      expect((await store('GET', annotationPaths.search(chapterPrefix(open)), { token: sign({ alg: 'HS256', typ: 'JWT' }, claims) })).statusCode).toBe(200);
    });

    it('is believed only in the x-annotator-auth-token header: not in a cookie, the query or as a session', async () => {
      const mine = await create(ada, open, { text: 'private thoughts', permissions: { read: [uuids.get(ada)] } });
      const token = tokens.get(ada)!;
      const url = item(mine);
      // In the query or a cookie: an anonymous call (a private note is not found, creating needs a sign-in).
      expect((await store('GET', `${url}?${AUTH_TOKEN_HEADER}=${token}`)).statusCode).toBe(404);
      expect((await store('GET', url, { headers: { cookie: `${AUTH_TOKEN_HEADER}=${token}` } })).statusCode).toBe(404);
      const viaQuery = await store('POST', `${annotationPaths.annotations(chapterPrefix(open))}?${AUTH_TOKEN_HEADER}=${token}`, { json: { text: 'x' } });
      expect(viaQuery.statusCode).toBe(401);
      expect(viaQuery.json().detail).toBe(ANNOTATION_MESSAGES.signInToAnnotate);
      // The session cookie gives no authority on the store either.
      const session = await ada.request('GET', url);
      expect(session.statusCode).toBe(404);
      const sessionPost = await ada.request('POST', annotationPaths.annotations(chapterPrefix(open)), { json: { text: 'x' } });
      expect(sessionPost.statusCode).toBe(401);
      // In the header: Ada's own, with no cookie and no CSRF header, from any origin (the header is the defence).
      expect((await store('GET', url, { as: ada })).statusCode).toBe(200);
      const crossSite = await store('PUT', url, { as: ada, json: { text: 'edited' }, headers: { origin: 'https://elsewhere.example' } });
      expect(crossSite.statusCode).toBe(200);
    });

    it('ends with the session it was issued in', async () => {
      const c = await signIn('leaver@example.com');
      await fetchToken(c);
      expect((await store('POST', annotationPaths.annotations(chapterPrefix(open)), { as: c, json: { text: 'hi' } })).statusCode).toBe(200);
      expect((await c.post('/logout/')).statusCode).toBeLessThan(400);
      expect((await store('POST', annotationPaths.annotations(chapterPrefix(open)), { as: c, json: { text: 'again' } })).statusCode).toBe(401);
    });
  });

  describe('the wire format', () => {
    it('round-trips every field of the Annotator store model, the reader fields and the selectors', async () => {
      const quote = `${'It was the first of the meteorites. '.repeat(25)}End.`;
      const body = {
        quote,
        ranges: [{ start: '/p[3]', startOffset: 4, end: '/p[5]/span[1]', endOffset: 12 }],
        selectors: [
          { type: 'TextQuoteSelector', exact: quote, prefix: 'Then came ', suffix: ' And so' },
          { type: 'TextPositionSelector', start: 1200, end: 1200 + quote.length },
        ],
        text: 'A **bold** note with [a link](https://example.org)',
        tags: 'martians  meteorites\tcommon martians',
        uri: 'https://lectern.example/library/view/x',
        fragment: '<p onclick="alert(1)">It was <script>alert(2)</script><a href="javascript:alert(3)">the</a> first <img src="https://tracker.example/x.png"></p>',
        highlights: ['It was the first', { content: 'of the meteorites' }, 42],
        user: 'someone-else',
        consumer: 'elsewhere',
        id: 'chosen-by-client',
        created: '2000-01-01T00:00:00Z',
        card_url: 'javascript:alert(1)',
        annotator_schema_version: 'v1.0',
      };
      const made = await create(ada, open, body);
      expect(made.id).not.toBe('chosen-by-client');
      expect(made).toMatchObject({
        quote,
        ranges: body.ranges,
        selectors: body.selectors,
        text: body.text,
        tags: ['martians', 'meteorites', 'common'],
        uri: body.uri,
        user: uuids.get(ada),
        consumer: CONSUMER_KEY,
        permissions: { read: [WORLD], update: [], delete: [], admin: [] },
        fragment: body.fragment,
        highlights: ['It was the first', 'of the meteorites'],
        is_public: true,
        annotation_type: 3,
        preview_annotation: false,
        book_id: book.book_id,
        chapter_href: open,
      });
      expect(made.truncated_quote).toHaveLength(751);
      expect(made.truncated_quote.endsWith('…')).toBe(true);
      expect(quote.startsWith(made.truncated_quote.slice(0, 750))).toBe(true);
      expect(made.sanitized_fragment).not.toMatch(/script|onclick|javascript:|tracker/);
      expect(made.sanitized_fragment).toContain('first');
      expect(made.card_url).toMatch(/^\/library\/view\//);
      expect(made.card_url).toContain(made.id);
      expect(made.created).toBe(made.updated);
      expect(Date.now() - Date.parse(made.created)).toBeLessThan(60_000);
      expect(made.links).toEqual([{ type: 'text/html', rel: 'alternate', href: expect.stringContaining(book.book_id) }]);

      const read = await store('GET', item(made), { as: bob });
      expect(read.statusCode).toBe(200);
      expect(read.headers['cache-control']).toBe('private, no-store');
      expect(annotationSchema.parse(read.json())).toEqual(made);
      // Annotator clients append /annotations without the trailing slash; both work.
      const bare = await store('POST', `${chapterPrefix(open)}/annotations`, { as: ada, json: { quote: 'The chances' } });
      expect(bare.statusCode).toBe(200);
      // Without selectors the quote becomes a TextQuoteSelector; the default uri is the chapter's reader address.
      expect(annotationSchema.parse(bare.json())).toMatchObject({
        selectors: [{ type: 'TextQuoteSelector', exact: 'The chances', prefix: '', suffix: '' }],
        uri: expect.stringContaining(`/library/view/`),
        text: '',
        tags: [],
      });

      // An update changes what it names and keeps the rest; it cannot move the author or the times' origin.
      const put = await store('PUT', item(made), { as: ada, json: { text: 'edited', tags: ['one', 'two'], user: uuids.get(bob), created: '1999-01-01T00:00:00Z' } });
      expect(put.statusCode, put.body).toBe(200);
      const updated = annotationSchema.parse(put.json());
      expect(updated).toMatchObject({ text: 'edited', tags: ['one', 'two'], quote, user: uuids.get(ada), created: made.created, ranges: body.ranges });
      expect(updated.updated >= made.updated).toBe(true);
      expect(annotationSchema.parse((await store('GET', item(made), { as: ada })).json())).toEqual(updated);

      const del = await store('DELETE', item(made), { as: ada });
      expect(del.statusCode).toBe(204);
      expect(del.body).toBe('');
      expect((await store('GET', item(made), { as: ada })).statusCode).toBe(404);
      expect((await store('DELETE', item(made), { as: ada })).statusCode).toBe(404);
    });

    it('answers 404 outside the annotation\'s book or chapter, and for unknown books, chapters and ids', async () => {
      const a = await create(ada, open, { text: 'scoped' });
      expect((await store('GET', annotationPaths.annotation(bookPrefix, a.id), { as: ada })).statusCode).toBe(200);
      expect((await store('GET', annotationPaths.annotation(chapterPrefix(locked), a.id), { as: ada })).statusCode).toBe(404);
      const otherChapter = other.chapters[0]!.full_path;
      expect((await store('GET', annotationPaths.annotation(chapterPrefix(otherChapter, other), a.id), { as: ada })).statusCode).toBe(404);
      expect((await store('DELETE', annotationPaths.annotation(chapterPrefix(otherChapter, other), a.id), { as: ada })).statusCode).toBe(404);
      expect((await store('GET', annotationPaths.annotation(chapterPrefix(open), 'no-such-id'), { as: ada })).statusCode).toBe(404);
      expect((await store('GET', annotationPaths.search(annotationPaths.prefix('x', 'no-such-book', open)), { as: ada })).statusCode).toBe(404);
      expect((await store('POST', annotationPaths.annotations(chapterPrefix('no-such-chapter.xhtml')), { as: ada, json: {} })).statusCode).toBe(404);
      const bookLevel = await store('POST', annotationPaths.annotations(bookPrefix), { as: ada, json: { text: 'where?' } });
      expect(bookLevel.statusCode).toBe(400);
      expect(Object.keys(bookLevel.json().errors)).toEqual(['chapter_href']);
      expect((await store('GET', `${chapterPrefix(open)}/elsewhere`, { as: ada })).statusCode).toBe(404);
      // The store is the same whatever the title segment says (the book id decides).
      expect((await store('GET', annotationPaths.annotation(annotationPaths.prefix('renamed', book.book_id, open), a.id), { as: ada })).statusCode).toBe(200);
    });

    it('is one annotation when the same one is sent twice, even at once; sent again after an edit, it is a new one', async () => {
      const body = { quote: 'twice', text: 'sent twice', ranges: [] };
      const [a, b] = await Promise.all([create(ada, open, body), create(ada, open, body)]);
      expect(b.id).toBe(a.id);
      expect((await search(chapterPrefix(open), 'text=sent twice')).total).toBe(1);
      // another reader's same words are their own
      expect((await create(bob, open, body)).id).not.toBe(a.id);
      // edited, then the first words sent again: a second annotation, the edited one untouched
      expect((await store('PUT', item(a), { as: ada, json: { text: 'edited' } })).statusCode).toBe(200);
      const again = await create(ada, open, body);
      expect(again.id).not.toBe(a.id);
      expect(again.text).toBe('sent twice');
      expect(annotationSchema.parse((await store('GET', item(a), { as: ada })).json()).text).toBe('edited');
    });
  });

  describe('search', () => {
    let notes: Annotation[];
    let prefix: string;

    beforeAll(async () => {
      prefix = chapterPrefix(locked2);
      notes = [];
      notes.push(await create(ada, locked2, { text: 'The quick brown fox', quote: 'heat ray', tags: 'weapons fire' }));
      notes.push(await create(ada, locked2, { text: 'A lazy dog', quote: 'the black smoke', tags: 'weapons' }));
      notes.push(await create(bob, locked2, { text: 'Quick thinking', quote: 'The heat-ray flashed', tags: 'fire', uri: 'urn:x:bob' }));
      notes.push(await create(bob, locked2, { text: 'only mine', quote: 'secret', permissions: { read: [uuids.get(bob)] } }));
      for (let i = 0; i < 6; i++) notes.push(await create(carl, locked2, { text: `paging ${i}`, quote: 'cylinder' }));
    });

    it('filters by text, quote and tags (every typed word, any order, any case), user and uri', async () => {
      const ids = async (q: string, as: TestClient = ada) => (await search(prefix, q, as)).rows.map((r) => r.id).sort();
      const id = (i: number) => notes[i]!.id;
      expect(await ids('text=quick')).toEqual([id(0), id(2)].sort());
      expect(await ids('text=FOX%20quick')).toEqual([id(0)]);
      expect(await ids('text=quick%20cat')).toEqual([]);
      expect(await ids('quote=heat')).toEqual([id(0), id(2)].sort());
      expect(await ids('quote=ray%20flashed')).toEqual([id(2)]);
      expect(await ids('tags=weapons')).toEqual([id(0), id(1)].sort());
      expect(await ids('tags=fire%20weapons')).toEqual([id(0)]);
      expect(await ids(`user=${uuids.get(bob)}`)).toEqual([id(2)]);
      expect(await ids(`user=${uuids.get(bob)}`, bob)).toEqual([id(2), id(3)].sort());
      expect(await ids('uri=urn%3Ax%3Abob')).toEqual([id(2)]);
      expect(await ids('uri=urn%3Ax')).toEqual([]);
      // LIKE's wildcards are taken literally.
      expect(await ids('text=%25')).toEqual([]);
      expect(await ids('text=_')).toEqual([]);
    });

    it('pages with limit and offset; total counts every match the caller may read', async () => {
      const all = await search(prefix, 'limit=100');
      expect(all.total).toBe(9); // Bob's private one is not Ada's to see
      expect(all.rows).toHaveLength(9);
      const page1 = await search(prefix, 'limit=4&offset=0');
      const page2 = await search(prefix, 'limit=4&offset=4');
      const page3 = await search(prefix, 'limit=4&offset=8');
      expect([page1.total, page2.total, page3.total]).toEqual([9, 9, 9]);
      expect([...page1.rows, ...page2.rows, ...page3.rows].map((r) => r.id)).toEqual(all.rows.map((r) => r.id));
      expect((await search(prefix, 'limit=0')).rows).toEqual([]);
      expect((await search(prefix, 'text=paging&limit=2')).total).toBe(6);
      expect((await search(prefix, '')).rows.length).toBeLessThanOrEqual(20);
      for (const bad of ['limit=-1', 'limit=abc', 'limit=5000', 'offset=-3']) {
        const res = await store('GET', `${annotationPaths.search(prefix)}?${bad}`, { as: ada });
        expect(res.statusCode, bad).toBe(400);
        expect(Object.keys(res.json().errors), bad).toEqual([bad.split('=')[0]]);
      }
    });

    it('is scoped to the chapter of the prefix, or the whole book without one; index lists the same', async () => {
      const inChapter = await search(prefix, 'limit=1000');
      expect(inChapter.rows.every((r) => r.chapter_href === locked2)).toBe(true);
      const inBook = await search(bookPrefix, 'limit=1000');
      expect(inBook.total).toBeGreaterThan(inChapter.total);
      expect(new Set(inBook.rows.map((r) => r.chapter_href)).size).toBeGreaterThan(1);
      const index = await store('GET', annotationPaths.annotations(prefix), { as: ada });
      expect(index.statusCode).toBe(200);
      expect((index.json<Annotation[]>()).map((r) => r.id).sort()).toEqual(inChapter.rows.map((r) => r.id).sort());
    });
  });

  describe('permissions (reader.md §6)', () => {
    const perms = (p: Partial<Record<'read' | 'update' | 'delete' | 'admin', string[]>>) => ({ permissions: p });

    it('reads: world, authenticated, consumer, a listed user, the author and the consumer admin', async () => {
      const cases: [string, Record<string, unknown>, { anon: number; bob: number; carl: number; ada: number; admin: number }][] = [
        ['default (world)', {}, { anon: 200, bob: 200, carl: 200, ada: 200, admin: 200 }],
        ['author only', perms({ read: [] }), { anon: 404, bob: 404, carl: 404, ada: 200, admin: 200 }],
        ['private toggle', { is_public: false }, { anon: 404, bob: 404, carl: 404, ada: 200, admin: 200 }],
        ['authenticated', perms({ read: [ANNOTATION_GROUPS.authenticated] }), { anon: 404, bob: 200, carl: 200, ada: 200, admin: 200 }],
        ['consumer', perms({ read: [ANNOTATION_GROUPS.consumer] }), { anon: 404, bob: 200, carl: 200, ada: 200, admin: 200 }],
        ['bob by id', perms({ read: ['placeholder-bob'] }), { anon: 404, bob: 200, carl: 404, ada: 200, admin: 200 }],
      ];
      for (const [name, extra, expected] of cases) {
        const body = JSON.parse(JSON.stringify(extra).replace('placeholder-bob', uuids.get(bob)!));
        const a = await create(ada, open, { text: name, ...body });
        expect(a.is_public, name).toBe(expected.anon === 200);
        expect(a.card_url === null, name).toBe(expected.anon !== 200);
        const got = {
          anon: (await store('GET', item(a))).statusCode,
          bob: (await store('GET', item(a), { as: bob })).statusCode,
          carl: (await store('GET', item(a), { as: carl })).statusCode,
          ada: (await store('GET', item(a), { as: ada })).statusCode,
          admin: (await store('GET', item(a), { as: admin })).statusCode,
        };
        expect(got, name).toEqual(expected);
        // Search agrees with read: what cannot be read is left out, never refused.
        for (const [who, client] of [['anon', null], ['bob', bob], ['carl', carl], ['ada', ada], ['admin', admin]] as const) {
          const found = (await search(chapterPrefix(open), `text=${encodeURIComponent(name)}&limit=1000`, client)).rows.some((r) => r.id === a.id);
          expect(found, `${name}: search as ${who}`).toBe(expected[who] === 200);
        }
        // A note the caller may not read is not found for update and delete either.
        if (expected.bob === 404) {
          expect((await store('PUT', item(a), { as: bob, json: { text: 'x' } })).statusCode, name).toBe(404);
          expect((await store('DELETE', item(a), { as: bob })).statusCode, name).toBe(404);
          expect((await store('DELETE', item(a))).statusCode, name).toBe(404);
        }
      }
    });

    it('update and delete: 401 anonymous, 403 signed in, unless a group, the author or the consumer admin allows', async () => {
      const a = await create(ada, open, { text: 'defaults' });
      expect((await store('PUT', item(a), { json: { text: 'anon' } })).statusCode).toBe(401);
      expect((await store('DELETE', item(a))).statusCode).toBe(401);
      const denied = await store('PUT', item(a), { as: bob, json: { text: 'bob' } });
      expect(denied.statusCode).toBe(403);
      expect(denied.json().detail).toBe(ANNOTATION_MESSAGES.denied('update'));
      expect((await store('DELETE', item(a), { as: bob })).statusCode).toBe(403);
      expect((await store('PUT', item(a), { as: ada, json: { text: 'mine' } })).statusCode).toBe(200);
      expect((await store('PUT', item(a), { as: admin, json: { text: 'admin' } })).statusCode).toBe(200);
      expect(annotationSchema.parse((await store('GET', item(a))).json()).text).toBe('admin');

      const groups: [string, string[], { anon: number; bob: number; carl: number }][] = [
        ['world', [WORLD], { anon: 200, bob: 200, carl: 200 }],
        ['authenticated', [ANNOTATION_GROUPS.authenticated], { anon: 401, bob: 200, carl: 200 }],
        ['consumer', [ANNOTATION_GROUPS.consumer], { anon: 401, bob: 200, carl: 200 }],
        ['bob', ['placeholder-bob'], { anon: 401, bob: 200, carl: 403 }],
      ];
      for (const [name, list, expected] of groups) {
        const l = list.map((p) => (p === 'placeholder-bob' ? uuids.get(bob)! : p));
        const u = await create(ada, open, { text: `update ${name}`, ...perms({ update: l }) });
        const got = {
          anon: (await store('PUT', item(u), { json: { text: 'a' } })).statusCode,
          bob: (await store('PUT', item(u), { as: bob, json: { text: 'b' } })).statusCode,
          carl: (await store('PUT', item(u), { as: carl, json: { text: 'c' } })).statusCode,
        };
        expect(got, `update ${name}`).toEqual(expected);
        // update does not imply delete
        expect((await store('DELETE', item(u), { as: bob })).statusCode, `update ${name}`).toBe(403);

        for (const [who, client] of [['anon', null], ['carl', carl], ['bob', bob]] as const) {
          const d = await create(ada, open, { text: `delete ${name} by ${who}`, ...perms({ delete: l }) });
          const status = (await store('DELETE', item(d), { as: client })).statusCode;
          expect(status, `delete ${name} by ${who}`).toBe(expected[who] === 200 ? 204 : expected[who]);
        }
      }
      // The consumer admin deletes anything of the consumer; the author always may.
      const x = await create(ada, open, { text: 'to be removed' });
      expect((await store('DELETE', item(x), { as: admin })).statusCode).toBe(204);
      const y = await create(ada, open, { text: 'mine to remove' });
      expect((await store('DELETE', item(y), { as: ada })).statusCode).toBe(204);
    });

    it('changing permissions (and is_public) needs admin; the author and the consumer admin have it', async () => {
      const a = await create(ada, open, { text: 'shared editing', ...perms({ update: [ANNOTATION_GROUPS.authenticated] }) });
      const grab = await store('PUT', item(a), { as: bob, json: { permissions: { read: [WORLD], update: [uuids.get(bob)!], delete: [uuids.get(bob)!], admin: [] } } });
      expect(grab.statusCode).toBe(403);
      expect(grab.json().detail).toBe(ANNOTATION_MESSAGES.denied('admin'));
      expect((await store('PUT', item(a), { as: bob, json: { is_public: false } })).statusCode).toBe(403);
      // Sending the permissions unchanged (as Annotator clients send the whole annotation) is an ordinary update.
      const same = await store('PUT', item(a), { as: bob, json: { text: 'bob edits', permissions: a.permissions } });
      expect(same.statusCode).toBe(200);
      expect(annotationSchema.parse((await store('GET', item(a))).json()).permissions).toEqual(a.permissions);

      const w = await create(ada, open, { text: 'anyone edits', ...perms({ update: [WORLD] }) });
      expect((await store('PUT', item(w), { json: { permissions: { ...w.permissions, read: [] } } })).statusCode).toBe(401);

      const priv = await store('PUT', item(a), { as: ada, json: { is_public: false } });
      expect(priv.statusCode).toBe(200);
      expect(annotationSchema.parse(priv.json())).toMatchObject({ is_public: false, card_url: null, permissions: { read: [uuids.get(ada)] } });
      expect((await store('GET', item(a))).statusCode).toBe(404);

      const delegated = await create(ada, open, { text: 'bob administers', ...perms({ admin: [uuids.get(bob)!] }) });
      const byBob = await store('PUT', item(delegated), { as: bob, json: { permissions: { update: [uuids.get(bob)!] } } });
      expect(byBob.statusCode).toBe(403); // admin does not imply update: the change itself is an update
      const both = await create(ada, open, { text: 'bob edits and administers', ...perms({ update: [uuids.get(bob)!], admin: [uuids.get(bob)!] }) });
      const ok = await store('PUT', item(both), { as: bob, json: { permissions: { delete: [uuids.get(bob)!] } } });
      expect(ok.statusCode).toBe(200);
      expect(annotationSchema.parse(ok.json()).permissions.delete).toEqual([uuids.get(bob)]);
      const byAdmin = await store('PUT', item(a), { as: admin, json: { is_public: true } });
      expect(byAdmin.statusCode).toBe(200);
      expect(annotationSchema.parse(byAdmin.json()).is_public).toBe(true);
    });

    it('creating needs a token; the author and consumer come from it, never from the body', async () => {
      const res = await store('POST', annotationPaths.annotations(chapterPrefix(open)), { json: { text: 'anon' } });
      expect(res.statusCode).toBe(401);
      const a = await create(bob, open, { text: 'spoof', user: uuids.get(ada), consumer: 'other' });
      expect(a.user).toBe(uuids.get(bob));
      expect(a.consumer).toBe(CONSUMER_KEY);
      // Bob's note is Bob's: Ada (not admin) cannot change it.
      expect((await store('PUT', item(a), { as: ada, json: { text: 'ada' } })).statusCode).toBe(403);
    });

    it('preview annotations are for preview creators', async () => {
      const refused = await store('POST', annotationPaths.annotations(chapterPrefix(open)), { as: ada, json: { annotation_type: 'preview_annotation' } });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().detail).toBe(ANNOTATION_MESSAGES.previewOnly);
      const creator = await signIn('preview@example.com', 'preview-creator');
      await fetchToken(creator);
      const made = await create(creator, open, { annotation_type: 'preview_annotation', quote: 'preview passage' });
      expect(made).toMatchObject({ annotation_type: 'preview_annotation', preview_annotation: true });
    });

    it('notes on locked chapters: hidden from those who may not read the chapter, kept for their authors after a lapse', async () => {
      const world = await create(bob, locked, { text: 'public note on a locked chapter', quote: 'paid words' });
      expect((await store('GET', item(world))).statusCode).toBe(404);
      expect((await search(bookPrefix, 'text=locked&limit=1000', null)).rows.map((r) => r.id)).not.toContain(world.id);
      expect((await store('GET', item(world), { as: carl })).statusCode).toBe(200);

      const before = await create(lapsed, locked, { text: 'written while subscribed' });
      const users = new UsersRepository(t.lectern.db.kysely);
      const row = await t.lectern.db.kysely.selectFrom('users').select('id').where('email', '=', 'lapsed@example.com').executeTakeFirstOrThrow();
      await users.update(row.id, { status: 'expired' });
      // Their own: read, found, edited, exported.
      expect((await store('GET', item(before), { as: lapsed })).statusCode).toBe(200);
      const mine = await search(bookPrefix, 'limit=1000', lapsed);
      expect(mine.rows.map((r) => r.id)).toContain(before.id);
      expect(mine.rows.map((r) => r.id)).not.toContain(world.id);
      expect((await store('GET', item(world), { as: lapsed })).statusCode).toBe(404);
      expect((await store('PUT', item(before), { as: lapsed, json: { text: 'still mine' } })).statusCode).toBe(200);
      const exported = annotationExportSchema.parse((await lapsed.get(annotationPaths.export(book.book_id, 'json'))).json());
      expect(exported.chapters.flatMap((c) => c.annotations.map((a) => a.text))).toContain('still mine');
      // New notes only where they may still read.
      const refused = await store('POST', annotationPaths.annotations(chapterPrefix(locked)), { as: lapsed, json: { text: 'new' } });
      expect(refused.statusCode).toBe(403);
      expect((await store('POST', annotationPaths.annotations(chapterPrefix(open)), { as: lapsed, json: { text: 'on the sample' } })).statusCode).toBe(200);
      expect((await store('DELETE', item(before), { as: lapsed })).statusCode).toBe(204);
    });
  });

  describe('limits', () => {
    it('text at most 750 characters, bounded tags, ranges, selectors and body; 400 names the field and stores nothing', async () => {
      expect((await create(ada, open, { text: 'x'.repeat(750) })).text).toHaveLength(750);
      const count = async () => (await search(chapterPrefix(open), `user=${uuids.get(carl)}&limit=0`, carl)).total;
      const before = await count();
      const range = { start: '/p', startOffset: 0, end: '/p', endOffset: 1 };
      const cases: [unknown, string][] = [
        [{ text: 'x'.repeat(751) }, 'text'],
        [{ text: 5 }, 'text'],
        [{ tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'tags'],
        [{ tags: Array.from({ length: 51 }, (_, i) => `t${i}`).join(' ') }, 'tags'],
        [{ tags: ['y'.repeat(101)] }, 'tags'],
        [{ ranges: Array.from({ length: 21 }, () => range) }, 'ranges'],
        [{ ranges: [{ ...range, startOffset: -1 }] }, 'ranges.0.startOffset'],
        [{ selectors: [{ type: 'TextPositionSelector', start: 5, end: 2 }] }, 'selectors.0.end'],
        [{ selectors: [{ type: 'XPathSelector', value: '/p' }] }, 'selectors.0'],
        [{ selectors: [{ type: 'FragmentSelector', conformsTo: PDF_FRAGMENT_SPEC, value: 'page=0' }] }, 'selectors.0.value'],
        [{ selectors: [{ type: 'FragmentSelector', conformsTo: 'http://www.w3.org/TR/media-frags/', value: 'page=2' }] }, 'selectors.0.conformsTo'],
        [{ permissions: { read: 'everyone' } }, 'permissions.read'],
        [{ quote: 'q'.repeat(20_001) }, 'quote'],
        [{ uri: 'u'.repeat(2_001) }, 'uri'],
        [{ text: 'nul \u0000 here' }, 'text'],
        [[1, 2], 'body'],
      ];
      for (const [body, field] of cases) {
        const res = await store('POST', annotationPaths.annotations(chapterPrefix(open)), { as: carl, json: body });
        expect(res.statusCode, field).toBe(400);
        const fields = Object.keys(res.json().errors);
        expect(fields.some((f) => f === field || f.startsWith(`${field}.`)), `${field}: ${fields.join()}`).toBe(true);
      }
      const long = await store('POST', annotationPaths.annotations(chapterPrefix(open)), { as: carl, json: { text: 'x'.repeat(751) } });
      expect(long.json().errors.text).toEqual([ANNOTATION_MESSAGES.textTooLong]);
      const huge = await store('POST', annotationPaths.annotations(chapterPrefix(open)), { as: carl, json: { fragment: 'f'.repeat(90_000), highlights: Array.from({ length: 50 }, () => 'h'.repeat(20_000)) } });
      expect(huge.statusCode).toBe(413);
      expect(await count()).toBe(before);
      // An update is held to the same limits.
      const a = await create(carl, open, { text: 'short' });
      expect((await store('PUT', item(a), { as: carl, json: { text: 'x'.repeat(751) } })).statusCode).toBe(400);
      expect(annotationSchema.parse((await store('GET', item(a), { as: carl })).json()).text).toBe('short');
    });
  });

  describe('POST /a/sanitize-fragment/', () => {
    it('strips script, event handlers, javascript: links and remote images; keeps the text and safe markup', async () => {
      const fragment =
        '<p onmouseover="alert(1)">Hello <em>world</em><script>alert(2)</script>' +
        '<a href="javascript:alert(3)">link</a><a href="https://example.org/">ok</a>' +
        '<img src="x" onerror="alert(4)"><img src="https://tracker.example/p.png">' +
        '<svg><script>alert(5)</script></svg><iframe src="https://evil.example"></iframe>' +
        '<a href="jav&#x09;ascript:alert(6)">tab</a><style>body{display:none}</style></p>';
      const res = await ada.post(annotationPaths.sanitizeFragment(), { fragment });
      expect(res.statusCode, res.body).toBe(200);
      const out = res.json().fragment as string;
      expect(out).not.toMatch(/script|onmouseover|onerror|javascript|tracker|iframe|display:none/i);
      expect(out).toContain('<em>world</em>');
      expect(out).toContain('href="https://example.org/"');
      expect(out).toContain('Hello');
    });

    it('needs a signed-in session and the CSRF token; 400 without a fragment', async () => {
      expect((await anon.post(annotationPaths.sanitizeFragment(), { fragment: '<p>x</p>' })).statusCode).toBe(401);
      expect((await ada.post(annotationPaths.sanitizeFragment(), { fragment: '<p>x</p>' }, { csrf: false })).statusCode).toBe(403);
      const missing = await ada.post(annotationPaths.sanitizeFragment(), {});
      expect(missing.statusCode).toBe(400);
      expect(Object.keys(missing.json().errors)).toEqual(['fragment']);
    });
  });

  describe('export', () => {
    it('gives a reader their own annotations of a book as JSON and Markdown, by chapter in reading order, orphans last', async () => {
      const exporter = await signIn('exporter@example.com');
      await fetchToken(exporter);
      const late = await create(exporter, locked, { quote: 'Later passage', text: 'my **note**', tags: 'later', selectors: [pdfPageSelector(2)] });
      const early = await create(exporter, open, { quote: 'First line\nsecond line', text: '', is_public: false });
      const orphan = await create(exporter, locked2, { quote: 'A passage that a re-import removed', text: 'kept anyway' });
      await create(bob, open, { text: 'not the exporter\'s' });
      // A re-import that drops a chapter leaves its notes behind under the old path.
      await t.lectern.db.kysely.updateTable('annotations').set({ chapter_href: 'removed/chapter.xhtml' }).where('id', '=', orphan.id).execute();

      const json = await exporter.get(annotationPaths.export(book.book_id, 'json'));
      expect(json.statusCode).toBe(200);
      expect(json.headers['content-disposition']).toMatch(/^attachment; filename=".+-notes\.json"$/);
      const data = annotationExportSchema.parse(json.json());
      expect(data.book_id).toBe(book.book_id);
      expect(data.chapters.map((c) => [c.chapter_href, c.in_book])).toEqual([
        [open, true],
        [locked, true],
        ['removed/chapter.xhtml', false],
      ]);
      expect(data.chapters.flatMap((c) => c.annotations.map((a) => a.id))).toEqual([early.id, late.id, orphan.id]);

      const md = await exporter.get(annotationPaths.export(book.book_id, 'markdown'));
      expect(md.statusCode).toBe(200);
      expect(md.headers['content-type']).toMatch(/^text\/markdown/);
      expect(md.headers['content-disposition']).toMatch(/-notes\.md"$/);
      expect(md.body).toContain(`# Notes on ${book.title}`);
      expect(md.body).toContain('> First line\n> second line');
      expect(md.body).toContain('my **note**');
      expect(md.body).toContain('Tags: later · Page 2 · ');
      expect(md.body).toContain('(no longer in the book)');
      expect(md.body).not.toContain("not the exporter's");
      expect(md.body.indexOf('First line')).toBeLessThan(md.body.indexOf('Later passage'));

      expect((await anon.get(annotationPaths.export(book.book_id, 'json'))).statusCode).toBe(401);
      expect((await exporter.get(annotationPaths.export('no-such-book', 'json'))).statusCode).toBe(404);
      const bad = await exporter.get(`/api/v2/annotations/${book.book_id}/export/?format=pdf`);
      expect(bad.statusCode).toBe(400);
      expect(Object.keys(bad.json().errors)).toEqual(['format']);
      // The orphaned note is still the author's through the store too.
      expect((await search(bookPrefix, 'text=kept', exporter)).rows.map((r) => r.id)).toEqual([orphan.id]);
    });
  });
});
