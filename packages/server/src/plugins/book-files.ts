/**
 * How a book's own files leave the server. Imported books are hostile: whatever type a book declares, no byte of
 * it may run script on the app's origin. Every book file (resources, covers, the PDF of a document) goes out with
 * - `Content-Security-Policy: sandbox; default-src 'none'; …`: opened in a tab, it is a document of an opaque
 *   origin that may run nothing and fetch nothing but its own images, styles, fonts and media;
 * - `X-Content-Type-Options: nosniff`, and a type the browser will not execute as a page: images (SVG only when it
 *   carries no script), CSS, fonts, audio, video, PDF and text tracks keep theirs (the reader frame needs them);
 *   scripts keep a script type only for titles an admin allowed to run scripts (their reader frame loads them);
 *   HTML, XHTML, XML, scripts and anything unknown become `text/plain`.
 */
import fs from 'node:fs/promises';
import type { FastifyReply } from 'fastify';
import { DomUtils, parseDocument } from 'htmlparser2';
import { ReadCache } from '../services/read-cache.ts';

export const BOOK_FILE_CSP =
  "sandbox; default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; media-src 'self'; form-action 'none'; frame-ancestors 'self'";

const PASSED_THROUGH = [
  /^image\/(png|jpeg|jpg|gif|webp|avif|bmp|x-ms-bmp|tiff|x-icon|vnd\.microsoft\.icon)$/,
  /^text\/css$/,
  /^font\/[a-z0-9.+-]+$/,
  /^application\/(font-woff2?|x-font-woff|x-font-ttf|x-font-truetype|x-font-otf|x-font-opentype|font-sfnt|vnd\.ms-opentype|vnd\.ms-fontobject)$/,
  /^audio\/[a-z0-9.+-]+$/,
  /^video\/[a-z0-9.+-]+$/,
  /^application\/pdf$/,
  /^text\/vtt$/,
];
const SCRIPT_TYPES = new Set(['application/javascript', 'text/javascript', 'application/ecmascript', 'text/ecmascript', 'application/x-javascript']);
const SVG = 'image/svg+xml';
const PLAIN = 'text/plain; charset=utf-8';
/** Larger SVGs are not parsed on a request: they go out as text (a 2 MB picture in a book is rare). */
const MAX_SVG_BYTES = 2 * 1024 * 1024;

/** The media type without parameters, lower-cased ("Image/SVG+XML; charset=x" -> "image/svg+xml"). */
function essence(mediaType: string): string {
  return mediaType.split(';')[0]!.trim().toLowerCase();
}

/** Verdicts by stored file: a book's files never change after import (a re-import writes new ones). */
const svgVerdicts = new ReadCache<string, boolean>(10_000, 10 * 60_000);

const SVG_ACTIVE_ELEMENTS = new Set(['script', 'foreignobject', 'iframe', 'embed', 'object', 'handler', 'listener', 'set', 'animate', 'animatemotion', 'animatetransform']);

/**
 * True when an SVG can do nothing but draw: no script element, no event handler attribute, no foreign HTML, no
 * animation (which can rewrite an href into javascript:), and no link or reference that leaves the file except to
 * a fragment or a data: image.
 */
export function isInertSvg(text: string): boolean {
  const document = parseDocument(text, { xmlMode: true });
  const active = DomUtils.findOne((element) => {
    const name = element.name.toLowerCase();
    const local = name.slice(name.indexOf(':') + 1);
    if (SVG_ACTIVE_ELEMENTS.has(local)) return true;
    for (const [attribute, raw] of Object.entries(element.attribs)) {
      const a = attribute.toLowerCase();
      if (a.startsWith('on')) return true;
      const value = raw.replace(/[\u0000-\u0020]/g, '').toLowerCase();
      const dataImage = /^data:image\/(png|jpeg|gif|webp)[;,]/.test(value);
      if (/^(javascript|vbscript):/.test(value) || (value.startsWith('data:') && !dataImage)) return true;
      if ((a === 'href' || a.endsWith(':href')) && /^[a-z][a-z0-9+.-]*:/.test(value) && !dataImage) return true;
    }
    return false;
  }, document.children, true);
  // A processing instruction (<?xml-stylesheet?>) could pull in XSLT.
  const instructions = document.children.some((node) => node.type === 'directive' && /xml-stylesheet/i.test((node as { data?: string }).data ?? ''));
  return !active && !instructions;
}

async function svgIsInert(file: string): Promise<boolean> {
  const known = svgVerdicts.get(file);
  if (known !== undefined) return known;
  const handle = await fs.open(file, 'r');
  let verdict = false;
  try {
    const { size } = await handle.stat();
    if (size <= MAX_SVG_BYTES) verdict = isInertSvg(await handle.readFile('utf8'));
  } finally {
    await handle.close();
  }
  svgVerdicts.set(file, verdict);
  return verdict;
}

/** The Content-Type a book file is served with (see the module comment). */
export async function bookFileType(declared: string, file: string, opts: { allowScripts: boolean }): Promise<string> {
  const type = essence(declared);
  if (PASSED_THROUGH.some((pattern) => pattern.test(type))) return type;
  if (type === SVG) return (await svgIsInert(file)) ? SVG : PLAIN;
  if (SCRIPT_TYPES.has(type) && opts.allowScripts) return 'text/javascript';
  return PLAIN;
}

/** Sends a stored book file (below `root`) with the headers every book file carries and the type chosen above. */
export async function sendBookFile(reply: FastifyReply, root: string, file: string, declared: string, opts: { allowScripts: boolean }): Promise<FastifyReply> {
  reply.header('content-security-policy', BOOK_FILE_CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('cross-origin-resource-policy', 'same-origin');
  reply.type(await bookFileType(declared, file, opts));
  // contentType: false — the plugin would otherwise type the file by its stored name's extension, over ours.
  return reply.sendFile(file.slice(root.length + 1), root, { contentType: false });
}
