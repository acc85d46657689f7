/**
 * Admin upload under load: streams FILES files of SIZE_MB MB each (zeros named .pdf: the worker refuses them
 * after reading them whole, which is the worst case for it, not for the server) over real HTTP to a fresh app,
 * and prints the server process's peak resident memory above its idle level, the import worker's peak, and how
 * many /healthz requests (one every 50 ms) were answered while the upload and its imports ran, with the slowest.
 * Before the imports streamed to disk, three 450 MB files held the server at 2.8 GB.
 * Usage: node --import tsx bench/import-upload.ts [--files 3] [--size-mb 150]
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../packages/server/src/app.ts';
import { loadConfig } from '../packages/server/src/config.ts';

const { values } = parseArgs({ options: { files: { type: 'string', default: '3' }, 'size-mb': { type: 'string', default: '150' } } });
const files = Number(values.files);
const sizeMb = Number(values['size-mb']);
const MB = 1024 * 1024;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-upload-'));
const config = loadConfig({}, { dataDir, databaseUrl: null, logLevel: 'silent', webDist: null, secret: 'bench-secret-'.padEnd(40, 'x') });
const lectern = await buildApp(config);
await lectern.services.accounts.createUser({ email: 'admin@example.com', password: 'a long enough password', status: 'subscriber', role: 'admin' });
await lectern.app.listen({ port: 0, host: '127.0.0.1' });
const port = (lectern.app.server.address() as { port: number }).port;

// Sign in through the app itself, then keep the cookies for the real HTTP upload.
const cookies = new Map<string, string>();
const remember = (res: { cookies: { name: string; value: string }[] }) => res.cookies.forEach((c) => cookies.set(c.name, c.value));
remember(await lectern.app.inject({ method: 'GET', url: '/healthz' }));
const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
remember(
  await lectern.app.inject({
    method: 'POST',
    url: '/login/',
    headers: { cookie: cookieHeader(), 'x-csrftoken': cookies.get('csrftoken')! },
    payload: { email: 'admin@example.com', password: 'a long enough password' },
  }),
);

global.gc?.();
const idleRss = process.memoryUsage().rss;
let peakRss = idleRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

let uploading = true;
let answered = 0;
let slowestMs = 0;
const health = (async () => {
  while (uploading) {
    const sent = performance.now();
    await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.arrayBuffer());
    if (!uploading) break;
    answered++;
    slowestMs = Math.max(slowestMs, performance.now() - sent);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
})();

const boundary = '----lecternbench';
const started = performance.now();
const body = await new Promise<string>((resolve, reject) => {
  const request = http.request(
    {
      port,
      host: '127.0.0.1',
      method: 'POST',
      path: '/api/v1/admin/import/',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: cookieHeader(), 'x-csrftoken': cookies.get('csrftoken')! },
    },
    (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve(`${res.statusCode} ${text}`));
    },
  );
  request.on('error', reject);
  const chunk = Buffer.alloc(MB);
  void (async () => {
    for (let f = 0; f < files; f++) {
      request.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="zeros-${f}.pdf"\r\nContent-Type: application/pdf\r\n\r\n`);
      for (let i = 0; i < sizeMb; i++) {
        if (!request.write(chunk)) await new Promise((r) => request.once('drain', r));
      }
      request.write('\r\n');
    }
    request.end(`--${boundary}--\r\n`);
  })();
});
uploading = false;
await health;
clearInterval(sampler);
const seconds = (performance.now() - started) / 1000;
console.log(`upload of ${files} x ${sizeMb} MB answered in ${seconds.toFixed(1)} s: ${body.slice(0, 160)}`);
console.log(`server peak RSS above idle: ${Math.round((peakRss - idleRss) / MB)} MB (idle ${Math.round(idleRss / MB)} MB, peak ${Math.round(peakRss / MB)} MB)`);
console.log(`import worker peak RSS (last file): ${Math.round((lectern.services.importer.lastRun?.peakRssBytes ?? 0) / MB)} MB`);
console.log(`/healthz answered during the upload: ${answered}, slowest ${Math.round(slowestMs)} ms`);
await lectern.app.close();
fs.rmSync(dataDir, { recursive: true, force: true });
