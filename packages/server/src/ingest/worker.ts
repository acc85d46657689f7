/**
 * The import worker: a child process that reads one untrusted file, parses it (EPUB or PDF), renders its
 * chapters and writes its resources to the staging folder it was given. It never touches the database or the
 * content folder. The service runs it with a V8 heap limit, watches its resident memory and its time, and kills
 * it when a bound is passed; the bytes it inflates and writes are counted here as they come.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { paths, slugify } from '@lectern/core';
import { StagedFileWriter, WriteBudgetError } from '../storage/content-store.ts';
import { parseEpub } from './epub.ts';
import { pageTexts } from './pdf-text.ts';
import { bookCssRewriter, sanitizeStylesheet } from './css.ts';
import { decodeText } from './markup.ts';
import { FRAME_DOCUMENT_TYPE, renderChapter, type FrameDocument, type RenderOptions } from './render.ts';
import { MAX_FRAME_DOCUMENTS } from './frame-document.ts';
import { fixedLayoutStylesheets } from './rendition.ts';
import { makePdfSample, openingPart } from './sample.ts';
import { IngestError, type ParsedTitle } from './types.ts';
import type { ContinueMessage, DoneMessage, ImportLimits, MediaDoneMessage, StartMessage, WorkerMessage } from './worker-protocol.ts';
import { LIMIT_NAMES } from './worker-protocol.ts';

const MB = 1024 * 1024;

function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolve, reject) => process.send!(message, undefined, undefined, (error) => (error ? reject(error) : resolve())));
}

function nextMessage<T>(): Promise<T> {
  return new Promise((resolve) => process.once('message', (message) => resolve(message as T)));
}

export async function parseFile(data: Uint8Array, fileName: string, limits: Pick<ImportLimits, 'maxWrittenBytes' | 'maxMemoryBytes'>): Promise<ParsedTitle> {
  const zipLimits = { maxInflatedBytes: limits.maxWrittenBytes, limitName: LIMIT_NAMES.maxWrittenBytes };
  const head = Buffer.from(data.subarray(0, 5)).toString('latin1');
  const ext = path.extname(fileName).toLowerCase();
  if (head.startsWith('PK') || (head !== '%PDF-' && ext === '.epub')) return parseEpub(data, fileName, zipLimits);
  if (head === '%PDF-' || ext === '.pdf') {
    // Loaded for PDFs only (pdf-lib is the largest part of a worker's start-up).
    const { MAX_PDF_DECODED_BYTES, parsePdf } = await import('./pdf.ts');
    // pdf-lib's decoded streams double their buffers as they grow: an eighth of the memory bound leaves room.
    return parsePdf(data, fileName, { maxDecodedBytes: Math.min(MAX_PDF_DECODED_BYTES, Math.floor(limits.maxMemoryBytes / 8)) });
  }
  throw new IngestError('unsupported file type: expected an EPUB or a PDF');
}

async function run(start: StartMessage): Promise<DoneMessage> {
  const { limits } = start;
  const size = (await fs.stat(start.file)).size;
  if (size > limits.maxFileBytes) {
    throw new IngestError(`the file is ${Math.ceil(size / MB)} MB, more than the ${Math.round(limits.maxFileBytes / MB)} MB limit for one file (${LIMIT_NAMES.maxFileBytes})`);
  }
  const file = await fs.readFile(start.file);
  // A view, not a copy: `new Uint8Array(buffer)` would hold the file twice.
  const data = new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
  const parsed = await parseFile(data, start.fileName, limits);

  const answer = nextMessage<ContinueMessage>();
  await send({ type: 'parsed', identifier: parsed.identifier, title: parsed.title });
  const { bookId } = await answer;

  const writer = new StagedFileWriter(start.stagingDir, limits.maxWrittenBytes, LIMIT_NAMES.maxWrittenBytes);
  const names = new Map<string, string>();
  const resources: DoneMessage['resources'] = [];
  const resourcePaths = new Set(parsed.resources.map((r) => r.fullPath));
  const resourceUrl = (p: string) => paths.chapterApi(bookId, p);
  const isResource = (p: string) => resourcePaths.has(p);
  // Stylesheets of fixed-layout pages keep their absolute positioning (ingest/rendition.ts).
  const positionedSheets = fixedLayoutStylesheets(parsed.chapters);
  for (const r of parsed.resources) {
    // The book's stylesheets are served as the sanitiser left them (css.ts), never as the book wrote them.
    if (r.mediaType === 'text/css') r.data = bookStylesheet(r.data, r.fullPath, isResource, resourceUrl, parsed.warnings, positionedSheets.has(r.fullPath));
    const name = await writer.write(r.data, path.extname(r.fullPath));
    names.set(r.fullPath, name);
    // A PDF is never free in full: its first pages, as a small PDF beside it, are what visitors get.
    const pdfSample = parsed.source === 'application/pdf' && r.mediaType === 'application/pdf' ? await makePdfSample(r.data).catch(() => null) : null;
    const sample = pdfSample ? { name: await writer.write(pdfSample.data, '.pdf'), size: pdfSample.data.byteLength } : undefined;
    resources.push({ fullPath: r.fullPath, mediaType: r.mediaType, size: r.data.byteLength, name, ...(sample ? { sample } : {}) });
  }
  let cover: DoneMessage['cover'] = null;
  if (parsed.cover) {
    const name = names.get(parsed.cover.fullPath) ?? (await writer.write(parsed.cover.data, path.extname(parsed.cover.fullPath)));
    cover = { name, mediaType: parsed.cover.mediaType };
  }

  const titleSafe = slugify(parsed.title);
  const chapterPaths = new Set(parsed.chapters.map((c) => c.fullPath));
  // A PDF's pages of text, for search: read from the PDF resource the chapter shows.
  const pdfData = parsed.source === 'application/pdf' ? parsed.resources.find((r) => r.mediaType === 'application/pdf')?.data : undefined;
  const pdfPages = pdfData ? await pageTexts(pdfData) : undefined;
  const documentPaths = new Set(parsed.resources.filter((r) => DOCUMENT_TYPES.has(r.mediaType.toLowerCase())).map((r) => r.fullPath));
  // An SVG drawing in an iframe keeps its file (images may show it); its frame document is stored beside it.
  const svgPaths = new Set(parsed.resources.filter((r) => r.mediaType.toLowerCase() === SVG_TYPE).map((r) => r.fullPath));
  const inBook = (p: string) => resourcePaths.has(p) || chapterPaths.has(p);
  const framePaths = new Map<string, string>();
  const frameDocumentPath = (p: string): string => {
    const known = framePaths.get(p);
    if (!svgPaths.has(p) || known) return known ?? p;
    const taken = new Set(framePaths.values());
    const candidate = freePath(`${p}.frame.html`, '.html', (c) => inBook(c) || taken.has(c));
    framePaths.set(p, candidate);
    return candidate;
  };
  /** The documents an iframe of a scripted title may show: each gets its frame document (storeFrameDocuments). */
  const framed = new Set<string>();
  /** Renders a chapter or a frame document, storing its inline styles and scripts as files beside it. */
  const render = async (fullPath: string, rawHtml: string, fixedLayout: boolean) => {
    // Inline <style>s become stylesheets of their own beside the chapter: no CSS is ever stored inside chapter HTML.
    const stylePaths: string[] = [];
    const inlineStylePath = (index: number): string => {
      const candidate = freePath(`${fullPath}.style-${index + 1}.css`, '.css', inBook);
      stylePaths[index] = candidate;
      return candidate;
    };
    // A scripted title's inline scripts, likewise (render.ts externalizeInlineScripts).
    const scriptPaths: string[] = [];
    const inlineScriptPath = (index: number): string => {
      const candidate = freePath(`${fullPath}.script-${index + 1}.js`, '.js', inBook);
      scriptPaths[index] = candidate;
      return candidate;
    };
    const options: RenderOptions = {
      chapterFullPath: fullPath,
      allowScripts: start.allowScripts,
      chapterUrl: (p, fragment) => paths.reader(titleSafe, bookId, p) + (fragment ? `#${fragment}` : ''),
      resourceUrl,
      isChapter: (p) => chapterPaths.has(p),
      isResource,
      isDocument: (p) => documentPaths.has(p) || svgPaths.has(p),
      // a link only to a document that will be stored: at most MAX_FRAME_DOCUMENTS of them, the first found
      frameDocumentPath: (p) => {
        if (!framed.has(p) && framed.size >= MAX_FRAME_DOCUMENTS) return null;
        framed.add(p);
        return frameDocumentPath(p);
      },
      inlineStyleUrl: (index) => resourceUrl(inlineStylePath(index)),
      inlineScriptPath: start.allowScripts ? inlineScriptPath : undefined,
      fixedLayout,
    };
    const rendered = renderChapter(rawHtml, options);
    for (const [index, css] of rendered.inlineStyles.entries()) {
      const stylePath = stylePaths[index]!;
      const data = Buffer.from(css);
      resourcePaths.add(stylePath);
      resources.push({ fullPath: stylePath, mediaType: 'text/css', size: data.byteLength, name: await writer.write(data, '.css') });
    }
    for (const [index, code] of rendered.inlineScripts.entries()) {
      const scriptPath = scriptPaths[index]!;
      const data = Buffer.from(code);
      resourcePaths.add(scriptPath);
      resources.push({ fullPath: scriptPath, mediaType: 'text/javascript', size: data.byteLength, name: await writer.write(data, '.js') });
    }
    return rendered;
  };
  // A scripted title's documents shown in its iframes (render.ts embedFrames), with the chapters that reach them.
  const frameDocuments = new Map<string, Set<string>>();
  const chapters: DoneMessage['chapters'] = [];
  for (const { rawHtml, ...chapter } of parsed.chapters) {
    const rendered =
      chapter.mediaType === 'application/pdf'
        ? { html: '', stylesheets: [], inlineStyles: [], inlineScripts: [], frameDocuments: [], textLength: chapter.textLength, root: null }
        : await render(chapter.fullPath, rawHtml, chapter.rendition?.layout === 'pre-paginated');
    for (const document of rendered.frameDocuments) frameDocuments.set(document, new Set([...(frameDocuments.get(document) ?? []), chapter.fullPath]));
    // Chapter HTML goes to the database: it counts against the same budget as the files.
    writer.count(Buffer.byteLength(rendered.html));
    // A one-chapter book is never free in full: its opening part is the sample visitors get.
    const sampleContent = parsed.chapters.length === 1 && chapter.mediaType !== 'application/pdf' ? openingPart(rendered.html, rendered.textLength) : null;
    chapters.push({
      ...chapter,
      html: rendered.html,
      stylesheets: rendered.stylesheets,
      renderedTextLength: rendered.textLength,
      sampleContent,
      root: rendered.root,
      ...(chapter.mediaType === 'application/pdf' && pdfPages ? { pageTexts: pdfPages } : {}),
    });
  }

  await storeFrameDocuments(frameDocuments, parsed, resources, render, writer, start.stagingDir, frameDocumentPath);

  const { chapters: _c, resources: _r, cover: _cover, toc, ...title } = parsed;
  return { type: 'done', title, chapters, toc, resources, cover, peakRssBytes: process.resourceUsage().maxRSS * 1024 };
}

