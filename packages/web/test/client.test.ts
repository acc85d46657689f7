/// <reference types="node" />
/**
 * The API client against a real HTTP server (node:http on a free port), not a fetch mock: headers, bodies and
 * status codes go over a socket exactly as they would in the browser.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_MESSAGES, MESSAGES } from '@lectern/core';
import { ApiError, createApiClient, nextPageOf, type ApiClient } from '../src/api/client.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const profile = {
  user_id: 7,
  session_id: 's-1',
  user_uuid: '7d2f0f5c-8f0e-4a53-9d43-1d1a3c1d2e3f',
  username: 'ada',
  subscription_status: 'trial',
  account: { type: 'Trial', email: 'ada@example.com', roles: [], team: null, trial_ends_at: '2030-01-31T00:00:00Z' },
};

const book = {
  api_url: '/api/v1/book/b1/',
  authors: ['Lewis Carroll'],
  content_format: 'book',
  continue_url: '/library/view/alice/b1/',
  cover_image_url: null,
  identifier: 'urn:b1',
  issued: '1865-11',
  publishers: ['Macmillan'],
  title: "Alice's Adventures in Wonderland",
  topics: [{ name: 'Fiction', slug: 'fiction' }],
  url: '/library/book/b1/',
  book_id: 'b1',
  title_safe: 'alices-adventures-in-wonderland',
  description: null,
};

let server: Server;
let baseUrl: string;
let client: ApiClient;
const seen: Seen[] = [];

function send(res: import('node:http').ServerResponse, status: number, body?: unknown) {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://test');
      if (url.pathname === '/u/information_for_javascript') return send(res, 200, profile);
      if (url.pathname === '/login/' && req.method === 'POST') {
        const { email, password } = JSON.parse(body || '{}') as { email?: string; password?: string };
        if (!email) return send(res, 400, { detail: 'Invalid input.', errors: { email: [MESSAGES.fieldRequired] } });
        if (password !== 'right') return send(res, 401, { detail: APP_MESSAGES.invalidCredentials });
        return send(res, 200, profile);
      }
      if (url.pathname === '/logout/' && req.method === 'POST') return send(res, 204);
      if (url.pathname === '/api/v1/book/') {
        if (url.searchParams.get('topic') === 'broken') {
          // An answer that does not match the schema: a result without its title.
          const { title: _omit, ...untitled } = book;
          return send(res, 200, { count: 1, next: null, previous: null, results: [untitled] });
        }
        return send(res, 200, {
          count: 30,
          next: 'http://test/api/v1/book/?page=2&cursor=abc.def&page_size=24',
          previous: null,
          results: [book],
        });
      }
      if (url.pathname === '/api/v1/topics/') return send(res, 200, { results: [{ name: 'Fiction', slug: 'fiction', count: 3 }] });
      if (url.pathname === '/api/v1/book/secret/chapter/ch1.xhtml') return send(res, 401, { detail: MESSAGES.signInToRead });
      if (url.pathname === '/html-error') return res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
      return send(res, 404, { detail: APP_MESSAGES.notFound });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createApiClient({ baseUrl });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
  document.cookie = 'csrftoken=tok-123; path=/';
});

const last = () => {
  const s = seen.at(-1);
  if (!s) throw new Error('no request reached the server');
  return s;
};

describe('api client', () => {
  it('sends GET requests with Accept JSON and without a CSRF header, and parses the answer', async () => {
    const me = await client.getProfile();
    expect(me.username).toBe('ada');
    expect(last().method).toBe('GET');
    expect(last().headers.accept).toBe('application/json');
    expect(last().headers['x-csrftoken']).toBeUndefined();
  });

  it('sends the csrftoken cookie as X-CSRFToken on POST, with a JSON body', async () => {
    const me = await client.login({ email: 'ada@example.com', password: 'right' });
    expect(me.account.email).toBe('ada@example.com');
    const req = last();
    expect(req.method).toBe('POST');
    expect(req.headers['x-csrftoken']).toBe('tok-123');
    expect(req.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req.body)).toEqual({ email: 'ada@example.com', password: 'right' });
  });

  it('sends the header on POST without a body too (logout answers 204)', async () => {
    await expect(client.logout()).resolves.toBeUndefined();
    expect(last().headers['x-csrftoken']).toBe('tok-123');
  });

  it("exposes a 400 body's field errors", async () => {
    const error = await client.login({ email: '', password: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, detail: 'Invalid input.', errors: { email: [MESSAGES.fieldRequired] } });
  });

  it('turns a 401 into an ApiError carrying the server detail', async () => {
    const error = await client.login({ email: 'ada@example.com', password: 'wrong' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401, detail: APP_MESSAGES.invalidCredentials, errors: {} });
    const chapter = await client.getChapter('secret', 'ch1.xhtml').catch((e: unknown) => e);
    expect(chapter).toMatchObject({ status: 401, detail: MESSAGES.signInToRead });
  });

  it('turns an answer that fails the zod schema into an ApiError', async () => {
    const error = await client.listBooks({ topic: 'broken' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 200, detail: MESSAGES.contentRequestFailed });
  });

  it('turns a non-JSON error page and an unreachable server into ApiErrors', async () => {
    const html = await client.request('/html-error', null).catch((e: unknown) => e);
    expect(html).toMatchObject({ status: 502, detail: MESSAGES.contentRequestFailed });
    const down = await createApiClient({ baseUrl: 'http://127.0.0.1:9' })
      .getProfile()
      .catch((e: unknown) => e);
    expect(down).toMatchObject({ status: 0, detail: 'Error, the machines failed. Please try again soon.' });
  });

  it('builds the catalog query and reads the next page and its cursor from `next`', async () => {
    const page = await client.listBooks({ page: 1, pageSize: 24, topic: 'fiction' });
    expect(page.results[0]?.title).toBe("Alice's Adventures in Wonderland");
    const url = new URL(last().url, 'http://x');
    expect(Object.fromEntries(url.searchParams)).toEqual({ page: '1', page_size: '24', topic: 'fiction' });
    const next = nextPageOf(page);
    expect(next).toEqual({ page: 2, cursor: 'abc.def' });
    await client.listBooks({ ...next, topic: 'fiction' });
    expect(Object.fromEntries(new URL(last().url, 'http://x').searchParams)).toEqual({ page: '2', cursor: 'abc.def', page_size: '24', topic: 'fiction' });
    expect(nextPageOf({ next: '/api/v2/collections/?page=3' })).toEqual({ page: 3, cursor: null });
    expect(nextPageOf({ next: null })).toBeNull();
  });

  it('parses the topic list', async () => {
    await expect(client.listTopics()).resolves.toEqual([{ name: 'Fiction', slug: 'fiction', count: 3 }]);
  });

  it('fetches the csrftoken cookie first when it is missing', async () => {
    document.cookie = 'csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
    await client.logout();
    // One GET to obtain the cookie, then the POST (which, the cookie being set by a real browser only, goes
    // without it here and would be refused by the real server).
    expect(seen.map((s) => s.method)).toEqual(['GET', 'POST']);
  });
});
