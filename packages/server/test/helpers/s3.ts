/**
 * An S3 API server on this machine for the tests (s3rver, from npm): a free port, a temporary folder, one bucket.
 * s3rver speaks the S3 HTTP API but checks no signatures (SigV4 is taken on trust): it refuses only an access key id
 * it does not know (its one account is S3RVER / S3RVER). README "Tests" says so.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { S3Settings } from '../../src/storage/s3-content-store.ts';

export const S3RVER_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** the client settings for `s3://bucket/<prefix>` */
  settings(prefix: string): S3Settings;
  close(): Promise<void>;
}

export async function startS3(): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-s3-'));
  const bucket = 'lectern-test';
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    settings: (prefix) => ({ url: `s3://${bucket}/${prefix}`, endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3RVER_KEYS }),
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