/** A name for a file the importer adds: `candidate`, with `_` before its `extension` until no file has it. */
function freePath(candidate: string, extension: string, taken: (p: string) => boolean): string {
  let name = candidate;
  while (taken(name)) name = `${name.slice(0, -extension.length)}_${extension}`;
  return name;
}

const DOCUMENT_TYPES = new Set(['application/xhtml+xml', 'text/html']);
const SVG_TYPE = 'image/svg+xml';

/**
 * A scripted title's frame documents, rendered like chapters (sanitised, inline styles and scripts stored beside
 * them) and stored under FRAME_DOCUMENT_TYPE, with the chapters that show them: an (X)HTML page in place of the book's
 * file, an SVG drawing's beside it (`storedAt`). A frame document's own iframes are followed too (each document once; a
 * chapter they name is served as a chapter).
 */
async function storeFrameDocuments(
  found: Map<string, Set<string>>,
  parsed: ParsedTitle,
  resources: DoneMessage['resources'],
  render: (fullPath: string, rawHtml: string, fixedLayout: boolean) => Promise<{ html: string; stylesheets: string[]; root: FrameDocument['root']; title?: string | null; frameDocuments: string[] }>,
  writer: StagedFileWriter,
  stagingDir: string,
  storedAt: (fullPath: string) => string,
): Promise<void> {
  const rendered = new Map<string, Omit<FrameDocument, 'chapters'> & { embeds: string[] }>();
  const queue = [...found.keys()];
  while (queue.length > 0 && rendered.size < MAX_FRAME_DOCUMENTS) {
    const fullPath = queue.shift()!;
    if (rendered.has(fullPath)) continue;
    const source = parsed.resources.find((r) => r.fullPath === fullPath);
    if (!source) continue;
    const page = await render(fullPath, decodeText(source.data).text, false);
    rendered.set(fullPath, { html: page.html, stylesheets: page.stylesheets, root: page.root, title: page.title ?? null, embeds: page.frameDocuments });
    queue.push(...page.frameDocuments);
  }
  // the chapters that reach each document, through any number of frame documents
  for (let changed = true; changed; ) {
    changed = false;
    for (const [fullPath, page] of rendered) {
      for (const inner of page.embeds) {
        const into = found.get(inner) ?? new Set<string>();
        const before = into.size;
        for (const chapter of found.get(fullPath) ?? []) into.add(chapter);
        found.set(inner, into);
        changed ||= into.size !== before;
      }
    }
  }
  for (const [fullPath, { embeds: _embeds, ...page }] of rendered) {
    const entry = resources.find((r) => r.fullPath === fullPath);
    if (!entry) continue;
    const document: FrameDocument = { ...page, chapters: [...(found.get(fullPath) ?? [])] };
    const data = Buffer.from(JSON.stringify(document));
    const stored = storedAt(fullPath);
    if (stored !== fullPath) {
      resources.push({ fullPath: stored, mediaType: FRAME_DOCUMENT_TYPE, size: data.byteLength, name: await writer.write(data, '.json') });
      continue;
    }
    // in place of the book's file (written already): the same name, so no file is left over
    writer.count(data.byteLength);
    await fs.writeFile(path.join(stagingDir, entry.name), data);
    Object.assign(entry, { mediaType: FRAME_DOCUMENT_TYPE, size: data.byteLength });
  }
}

