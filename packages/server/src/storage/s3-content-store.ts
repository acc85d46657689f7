/**
 * Content files in an S3-compatible bucket (docs/decisions.md "The content store"): CONTENT_STORE=s3://bucket/prefix,
 * a file's key `<prefix>/<storage path>`. Only the plain S3 API (HeadObject, GetObject with Range, PutObject,
 * ListObjectsV2, DeleteObjects), so any store that speaks it will do. Reads stream: a range request is a ranged GET,
 * never the whole object in memory. Writes stay staged on this machine: the import worker writes a local staging
 * folder, `commit(folder)` uploads it under `<prefix>/<folder>/`, and if an upload fails what was uploaded is deleted.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { asStoreFailure } from '../util/unavailable.ts';
import {
  type ByteRange,
  checkStoragePath,
  checkUploadName,
  type ContentStore,
  filesBelow,
  isHiddenPath,
  localUploads,
  type Staging,
  type StoredFile,
  type UploadArea,
  type UploadFolder,
  UPLOADS_FOLDER,
} from './content-store.ts';

export interface S3Settings {
  /** s3://bucket or s3://bucket/prefix */
  url: string;
  /** AWS_ENDPOINT_URL or S3_ENDPOINT: a store other than AWS's (null: AWS itself, by region) */
  endpoint: string | null;
  region: string;
  /** bucket in the path (http://host/bucket/key), as local servers need; else in the host name */
  forcePathStyle: boolean;
  /** null: the SDK's own chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, an instance role) */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
}

/** Uploads of one commit at a time (a title has hundreds of small files; more would only queue at the store). */
const UPLOADS_AT_ONCE = 4;

export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!m) throw new Error(`not an s3:// address: ${url}`);
  return { bucket: m[1]!, prefix: m[2]!.replace(/\/+$/, '') };
}

export class S3ContentStore implements ContentStore {
  readonly client: S3Client;
  readonly bucket: string;
  readonly prefix: string;
  readonly beginUpload: () => Promise<UploadFolder>;
  readonly uploads: UploadArea;
  /** uploads and staging folders on this machine */
  private readonly tmpRoot: string;

  constructor(settings: S3Settings, dataDir: string) {
    ({ bucket: this.bucket, prefix: this.prefix } = parseS3Url(settings.url));
    const config: S3ClientConfig = {
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      // Checksums only where the API requires them: the newer defaults send aws-chunked bodies with trailing
      // checksums, which S3-compatible stores other than AWS's do not all understand.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
    };
    this.client = new S3Client(config);
    this.tmpRoot = path.join(dataDir, 'tmp');
    this.beginUpload = localUploads(this.tmpRoot);
    this.uploads = new S3UploadArea(this);
  }

  get location(): string {
    return `s3://${this.bucket}${this.prefix ? `/${this.prefix}` : ''}`;
  }


  key(storagePath: string): string {
    checkStoragePath(storagePath);
    return this.prefix ? `${this.prefix}/${storagePath}` : storagePath;
  }

  async beginStaging(): Promise<Staging> {
    await fs.mkdir(this.tmpRoot, { recursive: true });
    return new S3Staging(this, await fs.mkdtemp(path.join(this.tmpRoot, 'staging-')));
  }

