/**
 * The page's declared highlight privacy (reader.md §4, docs/decisions.md "Annotation defaults") on both engines: the
 * server writes what the operator's HIGHLIGHT_PRIVACY says on every page's document element (public by default, or the
 * privacy switch and override flag that force notes private), and with notes forced private the store keeps the world
 * group out of every note's read list, whatever a client sends.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ANNOTATION_GROUPS, AUTH_TOKEN_HEADER, annotationPaths, annotationSchema, type HighlightPrivacySetting } from '@lectern/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withPageAttributes } from '../../src/routes/web.ts';
import { ENGINES, startTestApp, type TestApp } from '../helpers/app.ts';
import { signedInSubscribers, TestClient } from '../helpers/client.ts';
import { brokenChapterEpub } from '../fixtures/broken-chapter.ts';

const INDEX = '<!doctype html><html lang="en"><head><title>Lectern</title></head><body><div id="root"></div></body></html>';

describe('the page declares highlight privacy on its document element', () => {
  it('writes the setting as attributes of <html>, escaped, and leaves the rest of the page alone', () => {
    expect(withPageAttributes(INDEX, { 'data-highlight-privacy': 'public' })).toBe(INDEX.replace('<html lang="en">', '<html data-highlight-privacy="public" lang="en">'));
    expect(withPageAttributes('<html>x</html>', { 'data-a': '"<&', 'data-b': '' })).toBe('<html data-a="&quot;&lt;&amp;" data-b>x</html>');
  });
});

describe.each(ENGINES)('highlight privacy on %s', (engine) => {
  const apps: TestApp[] = [];
  let dist: string;
  const start = async (setting: HighlightPrivacySetting) => {
    const t = await startTestApp(engine, { webDist: dist, highlightPrivacy: setting });
    apps.push(t);
    return t;
  };
  beforeAll(() => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-privacy-dist-'));
    fs.writeFileSync(path.join(dist, 'index.html'), INDEX);
  });
  afterAll(async () => {
    for (const t of apps) await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('declares private by default, public, or private only (both the switch and the override flag)', async () => {
    const page = async (setting: HighlightPrivacySetting) => {
      const t = await start(setting);
      const res = await new TestClient(t.lectern.app).get('/library/view/any/b1/ch.xhtml');
      expect(res.statusCode).toBe(200);
      return /<html[^>]*>/.exec(res.body)![0];
    };
    expect(await page('private')).toBe('<html data-highlight-privacy="private" lang="en">');
    expect(await page('public')).toBe('<html data-highlight-privacy="public" lang="en">');
    expect(await page('private-only')).toBe('<html data-highlight-privacy="private" data-private-highlights data-private-highlights-override lang="en">');
  });

  it('keeps every note private when notes are forced private, and public ones public otherwise', async () => {
    const noteAs = async (setting: HighlightPrivacySetting) => {
      const t = await start(setting);
      const { book_id } = await t.lectern.services.importer.importBytes(brokenChapterEpub(), 'broken.epub');
      const [reader] = await signedInSubscribers(t.lectern, ['ada@example.com']);
      const token = (await reader.get(annotationPaths.token())).body;
      const prefix = annotationPaths.prefix('a-book', book_id, 'good.xhtml');
      const call = (method: 'POST' | 'PUT', url: string, payload: object) => t.lectern.app.inject({ method, url, headers: { [AUTH_TOKEN_HEADER]: token }, payload });
      // Annotator's default (no permissions): the world reads it; and a client asking for public outright.
      const made = annotationSchema.parse((await call('POST', annotationPaths.annotations(prefix), { quote: 'well-formed', text: '', ranges: [] })).json());
      const asked = annotationSchema.parse((await call('POST', annotationPaths.annotations(prefix), { quote: 'chapter', text: 'n', ranges: [], is_public: true })).json());
      const res = await call('PUT', annotationPaths.annotation(prefix, asked.id), { permissions: { read: [ANNOTATION_GROUPS.world] } });
      expect(res.statusCode, res.body).toBe(200);
      const updated = annotationSchema.parse(res.json());
      return [made, asked, updated].map((a) => [a.is_public, a.permissions.read.includes(ANNOTATION_GROUPS.world)]);
    };
    expect(await noteAs('private-only')).toEqual([
      [false, false],
      [false, false],
      [false, false],
    ]);
    expect(await noteAs('public')).toEqual([
      [true, true],
      [true, true],
      [true, true],
    ]);
  });
});
