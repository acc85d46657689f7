/**
 * Packs the rebuilt W3C EPUB 3 test publications (docs/conformance.md, "How it was measured") into .epub files for
 * bench/conformance.ts. The test folders themselves are transcribed from a public code index and stay out of this
 * repository with the corpus; this script only packs them and makes what the index does not hold:
 *
 *   npx tsx bench/conformance-rebuild.ts [source folder] [output folder]     (defaults /tmp/epub-src, /tmp/epub-tests-2)
 *
 * Each `<source>/<test-id>/` is a test's unpacked publication (as `tests/<test-id>/` of w3c/epub-tests) plus an
 * optional `rebuild.json`:
 *  - `audio: {path: seconds}` — audio the index lacks, relative to the package document: a tone written in code, a
 *    different pitch for every 2 s so that clips differ, encoded as MP3 with Debian's `lame` (`apt-get install
 *    lame`); `mp4_as_mp3: true` makes an `audio/mp4` item MP3 instead (href `.mp4` → `.mp3`, media type
 *    `audio/mpeg`, in the package and every SMIL file), since nothing here encodes AAC;
 *  - `images: {path: [width, height]}` — a noisy JPEG of that size (noise, so that it does not compress away);
 *  - `text_image: {path: text}` — a PNG of that text drawn in DejaVu Sans Mono Bold Oblique;
 *  - `obfuscate: {path: {font, key}}` — `font` copied to `path` and obfuscated with the IDPF algorithm (the first 1040
 *    bytes XORed with the SHA-1 of `key` without white space), as OCF 3.3 §4.3 describes;
 *  - `zip: "bzip2"` — every entry but `mimetype` compressed with bzip2 (zip method 12, Info-ZIP `zip -Z bzip2`);
 *    `zip: "split"` — a split archive (`zip -s 64k`), and its last part (the `.zip`, holding the central directory)
 *    is the .epub; otherwise `mimetype` first and stored, the rest deflated (fflate).
 * A missing META-INF/container.xml is written for the first `package.opf` found, and a missing `nav.xhtml` that the
 * package names is written as a plain toc of the reading order.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipSync, type Zippable } from 'fflate';
import sharp from 'sharp';

const source = path.resolve(process.argv[2] ?? '/tmp/epub-src');
const output = path.resolve(process.argv[3] ?? '/tmp/epub-tests-2');
const only = process.env.ONLY ? new Set(process.env.ONLY.split(',')) : null;

interface Rebuild {
  audio?: Record<string, number>;
  mp4_as_mp3?: boolean;
  images?: Record<string, [number, number]>;
  text_image?: Record<string, string>;
  obfuscate?: Record<string, { font: string; key: string }>;
  zip?: 'bzip2' | 'split';
  notes?: string;
}

function walk(dir: string, base = dir): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? walk(full, base) : [path.relative(base, full).split(path.sep).join('/')];
  });
}

/** 16-bit mono PCM at 22,050 Hz: a quiet tone whose pitch changes every 2 s (so that clips sound apart). */
function toneWav(seconds: number): Buffer {
  const rate = 22_050;
  const n = Math.round(seconds * rate);
  const data = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const freq = 220 + 40 * (Math.floor(t / 2) % 12);
    data.writeInt16LE(Math.round(Math.sin(2 * Math.PI * freq * t) * 6000), i * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

function obfuscate(font: Buffer, key: string): Buffer {
  const hash = crypto.createHash('sha1').update(key.replace(/[\u0020\u0009\u000d\u000a]/g, ''), 'utf8').digest();
  const out = Buffer.from(font);
  for (let i = 0; i < Math.min(1040, out.length); i++) out[i] = out[i]! ^ hash[i % hash.length]!;
  return out;
}

async function build(id: string): Promise<string> {
  const dir = path.join(source, id);
  const spec: Rebuild = fs.existsSync(path.join(dir, 'rebuild.json')) ? JSON.parse(fs.readFileSync(path.join(dir, 'rebuild.json'), 'utf8')) : {};
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), `rebuild-${id}-`));
  try {
    fs.cpSync(dir, stage, { recursive: true });
    fs.rmSync(path.join(stage, 'rebuild.json'), { force: true });
    fs.writeFileSync(path.join(stage, 'mimetype'), 'application/epub+zip');
    const containerPath = path.join(stage, 'META-INF/container.xml');
    if (!fs.existsSync(containerPath)) {
      const opf = walk(stage).find((f) => f.endsWith('package.opf'));
      if (!opf) throw new Error(`${id}: no package.opf`);
      fs.mkdirSync(path.dirname(containerPath), { recursive: true });
      fs.writeFileSync(
        containerPath,
        `<?xml version="1.0" encoding="UTF-8"?>\n<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">\n  <rootfiles>\n    <rootfile full-path="${opf}" media-type="application/oebps-package+xml"/>\n  </rootfiles>\n</container>\n`,
      );
    }
    const rootfiles = [...fs.readFileSync(containerPath, 'utf8').matchAll(/full-path="([^"]+)"/g)].map((m) => m[1]!);
    for (const opfPath of rootfiles) {
      const full = path.join(stage, opfPath);
      if (!fs.existsSync(full)) continue;
      const opfDir = path.dirname(full);
      let opf = fs.readFileSync(full, 'utf8');
      // a plain nav for a nav document the package names and the index does not hold
      const nav = /<item\b[^>]*properties="[^"]*\bnav\b[^"]*"[^>]*>/.exec(opf)?.[0] ?? /<item\b[^>]*href="nav\.xhtml"[^>]*>/.exec(opf)?.[0];
      const navHref = nav ? /href="([^"]+)"/.exec(nav)?.[1] : undefined;
      if (navHref && !fs.existsSync(path.join(opfDir, navHref))) {
        const items = new Map([...opf.matchAll(/<item\b[^>]*>/g)].map((m) => [/id="([^"]+)"/.exec(m[0])?.[1], /href="([^"]+)"/.exec(m[0])?.[1]]));
        const spine = [...opf.matchAll(/<itemref\b[^>]*idref="([^"]+)"/g)].map((m) => items.get(m[1]!)).filter((h): h is string => !!h);
        const title = /<dc:title[^>]*>([^<]*)</.exec(opf)?.[1] ?? id;
        fs.writeFileSync(
          path.join(opfDir, navHref),
          `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="en">\n  <head><title>${title}</title></head>\n  <body>\n    <nav epub:type="toc">\n      <ol>\n${spine.map((h, i) => `        <li><a href="${h}">${i + 1}. ${h}</a></li>`).join('\n')}\n      </ol>\n    </nav>\n  </body>\n</html>\n`,
        );
      }
      if (spec.mp4_as_mp3) {
        const swap = (s: string) => s.replace(/(audio\/[\w./-]+)\.mp4/g, '$1.mp3').replace(/media-type="audio\/mp4"/g, 'media-type="audio/mpeg"');
        opf = swap(opf);
        fs.writeFileSync(full, opf);
        for (const f of walk(stage).filter((f) => f.endsWith('.smil'))) fs.writeFileSync(path.join(stage, f), swap(fs.readFileSync(path.join(stage, f), 'utf8')));
      }
      for (const [rel, seconds] of Object.entries(spec.audio ?? {})) {
        const target = path.join(opfDir, spec.mp4_as_mp3 ? rel.replace(/\.mp4$/, '.mp3') : rel);
        if (fs.existsSync(target)) continue;
        fs.mkdirSync(path.dirname(target), { recursive: true });
        const wav = `${target}.wav`;
        fs.writeFileSync(wav, toneWav(seconds));
        execFileSync('lame', ['--quiet', '-b', '32', '-m', 'm', wav, target]);
        fs.rmSync(wav);
      }
    }
    for (const [rel, [width, height]] of Object.entries(spec.images ?? {})) {
      const target = path.join(stage, rel);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const raw = Buffer.alloc(width * height * 3);
      for (let i = 0; i < raw.length; i++) raw[i] = (((i / 3) % width) / width) * 160 + Math.random() * 90;
      await sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 85 }).toFile(target);
    }
    for (const [rel, text] of Object.entries(spec.text_image ?? {})) {
      const target = path.join(stage, rel);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="760" height="60"><rect width="100%" height="100%" fill="white"/><text x="10" y="40" font-family="DejaVu Sans Mono" font-weight="bold" font-style="oblique" font-size="26">${text}</text></svg>`;
      await sharp(Buffer.from(svg)).png().toFile(target);
    }
    for (const [rel, { font, key }] of Object.entries(spec.obfuscate ?? {})) {
      const target = path.join(stage, rel);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, obfuscate(fs.readFileSync(font), key));
    }

    const out = path.join(output, `${id}.epub`);
    fs.rmSync(out, { force: true });
    const rest = walk(stage).filter((f) => f !== 'mimetype').sort();
    if (spec.zip === 'bzip2' || spec.zip === 'split') {
      const zipFile = path.join(stage, '..', `${path.basename(stage)}.zip`);
      execFileSync('zip', ['-q', '-X', '-0', zipFile, 'mimetype'], { cwd: stage });
      execFileSync('zip', ['-q', '-X', ...(spec.zip === 'bzip2' ? ['-Z', 'bzip2'] : []), zipFile, ...rest], { cwd: stage });
      if (spec.zip === 'split') {
        const parts = path.join(stage, '..', `${path.basename(stage)}-split`);
        fs.mkdirSync(parts);
        execFileSync('zip', ['-q', '-s', '64k', zipFile, '--out', path.join(parts, 'book.zip')]);
        fs.copyFileSync(path.join(parts, 'book.zip'), out);
        fs.rmSync(parts, { recursive: true, force: true });
      } else fs.copyFileSync(zipFile, out);
      fs.rmSync(zipFile, { force: true });
    } else {
      const files: Zippable = { mimetype: [fs.readFileSync(path.join(stage, 'mimetype')), { level: 0 }] };
      for (const f of rest) files[f] = [fs.readFileSync(path.join(stage, f)), { level: 6 }];
      fs.writeFileSync(out, zipSync(files));
    }
    return `${id}.epub ${fs.statSync(out).size} bytes${spec.notes ? ` — ${spec.notes}` : ''}`;
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

fs.mkdirSync(output, { recursive: true });
for (const id of fs.readdirSync(source).filter((d) => fs.statSync(path.join(source, d)).isDirectory()).filter((d) => !only || only.has(d)).sort()) {
  console.log(await build(id));
}
