/**
 * A multipart/form-data body as the console's upload sends it (POST /api/v1/admin/import/ and the title editor's
 * cover): the text fields first, then one part per file, for `TestClient.request`'s third argument.
 */
import crypto from 'node:crypto';

export interface UploadFile {
  name: string;
  data: Uint8Array;
}

export interface MultipartOptions {
  /** text fields sent before the files (the import's `topics`, a replacement's `book_id`) */
  fields?: Record<string, string>;
  /** the files' field name; `file` as the console sends */
  field?: string;
  /** each file part's Content-Type */
  type?: string;
}

export function multipart(files: readonly UploadFile[], options: MultipartOptions = {}): { payload: Buffer; headers: { 'content-type': string } } {
  const { fields = {}, field = 'file', type = 'application/octet-stream' } = options;
  const boundary = `----lectern${crypto.randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  for (const f of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${f.name}"\r\nContent-Type: ${type}\r\n\r\n`));
    parts.push(Buffer.from(f.data), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
