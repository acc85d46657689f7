/**
 * A stand-in for the web app's build (packages/web/dist) in a temporary folder, for tests that need the server to
 * serve pages and assets without running the build: an index.html with the markers the server fills (the
 * no-JavaScript forms, the first screen's data), a hashed asset with the compressed copies and source map the build
 * writes beside it (never served as files of their own), an icon, and route-preloads.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NOSCRIPT_MARKER } from '../../src/plugins/noscript-forms.ts';
import { BOOT_MARKER } from '../../src/routes/web.ts';

export const STAND_IN_BUILD: Record<string, string | Buffer> = {
  'index.html': `<!doctype html><html><head><title>Lectern</title>${BOOT_MARKER}</head><body><div id="root"></div><noscript>${NOSCRIPT_MARKER}</noscript></body></html>`,
  'assets/index-abc123.js': 'console.log(1)',
  'assets/index-abc123.js.br': 'brotli copy',
  'assets/index-abc123.js.gz': 'gzip copy',
  'assets/index-abc123.js.map': '{"version":3,"sources":["../src/secret.ts"]}',
  'assets/index-abc123.css': 'body { margin: 0 }',
  'favicon-32.png': Buffer.from('89504e470d0a1a0a', 'hex'),
  'route-preloads.json': JSON.stringify({ '^/home/': { js: ['/assets/index-abc123.js'], css: ['/assets/index-abc123.css'] } }),
};

/** The build's files the server hands out as files (routes/web.ts leaves the compressed copies, maps and preload table out). */
export const SERVED_BUILD_FILES = Object.keys(STAND_IN_BUILD).filter((f) => !/\.(br|gz|map)$/.test(f) && f !== 'route-preloads.json');

/** Writes the files into a new temporary folder; `remove` deletes it. */
export function makeWebDist(files: Record<string, string | Buffer> = STAND_IN_BUILD): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-web-dist-'));
  for (const [name, data] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), data);
  }
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