function bookStylesheet(data: Uint8Array, fullPath: string, isResource: (p: string) => boolean, resourceUrl: (p: string) => string, warnings: string[], positioned: boolean): Uint8Array {
  const sheet = sanitizeStylesheet(decodeText(data).text, bookCssRewriter(fullPath, isResource, resourceUrl), { positioned });
  if (sheet.unreadable) warnings.push(`the stylesheet ${fullPath} cannot be parsed as CSS; left out`);
  return Buffer.from(sheet.css);
}

// The server went away (or killed the channel): nothing left to do this for.
process.on('disconnect', () => {
  // and so are the ffprobe/ffmpeg it started: the worker leads their process group (worker-host.ts startWorker)
  try {
    process.kill(-process.pid, 'SIGKILL');
  } catch {
    // not a group of its own: nothing else to stop
  }
  process.exit(1);
});

/** A video course or audiobook (ingest/media.ts): probed, named, then converted into the staging folder. */
async function runMedia(start: StartMessage & { media: NonNullable<StartMessage['media']> }): Promise<MediaDoneMessage> {
  const startedAt = Date.now();
  const { probeMedia, writeMedia } = await import('./media.ts');
  const probed = await probeMedia(start.media, start.limits, startedAt);
  const answer = nextMessage<ContinueMessage>();
  await send({ type: 'parsed', identifier: null, title: probed.title });
  await answer;
  const writer = new StagedFileWriter(start.stagingDir, start.limits.maxWrittenBytes, LIMIT_NAMES.maxWrittenBytes);
  const done = await writeMedia(start.media, probed, writer, start.limits, startedAt);
  return { ...done, peakRssBytes: process.resourceUsage().maxRSS * 1024 };
}

process.once('message', (start: StartMessage) => {
  (start.media ? runMedia({ ...start, media: start.media }) : run(start)).then(
    (done) => send(done),
    (error: unknown) => {
      const refused = error instanceof IngestError || error instanceof WriteBudgetError;
      return send({ type: 'failed', refused, message: error instanceof Error ? error.message : String(error) });
    },
  ).finally(() => process.exit(0));
});
