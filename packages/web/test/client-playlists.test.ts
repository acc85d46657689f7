/// <reference types="node" />
/**
 * The playlist calls of the api client against a real HTTP server (node:http on a free port): the v2 Accept
 * header and base path, the ETag round trip with the stored list, CSRF on changes, bare-array queue bodies,
 * and metadata asked for in calls of at most 100 urls.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_METADATA_FIELDS } from '@lectern/core';
import { COLLECTIONS_STORAGE, createApiClient, type ApiClient } from '../src/api/client.ts';
import { item, playlist, queue } from './fixtures.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let client: ApiClient;
const seen: Seen[] = [];
let list = [queue([item('b1')]), playlist('2', 'Rust')];
let etag = '"v1"';

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://test');
      const send = (status: number, data?: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(data === undefined ? undefined : JSON.stringify(data));
      if (url.pathname === '/nest/api/api/v2/collections/' && req.method === 'GET') {
        if (req.headers['if-none-match'] === etag) return res.writeHead(304, { etag }).end();
        return send(200, list, { etag });
      }
      if (url.pathname === '/nest/api/api/v2/collections/' && req.method === 'POST') return send(201, playlist('3', JSON.parse(body).name));
      if (url.pathname === '/nest/api/api/v2/collections/2/' && req.method === 'PATCH') return send(200, { ...list[1], ...JSON.parse(body) });
      if (url.pathname === '/nest/api/api/v2/collections/2/' && req.method === 'DELETE') return res.writeHead(204).end();
      if (url.pathname === '/nest/api/api/v2/collections/9/' && req.method === 'DELETE') return send(404, { detail: 'Not found.' });
      if (url.pathname === '/nest/api/api/v2/collections/2/add-content/') return send(200, playlist('2', 'Rust', [item('b9')]));
      if (url.pathname === '/api/v1/queue-simple/' && req.method === 'GET') return send(200, { results: [{ url: '/api/v1/book/b1/', is_whole_book: true, natural_key: ['b1'] }] });
      if (url.pathname === '/api/v1/queue-simple/') return send(200, { results: [] });
      if (url.pathname === '/api/v1/metadata/') {
        const { urls } = JSON.parse(body) as { urls: string[] };
        return send(200, urls.map((u) => ({ api_url: u, title: `T ${u}` })));
      }
      if (url.pathname === '/api/v1/user_progress/') {
        const { urls } = JSON.parse(body) as { urls: string[] };
        return send(200, urls.map((u) => ({ api_url: u, progress: 40 })));
      }
      return send(404, { detail: 'Not found.' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createApiClient({ baseUrl, storage: localStorage });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
  localStorage.clear();
  list = [queue([item('b1')]), playlist('2', 'Rust')];
  etag = '"v1"';
  document.cookie = 'csrftoken=tok-9; path=/';
});

describe('playlist calls', () => {
  it('lists collections at /nest/api/api/v2/collections/ with the v2 Accept header and keeps list and ETag', async () => {
    const got = await client.listCollections();
    expect(got.map((p) => p.name)).toEqual(['Queue', 'Rust']);
    expect(seen[0]?.headers.accept).toBe('application/json; version=v2');
    expect(seen[0]?.headers['if-none-match']).toBeUndefined();
    expect(localStorage.getItem(COLLECTIONS_STORAGE.etag)).toBe('"v1"');
    expect(JSON.parse(localStorage.getItem(COLLECTIONS_STORAGE.data) ?? 'null')).toEqual(list);
  });

  it('sends If-None-Match with the stored ETag and uses the stored list on 304', async () => {
    await client.listCollections();
    list = []; // the server would now answer differently, but the ETag still matches
    const again = await client.listCollections();
    expect(seen[1]?.headers['if-none-match']).toBe('"v1"');
    expect(again.map((p) => p.name)).toEqual(['Queue', 'Rust']);
    // a new ETag brings the new list
    etag = '"v2"';
    list = [queue()];
    expect((await client.listCollections()).map((p) => p.name)).toEqual(['Queue']);
    expect(localStorage.getItem(COLLECTIONS_STORAGE.etag)).toBe('"v2"');
  });

  it('does not send If-None-Match without a readable stored list, and clears the cache on request', async () => {
    localStorage.setItem(COLLECTIONS_STORAGE.etag, '"v1"');
    localStorage.setItem(COLLECTIONS_STORAGE.data, '{broken');
    await client.listCollections();
    expect(seen[0]?.headers['if-none-match']).toBeUndefined();
    client.clearCollectionsCache();
    expect(localStorage.getItem(COLLECTIONS_STORAGE.etag)).toBeNull();
    expect(localStorage.getItem(COLLECTIONS_STORAGE.data)).toBeNull();
  });

  it('creates, updates, deletes and adds content with CSRF and the spec payloads', async () => {
    expect((await client.createCollection({ name: 'Go', description: '' })).name).toBe('Go');
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: JSON.stringify({ name: 'Go', description: '' }) });
    expect(seen.at(-1)?.headers['x-csrftoken']).toBe('tok-9');
    expect(seen.at(-1)?.headers.accept).toBe('application/json; version=v2');

    await client.updateCollection({ id: '2', name: 'Rust 2', description: 'd' });
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ description: 'd', id: '2', name: 'Rust 2' });

    const added = await client.addContent('2', ['/api/v1/book/b9/']);
    expect(added.content[0]?.api_url).toBe('/api/v1/book/b9/');
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ content: ['/api/v1/book/b9/'] });

    await expect(client.deleteCollection('2')).resolves.toBeUndefined();
    await expect(client.deleteCollection('9')).rejects.toMatchObject({ status: 404, statusText: 'Not Found', url: expect.stringContaining('/collections/9/') });
  });

  it('reads the queue and sends queue changes as bare JSON arrays', async () => {
    expect(await client.getQueue()).toEqual([{ url: '/api/v1/book/b1/', is_whole_book: true, natural_key: ['b1'] }]);
    await client.addToQueue(['/api/v1/book/b2/']);
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/api/v1/queue-simple/', body: '["/api/v1/book/b2/"]' });
    await client.removeFromQueue(['/api/v1/book/b2/']);
    expect(seen.at(-1)).toMatchObject({ method: 'DELETE', body: '["/api/v1/book/b2/"]' });
    expect(seen.at(-1)?.headers['x-csrftoken']).toBe('tok-9');
  });

  it('asks for metadata with the client fields, in calls of at most 100 urls, and for progress', async () => {
    const urls = Array.from({ length: 230 }, (_, i) => `/api/v1/book/b${i}/`);
    const meta = await client.getMetadata(urls);
    expect(meta).toHaveLength(230);
    const calls = seen.filter((s) => s.url.startsWith('/api/v1/metadata/'));
    expect(calls.map((c) => (JSON.parse(c.body) as { urls: string[] }).urls.length)).toEqual([100, 100, 30]);
    expect(new URL(calls[0]!.url, 'http://x').searchParams.get('fields')).toBe(CLIENT_METADATA_FIELDS);

    const progress = await client.getProgress(['/api/v1/book/b1/']);
    expect(progress).toEqual([{ api_url: '/api/v1/book/b1/', progress: 40 }]);
    expect(new URL(seen.at(-1)!.url, 'http://x').searchParams.get('fields')).toBe('api_url,progress');
  });
});
