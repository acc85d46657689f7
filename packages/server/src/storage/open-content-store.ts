/** The content store CONTENT_STORE names (docs/decisions.md "The content store"): DATA_DIR/content by default. */
import fs from 'node:fs';
import type { Config } from '../config.ts';
import { type ContentStore, LocalContentStore } from './content-store.ts';

export async function openContentStore(config: Pick<Config, 'dataDir' | 'contentStore' | 's3'>): Promise<ContentStore> {
  if (config.contentStore?.startsWith('s3://')) {
    // loaded only when used: the AWS SDK is seconds of module loading for every server and command line otherwise
    const { S3ContentStore } = await import('./s3-content-store.ts');
    return new S3ContentStore({ url: config.contentStore, ...config.s3 }, config.dataDir);
  }
  const local = new LocalContentStore(config.dataDir);
  fs.mkdirSync(local.root, { recursive: true });
  return local;
}
