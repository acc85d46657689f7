import { deflateSync } from 'node:zlib';
import { parsePdf } from './src/ingest/pdf.ts';
const inflated = Number(process.argv[2] ?? 200) * 1024 * 1024;
const body = Buffer.alloc(inflated, 0x20); body.write('5 0 ', 0); body.write('<< /Bomb true >>', 4);
const stream = deflateSync(body, { level: 9 });
const enc = (s: string) => Buffer.from(s, 'latin1');
const pdf = Buffer.concat([enc(`%PDF-1.7
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >> endobj
4 0 obj << /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${stream.length} >>
stream
`), stream, enc(`
endstream
endobj
trailer << /Root 1 0 R /Size 6 >>
%%EOF
`)]);
const t = Date.now();
try { const r = await parsePdf(new Uint8Array(pdf), 'x.pdf', {maxDecodedBytes: Number(process.argv[3] ?? 64)*1024*1024}); console.log('ok', r.pageCount); } catch (e) { console.log('ERR', (e as Error).message); }
console.log(Date.now() - t, 'ms', 'maxrss MB', Math.round(process.resourceUsage().maxRSS / 1024));