  async stat(storagePath: string): Promise<StoredFile | null> {
    try {
      const head = await stored(this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(storagePath) })));
      return { size: head.ContentLength ?? 0, mtime: head.LastModified ?? new Date(0) };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async read(storagePath: string, range?: ByteRange): Promise<Readable> {
    const got = await stored(this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(storagePath), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) })));
    const body = got.Body;
    // Node's HTTP handler answers a Readable (the response itself: bytes flow as they arrive)
    if (body instanceof Readable) return body;
    if (!body) return Readable.from([]);
    throw new Error(`the S3 client answered ${storagePath} with a body that is not a Node stream`);
  }

  async write(storagePath: string, data: Uint8Array): Promise<void> {
    // one PUT: an object is there whole or not at all
    await stored(this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key(storagePath), Body: data, ContentLength: data.byteLength })));
  }

  putFile(storagePath: string, file: string): Promise<void> {
    return this.upload(storagePath, file);
  }

  /** Uploads a local file as it streams (its size known first: a plain PUT, no multipart). */
  async upload(storagePath: string, file: string): Promise<void> {
    const { size } = await fs.stat(file);
    await stored(this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.key(storagePath), Body: createReadStream(file), ContentLength: size })));
  }

  /** Writes the stored file to the local file `to` as it streams in. */
  async download(storagePath: string, to: string): Promise<void> {
    // the bytes come after the answer: a connection cut meanwhile is the store's too
    await stored(pipeline(await this.read(storagePath), createWriteStream(to)));
  }

  async removeFolder(folder: string): Promise<void> {
    const keys: string[] = [];
    for await (const f of this.listUnder(`${this.key(folder)}/`)) keys.push(f.key);
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const done = await stored(this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } })));
      if (done.Errors?.length) throw new Error(`could not delete ${done.Errors.length} files of ${folder}: ${done.Errors[0]!.Code ?? ''} ${done.Errors[0]!.Message ?? ''}`);
    }
  }

  async *list(): AsyncGenerator<{ path: string; size: number }> {
    const start = this.prefix ? `${this.prefix}/` : '';
    for await (const f of this.listUnder(start)) {
      const storagePath = f.key.slice(start.length);
      if (!isHiddenPath(storagePath)) yield { path: storagePath, size: f.size };
    }
  }

  /** Every object whose key starts with `prefix` (a whole key), page by page. */
  async *listUnder(prefix: string): AsyncGenerator<{ key: string; size: number; modified: Date }> {
    let token: string | undefined;
    do {
      const page = await stored(this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token })));
      for (const o of page.Contents ?? []) if (o.Key) yield { key: o.Key, size: o.Size ?? 0, modified: o.LastModified ?? new Date(0) };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}

class S3Staging implements Staging {
  constructor(
    private readonly store: S3ContentStore,
    readonly dir: string,
  ) {}

  /**
   * Uploads every staged file under `folder/`, then removes the local folder. Whatever is in the store under that
   * folder already (a commit a crash cut short) goes first, as the local store's rename replaces a folder; if an
   * upload fails, what this commit uploaded is deleted again and the error passed on.
   */
  async commit(folder: string): Promise<void> {
    checkStoragePath(folder);
    try {
      await this.store.removeFolder(folder);
      const files: { path: string; full: string }[] = [];
      for await (const f of filesBelow(this.dir)) files.push(f);
      let next = 0;
      let failed = false;
      const worker = async () => {
        while (next < files.length && !failed) {
          const f = files[next++]!;
          await this.store.upload(`${folder}/${f.path}`, f.full).catch((err: unknown) => {
            failed = true;
            throw err;
          });
        }
      };
      // every upload settled before any clean-up: none may land after the folder is deleted
      const settled = await Promise.allSettled(Array.from({ length: Math.min(UPLOADS_AT_ONCE, files.length) }, worker));
      const refused = settled.find((s) => s.status === 'rejected');
      if (refused) throw refused.reason;
    } catch (err) {
      await this.store.removeFolder(folder).catch(() => {});
      throw err;
    } finally {
      await this.abort();
    }
  }

  async abort(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * The bucket's upload area: `<prefix>/.uploads/<upload>/<name>`. Its name is the store's address: every server with
 * the same CONTENT_STORE reads the same bucket and prefix (an object written as a marker could be written twice at
 * once by two servers starting together, which the plain S3 API cannot refuse).
 */
class S3UploadArea implements UploadArea {
  constructor(private readonly store: S3ContentStore) {}

  id(): Promise<string | null> {
    return Promise.resolve(this.store.location);
  }

  private at(upload: string, name?: string): string {
    return `${UPLOADS_FOLDER}/${checkUploadName(upload)}${name === undefined ? '' : `/${checkUploadName(name)}`}`;
  }

  put(upload: string, name: string, file: string): Promise<void> {
    return this.store.upload(this.at(upload, name), file);
  }

  get(upload: string, name: string, to: string): Promise<void> {
    return this.store.download(this.at(upload, name), to);
  }

  remove(upload: string): Promise<void> {
    return this.store.removeFolder(this.at(upload));
  }

  async *list(): AsyncGenerator<{ upload: string; modified: Date }> {
    const start = `${this.store.key(UPLOADS_FOLDER)}/`;
    // keys come in order, so one upload's files are together
    let current: { upload: string; modified: Date } | null = null;
    for await (const o of this.store.listUnder(start)) {
      const upload = o.key.slice(start.length).split('/')[0]!;
      if (current && current.upload !== upload) yield current;
      if (!current || current.upload !== upload) current = { upload, modified: o.modified };
      else if (o.modified > current.modified) current.modified = o.modified;
    }
    if (current) yield current;
  }
}

/** One call of the store; a socket that fails is said to be the store's (util/unavailable.ts asStoreFailure). */
async function stored<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw asStoreFailure(err);
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}
