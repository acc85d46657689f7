/**
 * The content store's contract (docs/decisions.md "The content store"), held by both stores alike: the local folder
 * and an S3 bucket (s3rver on this machine, test/helpers/s3.ts). A staged folder is committed whole, read whole and
 * by byte range as a stream, removed whole (and only itself); a commit that fails, or whose database transaction
 * fails after it, leaves nothing behind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentStore, LocalContentStore, readStored } from '../../src/storage/content-store.ts';
import { S3ContentStore } from '../../src/storage/s3-content-store.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';

let s3: TestS3;
const dataDirs: string[] = [];
const dataDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-store-'));
  dataDirs.push(dir);
  return dir;
};
let n = 0;

beforeAll(async () => {
  s3 = await startS3();
});
afterAll(async () => {
  await s3.close();
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const STORES: [string, () => ContentStore][] = [
  ['the local folder', () => new LocalContentStore(dataDir())],
  ['an S3 bucket', () => new S3ContentStore(s3.settings(`contract-${++n}`), dataDir())],
];

const listed = async (store: ContentStore) => {
  const files: Record<string, number> = {};
  for await (const f of store.list()) files[f.path] = f.size;
  return files;
};

/** A staging folder holding `files` (paths with `/` make subfolders), committed as `folder`. */
async function commit(store: ContentStore, folder: string, files: Record<string, string>): Promise<void> {
  const staging = await store.beginStaging();
  for (const [name, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(staging.dir, name)), { recursive: true });
    fs.writeFileSync(path.join(staging.dir, name), body);
  }
  await staging.commit(folder);
  expect(fs.existsSync(staging.dir)).toBe(false);
}

describe.each(STORES)('the content store: %s', (_name, open) => {
  let store: ContentStore;
  beforeAll(async () => {
    store = open();
    if (store instanceof LocalContentStore) fs.mkdirSync(store.root, { recursive: true });
  });

  it('commits a staged folder whole and reads its files whole and by byte range', async () => {
    const body = 'abcdefghijklmnopqrstuvwxyz'.repeat(1000);
    await commit(store, 'book1', { '00000.xhtml': body, 'sub/00001.css': 'p { color: red }' });
    expect(await listed(store)).toEqual({ 'book1/00000.xhtml': body.length, 'book1/sub/00001.css': 16 });
    const stat = await store.stat('book1/00000.xhtml');
    expect(stat?.size).toBe(body.length);
    expect(stat?.mtime).toBeInstanceOf(Date);
    expect(await text(await store.read('book1/00000.xhtml'))).toBe(body);
    expect(await text(await store.read('book1/00000.xhtml', { start: 1000, end: 1009 }))).toBe(body.slice(1000, 1010));
    expect(await text(await store.read('book1/00000.xhtml', { start: body.length - 3, end: body.length - 1 }))).toBe('xyz');
    expect((await readStored(store, 'book1/sub/00001.css', 100)).toString()).toBe('p { color: red }');
    await expect(readStored(store, 'book1/00000.xhtml', 100)).rejects.toThrow(/larger/);
    expect(await store.stat('book1/missing.css')).toBeNull();
  });

  it('writes one file whole into a folder, and removes a folder with everything in it but nothing else', async () => {
    await commit(store, 'book2', { 'a.png': 'A' });
    await commit(store, 'book20', { 'b.png': 'BB' });
    await store.write('book2/a.png.360h.webp', Buffer.from('variant'));
    expect((await store.stat('book2/a.png.360h.webp'))?.size).toBe(7);
    await store.removeFolder('book2');
    const after = await listed(store);
    expect(Object.keys(after).filter((p) => p.startsWith('book2/'))).toEqual([]);
    // a folder whose name begins with the removed one's stays
    expect(after['book20/b.png']).toBe(2);
    // nothing there is not an error
    await store.removeFolder('book2');
  });

  it('replaces what a cut-short commit left in its folder', async () => {
    await commit(store, 'book3', { 'old.css': 'old', 'kept-name.css': 'old' });
    await commit(store, 'book3', { 'kept-name.css': 'new' });
    expect(Object.keys(await listed(store)).filter((p) => p.startsWith('book3/'))).toEqual(['book3/kept-name.css']);
    expect(await text(await store.read('book3/kept-name.css'))).toBe('new');
  });

  it('leaves nothing when the transaction after a commit fails (the import removes the folder) or the staging is dropped', async () => {
    const before = await listed(store);
    await commit(store, 'book4', { '00000.css': 'x', '00001.css': 'y' });
    await store.removeFolder('book4');
    const dropped = await store.beginStaging();
    fs.writeFileSync(path.join(dropped.dir, 'x.css'), 'x');
    await dropped.abort();
    expect(fs.existsSync(dropped.dir)).toBe(false);
    expect(await listed(store)).toEqual(before);
  });

  it('refuses storage paths that would leave the store', async () => {
    for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'a//b', '']) await expect(Promise.resolve().then(() => store.stat(bad))).rejects.toThrow(/escapes/);
    await expect(store.removeFolder('..')).rejects.toThrow(/escapes/);
  });
});

/** A bucket whose store refuses one upload (as a network failure or a full disk would), after letting others in. */
class RefusingStore extends S3ContentStore {
  uploaded = 0;
  override async upload(storagePath: string, file: string): Promise<void> {
    if (storagePath.endsWith('/refused.css')) throw new Error('the store refused this upload');
    await super.upload(storagePath, file);
    this.uploaded++;
  }
}

describe('an S3 commit that fails part-way', () => {
  it('deletes what it uploaded and keeps no staging folder', async () => {
    const store = new RefusingStore(s3.settings('failing'), dataDir());
    const staging = await store.beginStaging();
    for (let i = 0; i < 12; i++) fs.writeFileSync(path.join(staging.dir, `${String(i).padStart(5, '0')}.css`), `p${i}`);
    fs.writeFileSync(path.join(staging.dir, 'refused.css'), 'x');
    await expect(staging.commit('book5')).rejects.toThrow('the store refused this upload');
    expect(store.uploaded).toBeGreaterThan(0);
    expect(await listed(store)).toEqual({});
    expect(fs.existsSync(staging.dir)).toBe(false);
  });

  it('is refused with an access key the store does not know', async () => {
    const store = new S3ContentStore({ ...s3.settings('keys'), credentials: { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'x' } }, dataDir());
    await expect(store.stat('book/x.css')).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    const staging = await store.beginStaging();
    fs.writeFileSync(path.join(staging.dir, 'a.css'), 'a');
    await expect(staging.commit('book')).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
  });
});
