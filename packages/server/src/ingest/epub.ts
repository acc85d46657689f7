/**
 * EPUB 2 and 3 importer: zip -> META-INF/container.xml -> OPF package (metadata, manifest, spine) -> table of
 * contents (EPUB 3 nav, else NCX, else the spine) -> chapters, resources and cover.
 *
 * Real books break the rules (the sample library alone has a misplaced, compressed mimetype, a mimetype with a
 * trailing CRLF and a cover <meta> that names a chapter), so the importer behaves like a forgiving reading
 * system: whatever it can read it imports, and every rule it had to forgive becomes a plain-English warning.
 * It refuses a file (IngestError) only when nothing readable would be left.
 */
import { DomUtils } from 'htmlparser2';
import { deobfuscate, readEncryption } from './obfuscation.ts';
import {
  attr,
  childElements,
  decodeText,
  findAll,
  findFirst,
  parseHtml,
  parseXml,
  textOf,
  visibleText,
  xmlProblem,
  type DomElement,
} from './markup.ts';
import { documentIds, readMediaOverlays } from './media-overlays.ts';
import { isFileNameItself, normaliseDate, prettyFileTitle, uniqueNonEmpty } from './metadata.ts';
import { commonFolder, dirname, isAbsoluteUrl, normalisePath, relativeTo, resolveHref } from './paths.ts';
import { itemRendition, pageViewport, readTitleRendition, type ChapterRendition, type TitleRendition } from './rendition.ts';
import { IngestError, type TextDirection, type ParsedChapter, type ParsedResource, type ParsedTitle, type ParsedTocEntry } from './types.ts';
import { ZipArchive, type ZipLimits } from './zip.ts';

const CONTAINER = 'META-INF/container.xml';
const EPUB_MEDIA_TYPE = 'application/epub+zip';
const OPF_MEDIA_TYPE = 'application/oebps-package+xml';
const NCX_MEDIA_TYPE = 'application/x-dtbncx+xml';
const CHAPTER_MEDIA_TYPES = new Set(['application/xhtml+xml', 'text/html']);
const SVG_MEDIA_TYPE = 'image/svg+xml';
/** Font types a browser loads for @font-face; a font declared as anything else is served as its extension says. */
const FONT_MEDIA_TYPES = new Set(['font/ttf', 'font/otf', 'font/woff', 'font/woff2', 'font/sfnt', 'application/font-woff', 'application/font-woff2', 'application/vnd.ms-opentype', 'application/x-font-ttf', 'application/x-font-truetype', 'application/x-font-otf', 'application/x-font-opentype', 'application/font-sfnt']);
/** Only for items whose media-type is missing or wrong. */
const MEDIA_TYPE_BY_EXTENSION: Record<string, string> = {
  xhtml: 'application/xhtml+xml',
  xht: 'application/xhtml+xml',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  ncx: NCX_MEDIA_TYPE,
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webp: 'image/webp',
  otf: 'font/otf',
  ttf: 'font/ttf',
  woff: 'font/woff',
  woff2: 'font/woff2',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
};

interface ManifestItem {
  id: string | null;
  /** As written in the manifest, for messages. */
  href: string;
  /** The href resolved against the OPF in zip space: the path the book's own links use. */
  declaredPath: string;
  /** The entry in the zip, or null when the file is missing. */
  zipPath: string | null;
  /** The declared path relative to the package root; set once every item is known. */
  path: string;
  mediaType: string;
  properties: Set<string>;
  /** The manifest id of the item to show when a reading system cannot show this one (EPUB fallback chain). */
  fallback: string | null;
}

interface ChapterFacts {
  chapter: ParsedChapter;
  declaredPath: string;
  heading: string | null;
  documentTitle: string | null;
  /** First chapter only: src of its first <img> (or SVG <image>), the cover of last resort. */
  firstImage: string | null;
  /** Characters of visible text inside links: a page that is mostly links is a printed contents page. */
  linkTextLength: number;
}

type Warn = (message: string) => void;

export function parseEpub(data: Uint8Array, fileName: string, zipLimits?: ZipLimits): ParsedTitle {
  const warnings = new Set<string>();
  const warn: Warn = (message) => warnings.add(message);
  const zip = new ZipArchive(data, warn, zipLimits, fileName);
  const damaged = (path: string, reason: string): void => warn(`${path} is damaged in the zip (${reason}); skipped`);

  checkMimetype(zip, warn, damaged);
  const opfPath = locatePackage(zip, warn, damaged);
  const opfBytes = zip.read([opfPath], damaged).get(opfPath);
  if (!opfBytes) throw new IngestError(`the package file ${opfPath} cannot be read`);
  const pkg = findFirst(parseXml(readText(opfBytes, opfPath, warn)), 'package');
  if (!pkg) throw new IngestError(`${opfPath} is not an OPF package document`);

  const { items, byId, byPath } = readManifest(pkg, opfPath, zip, warn);
  const files = zip.read(
    items.flatMap((item) => (item.zipPath ? [item.zipPath] : [])),
    damaged,
  );
  for (const item of items) if (item.zipPath && !files.has(item.zipPath)) item.zipPath = null;
  deobfuscateFonts(zip, pkg, files, warn, damaged);

  // Package paths are relative to the OPF's folder; if the manifest reaches above it ("../images/x.png"),
  // the root moves up to the folder that holds everything, so that no stored path needs "..".
  const root = commonFolder([dirname(opfPath), ...items.flatMap((item) => (item.zipPath ? [dirname(item.declaredPath)] : []))]);
  for (const item of items) item.path = relativeTo(root, item.declaredPath);

  const metadata = readMetadata(pkg, fileName, warn);
  const spine = findFirst(pkg, 'spine');
  const rendition = readTitleRendition(pkg, warn);
  const { facts, chapterOf } = readChapters(spine, items, byId, files, warn, rendition);
  if (facts.length === 0) throw new IngestError('the package has no readable chapters');
  const chapterPaths = new Set(facts.map((fact) => fact.chapter.fullPath));
  const overlays = readMediaOverlays({
    pkg, opfPath, byId, byPath, files, warn,
    // the chapter's ids, parsed again only for a chapter with an overlay: a phrase must point at one of them
    chapters: facts.map((f) => ({ fullPath: f.chapter.fullPath, declaredPath: f.declaredPath, ids: () => documentIds(f.chapter.rawHtml) })),
  });
  for (const fact of facts) {
    const overlay = overlays.get(fact.chapter.fullPath);
    if (overlay) fact.chapter.mediaOverlay = overlay;
  }

  const tocContext: TocContext = { items, byId, byPath, files, chapterOf, warn };
  const toc = readNavToc(tocContext) ?? readNcxToc(tocContext, spine ? attr(spine, 'toc') : undefined) ?? [];
  labelChapters(facts, toc);
  const chapters = facts.map((fact) => fact.chapter);
  if (toc.length === 0) toc.push(...tocFromSpine(chapters));

  const resources: ParsedResource[] = [];
  for (const item of items) {
    const bytes = item.zipPath ? files.get(item.zipPath) : undefined;
    if (chapterPaths.has(item.path)) continue;
    // An image no browser shows (image/psd, image/tiff, …) with a manifest fallback to one it does: the fallback is
    // served in its place, so that the chapter's <img src="x.psd"> shows it (EPUB 3.3 §3.3.3 manifest fallbacks).
    const fallback = imageFallback(item, byId, files);
    if (fallback) {
      warn(`${item.href} is ${item.mediaType}, which browsers do not show; its fallback ${fallback.item.href} is served in its place`);
      resources.push({ fullPath: item.path, mediaType: fallback.item.mediaType, data: fallback.bytes });
    } else if (bytes) resources.push({ fullPath: item.path, mediaType: item.mediaType, data: bytes });
  }
  reportUnlisted(zip, opfPath, items, warn);

  const landmarks = [...readNavLandmarks(tocContext), ...readGuide(pkg, opfPath, tocContext)];
  const pageList = readNavPageList(tocContext) ?? readNcxPageList(tocContext, spine ? attr(spine, 'toc') : undefined);
  const declared = (spine ? attr(spine, 'page-progression-direction') : undefined)?.trim().toLowerCase();
  const pageProgression = declared === 'rtl' || declared === 'ltr' ? declared : RTL_LANGUAGES.has((metadata.fields.language ?? '').toLowerCase().split(/[-_]/)[0] ?? '') ? 'rtl' : 'ltr';
  return {
    source: EPUB_MEDIA_TYPE,
    ...metadata.fields,
    chapters,
    pageList,
    pageProgression,
    rendition,
    // the EPUB 3 landmarks first; a guide repeating one adds nothing
    landmarks: landmarks.filter((l, i) => landmarks.findIndex((o) => o.type === l.type) === i).map((l) => ({ ...l, depth: 0 })),
    sampleIndex: chooseSampleChapter(facts, landmarks, metadata.fields.title),
    toc,
    resources,
    cover: findCover(items, byId, byPath, metadata.coverRef, facts[0], opfPath, files, warn),
    pageCount: null,
    warnings: [...warnings],
  };
}

/**
 * An entity such as &nbsp; under an XHTML 1.x doctype: browsers' XML parsers know those DTDs' entities, so the
 * chapter reads as written (still a warning: EPUB 3 requires the HTML doctype), and no reader is told of an error.
 */
function doctypeEntity(problem: string, text: string): boolean {
  return problem.startsWith('&') && /<!DOCTYPE\s+html\s+PUBLIC\s+"-\/\/W3C\/\/DTD XHTML/i.test(text.slice(0, 2000));
}

function readText(bytes: Uint8Array, path: string, warn: Warn): string {
  const decoded = decodeText(bytes);
  if (decoded.fallback) warn(`${path} is not valid UTF-8; read as Windows-1252`);
  return decoded.text;
}

function checkMimetype(zip: ZipArchive, warn: Warn, damaged: (path: string, reason: string) => void): void {
  if (!zip.has('mimetype')) {
    warn('the mimetype file is missing');
    return;
  }
  if (zip.firstEntryName !== 'mimetype') warn('mimetype is not the first entry of the zip');
  if (zip.isCompressed('mimetype')) warn('mimetype is compressed; it must be stored uncompressed');
  const bytes = zip.read(['mimetype'], damaged).get('mimetype');
  const text = bytes ? new TextDecoder().decode(bytes) : '';
  if (text === EPUB_MEDIA_TYPE) return;
  warn(
    text.trim() === EPUB_MEDIA_TYPE
      ? `mimetype has whitespace or a line break around ${EPUB_MEDIA_TYPE}`
      : `mimetype says "${text.trim().slice(0, 60)}" instead of ${EPUB_MEDIA_TYPE}`,
  );
}

/** The OPF named by container.xml; if container.xml is missing or broken and the zip holds exactly one .opf, that one. */
function locatePackage(zip: ZipArchive, warn: Warn, damaged: (path: string, reason: string) => void): string {
  const opfFiles = zip.paths.filter((path) => path.toLowerCase().endsWith('.opf'));
  const fallBack = (problem: string): string => {
    const only = opfFiles.length === 1 ? opfFiles[0] : undefined;
    if (only) {
      warn(`${problem}; used the only package file, ${only}`);
      return only;
    }
    throw new IngestError(opfFiles.length > 1 ? `${problem}, and the zip holds ${opfFiles.length} .opf files` : problem);
  };

  const containerPath = findEntry(zip, CONTAINER, null, CONTAINER, warn);
  if (!containerPath) return fallBack(`${CONTAINER} is missing`);
  const bytes = zip.read([containerPath], damaged).get(containerPath);
  if (!bytes) return fallBack(`${CONTAINER} cannot be read`);
  const rootfiles = findAll(parseXml(decodeText(bytes).text), 'rootfile');
  const rootfile =
    rootfiles.find((element) => (attr(element, 'media-type') ?? OPF_MEDIA_TYPE).trim() === OPF_MEDIA_TYPE) ?? rootfiles[0];
  const fullPath = rootfile ? attr(rootfile, 'full-path')?.trim() : undefined;
  if (!fullPath) return fallBack(`${CONTAINER} names no package file`);
  const found = findEntry(zip, normalisePath(fullPath, true), normalisePath(fullPath), `the package file ${fullPath}`, warn);
  return found ?? fallBack(`the package file ${fullPath} named in ${CONTAINER} is missing`);
}

/**
 * The zip entry for a resolved href: the decoded path, else the path as written (some packers leave "%20" in
 * file names), else a match that ignores letter case (books made on case-insensitive file systems).
 */
function findEntry(zip: ZipArchive, decoded: string | null, raw: string | null, what: string, warn: Warn): string | undefined {
  if (decoded && zip.has(decoded)) return decoded;
  if (raw && zip.has(raw)) {
    warn(`${what} is ${raw} in the zip, with percent escapes left in the file name`);
    return raw;
  }
  const caseless = decoded ? zip.lookup(decoded) : undefined;
  if (caseless) warn(`${what} is ${caseless} in the zip (the letter case differs)`);
  return caseless;
}

function readManifest(
  pkg: DomElement,
  opfPath: string,
  zip: ZipArchive,
  warn: Warn,
): { items: ManifestItem[]; byId: Map<string, ManifestItem>; byPath: Map<string, ManifestItem> } {
  const items: ManifestItem[] = [];
  const byId = new Map<string, ManifestItem>();
  /** By declared path (what hrefs resolve to) and by zip entry, so that TOC and chapter links find their item. */
  const byPath = new Map<string, ManifestItem>();
  const manifest = findFirst(pkg, 'manifest');
  if (!manifest) warn('the package has no manifest');

  for (const element of manifest ? findAll(manifest, 'item') : []) {
    const id = attr(element, 'id')?.trim() || null;
    const href = attr(element, 'href')?.trim();
    if (!href) {
      warn(`manifest item ${id ?? '(without id)'} has no href; skipped`);
      continue;
    }
    if (isAbsoluteUrl(href)) {
      warn(`manifest item ${href} is a remote resource; not imported`);
      continue;
    }
    const resolved = resolveHref(opfPath, href);
    if (!resolved) {
      warn(`manifest item ${href} points outside the package; skipped`);
      continue;
    }
    if (id && byId.has(id)) {
      warn(`manifest id "${id}" is used more than once; kept the first`);
      continue;
    }
    const duplicate = byPath.get(resolved.path);
    if (duplicate) {
      warn(`the manifest lists ${href} more than once; kept the first`);
      if (id) byId.set(id, duplicate);
      continue;
    }
    let mediaType = attr(element, 'media-type')?.trim().toLowerCase() ?? '';
    if (!mediaType) {
      mediaType = mediaTypeFromExtension(resolved.path) ?? 'application/octet-stream';
      warn(`manifest item ${href} has no media-type; taken as ${mediaType}`);
    }
    const byExtension = mediaTypeFromExtension(resolved.path);
    if (byExtension?.startsWith('font/') && !FONT_MEDIA_TYPES.has(mediaType)) {
      // A font declared as application/octet-stream would be served as text: the reader frame needs a font type.
      warn(`manifest item ${href} is declared as ${mediaType}; served as ${byExtension}`);
      mediaType = byExtension;
    }
    const zipPath = findEntry(zip, resolved.path, resolveHref(opfPath, href, false)?.path ?? null, `manifest item ${href}`, warn);
    const item: ManifestItem = {
      id,
      href,
      declaredPath: resolved.path,
      zipPath: zipPath ?? null,
      path: '',
      mediaType,
      properties: new Set((attr(element, 'properties') ?? '').split(/\s+/).filter(Boolean)),
      fallback: attr(element, 'fallback')?.trim() || null,
    };
    items.push(item);
    if (id) byId.set(id, item);
    byPath.set(resolved.path, item);
  }

  // A file that is not where the manifest says may still be in the zip under another folder (debmake-doc's
  // cover is): use it when exactly one unclaimed file has that name. References keep the declared path.
  const claimed = new Set(items.map((item) => item.zipPath));
  for (const item of items) {
    if (item.zipPath) continue;
    const name = item.declaredPath.slice(item.declaredPath.lastIndexOf('/') + 1).toLowerCase();
    const candidates = zip.paths.filter(
      (path) => !claimed.has(path) && path !== opfPath && path.slice(path.lastIndexOf('/') + 1).toLowerCase() === name,
    );
    const found = candidates.length === 1 ? candidates[0] : undefined;
    if (found) {
      warn(`manifest item ${item.href} is not where the manifest says; used ${found}`);
      item.zipPath = found;
      claimed.add(found);
    } else {
      warn(`manifest item ${item.href} is missing from the zip`);
    }
  }
  for (const item of items) if (item.zipPath && !byPath.has(item.zipPath)) byPath.set(item.zipPath, item);
  return { items, byId, byPath };
}

/** Sphinx writes the placeholder "unknown" when a book sets no identifier or description. */
function known(text: string): string | null {
  return text && text.toLowerCase() !== 'unknown' ? text : null;
}

function mediaTypeFromExtension(path: string): string | undefined {
  const dot = path.lastIndexOf('.');
  return dot < 0 ? undefined : MEDIA_TYPE_BY_EXTENSION[path.slice(dot + 1).toLowerCase()];
}

interface Metadata {
  fields: Pick<
    ParsedTitle,
    'identifier' | 'title' | 'authors' | 'publishers' | 'issued' | 'language' | 'description' | 'subjects' | 'textDirection'
  >;
  /** The content of <meta name="cover">, an item id (or, in some books, an href). */
  coverRef: string | null;
}

/** The text of the dc:identifier the package's unique-identifier names, as written (font obfuscation keys on it). */
function uniqueIdentifier(pkg: DomElement): string | null {
  const metadata = findFirst(pkg, 'metadata');
  const id = attr(pkg, 'unique-identifier')?.trim();
  const identifiers = metadata ? findAll(metadata, 'identifier') : [];
  const element = (id ? identifiers.find((candidate) => attr(candidate, 'id') === id) : undefined) ?? identifiers[0];
  return element ? DomUtils.textContent(element) : null;
}

/**
 * Fonts obfuscated by the IDPF or Adobe algorithm (META-INF/encryption.xml) are restored in place, so that they are
 * stored and served as plain fonts; anything encrypted otherwise (DRM) cannot be read and is reported.
 */
function deobfuscateFonts(zip: ZipArchive, pkg: DomElement, files: Map<string, Uint8Array>, warn: Warn, damaged: (path: string, reason: string) => void): void {
  const encryptionPath = zip.lookup('META-INF/encryption.xml');
  const bytes = encryptionPath ? zip.read([encryptionPath], damaged).get(encryptionPath) : undefined;
  if (!bytes) return;
  const identifier = uniqueIdentifier(pkg);
  for (const entry of readEncryption(decodeText(bytes).text)) {
    const zipPath = zip.lookup(entry.path) ?? entry.path;
    const data = files.get(zipPath);
    if (!data) continue;
    const restored = entry.algorithm === 'other' ? null : deobfuscate(data, entry.algorithm, identifier ?? '');
    if (restored) files.set(zipPath, restored);
    else if (entry.algorithm === 'other') warn(`${entry.path} is encrypted (${entry.uri}); it cannot be read`);
    else warn(`${entry.path} is obfuscated, but the package has no identifier to restore it with`);
  }
}

function readMetadata(pkg: DomElement, fileName: string, warn: Warn): Metadata {
  const metadata = findFirst(pkg, 'metadata');
  if (!metadata) warn('the package has no metadata');
  // findAll is recursive, which also covers EPUB 2's older <dc-metadata> wrapper.
  const all = (name: string): DomElement[] => (metadata ? findAll(metadata, name) : []);

  // EPUB 3 qualifies elements with <meta refines="#id" property="...">.
  const refinements = new Map<string, Map<string, string[]>>();
  for (const meta of all('meta')) {
    const target = attr(meta, 'refines')?.trim();
    const property = attr(meta, 'property')?.trim();
    if (!target?.startsWith('#') || !property) continue;
    const byProperty = refinements.get(target.slice(1)) ?? new Map<string, string[]>();
    byProperty.set(property, [...(byProperty.get(property) ?? []), textOf(meta).toLowerCase()]);
    refinements.set(target.slice(1), byProperty);
  }
  const refined = (element: DomElement, property: string): string[] => {
    const id = attr(element, 'id');
    return (id && refinements.get(id)?.get(property)) || [];
  };

  // The first dc:title is the title (EPUB 3.3 RS §4.2.3, "title order"), whatever it says: a test id such as
  // "cnt-css-fonts_woff" is a title too. Only an empty one, or one that is literally this file's name with its
  // extension ("book.epub"), gives way: to a later dc:title, else to the file name; never to a link's or a
  // heading's text, which names a place in the book, not the book (docs/decisions.md "What a title is").
  const titles = all('title');
  const fileTitle = (element: DomElement) => {
    const text = textOf(element);
    return text && !isFileNameItself(text, fileName) ? text : '';
  };
  const mainTitle = titles.find((element) => fileTitle(element) !== '');
  let title = mainTitle ? fileTitle(mainTitle) : '';
  if (!title) {
    const said = titles.map(textOf).find(Boolean);
    title = prettyFileTitle(fileName);
    warn(said ? `the dc:title "${said}" is the file's name; "${title}" is used as the title` : `the package has no dc:title; "${title}", from the file name, is used as the title`);
  } else if (mainTitle !== titles[0]) {
    warn(`the first dc:title is empty or the file's name; the later "${title}" is used as the title`);
  }

  const uniqueId = attr(pkg, 'unique-identifier')?.trim();
  const identifiers = all('identifier');
  let identifierElement = uniqueId ? identifiers.find((element) => attr(element, 'id') === uniqueId) : undefined;
  if (!uniqueId) warn('the package has no unique-identifier attribute');
  else if (!identifierElement) warn(`the package's unique-identifier "${uniqueId}" names no dc:identifier`);
  identifierElement ??= identifiers[0];

  const authors = all('creator').filter((element) => {
    const role = (attr(element, 'role') ?? refined(element, 'role')[0])?.trim().toLowerCase();
    return !role || role === 'aut';
  });

  const dates = all('date');
  const date = dates.find((element) => attr(element, 'event')?.trim().toLowerCase() === 'publication') ?? dates[0];

  const descriptionElement = all('description')[0];
  // Descriptions often carry escaped HTML ("&lt;p&gt;..."): parse what the XML parser decoded, keep the text.
  const description = descriptionElement
    ? known(visibleText(parseHtml(DomUtils.textContent(descriptionElement)).children))
    : null;

  const coverMeta = all('meta').find((element) => attr(element, 'name')?.trim().toLowerCase() === 'cover');
  // dir and xml:lang on the element, else on <package> (EPUB 3.3 §5.4.2: the package's are the default).
  const direction = (element: DomElement | undefined): TextDirection => {
    const dir = (element && attr(element, 'dir')?.trim().toLowerCase()) || attr(pkg, 'dir')?.trim().toLowerCase();
    const lang = (element && attr(element, 'lang')?.trim()) || attr(pkg, 'lang')?.trim() || null;
    return { dir: dir === 'ltr' || dir === 'rtl' || dir === 'auto' ? dir : null, lang: lang && /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/.test(lang) ? lang : null };
  };
  const authorDirections: Record<string, TextDirection> = {};
  for (const element of authors) authorDirections[textOf(element)] ??= direction(element);

  return {
    fields: {
      identifier: identifierElement ? known(textOf(identifierElement)) : null,
      title,
      authors: uniqueNonEmpty(authors.map(textOf)),
      publishers: uniqueNonEmpty(all('publisher').map(textOf)),
      issued: date ? normaliseDate(textOf(date)) : null,
      language: all('language').map(textOf).find(Boolean) ?? null,
      description,
      subjects: uniqueNonEmpty(all('subject').map(textOf)),
      textDirection: { title: direction(mainTitle), authors: authorDirections },
    },
    coverRef: coverMeta ? attr(coverMeta, 'content')?.trim() || null : null,
  };
}

/**
 * Spine items in spine order, each shown as a chapter: (X)HTML and SVG content documents as they are; any other
 * type through its manifest fallback chain (the first content document on it), else, for an image, a page that
 * shows the image. An item listed twice keeps both places (the second under a path of its own, "ch1~2.xhtml",
 * since a chapter's path is its address). Without a spine, the manifest's XHTML in manifest order.
 */
function readChapters(
  spine: DomElement | null,
  items: ManifestItem[],
  byId: Map<string, ManifestItem>,
  files: Map<string, Uint8Array>,
  warn: Warn,
  titleRendition: TitleRendition,
): { facts: ChapterFacts[]; chapterOf: Map<string, string> } {
  let refs: { item: ManifestItem; linear: boolean; properties?: string[] }[] = [];
  for (const itemref of spine ? childElements(spine, 'itemref') : []) {
    const idref = attr(itemref, 'idref')?.trim() ?? '';
    const item = byId.get(idref);
    const properties = (attr(itemref, 'properties') ?? '').split(/\s+/).filter(Boolean);
    if (item) refs.push({ item, linear: attr(itemref, 'linear')?.trim().toLowerCase() !== 'no', properties });
    else warn(`the spine names "${idref}", which is not in the manifest; skipped`);
  }
  if (!spine || refs.length === 0) {
    warn('the package has no spine; its XHTML files are read in manifest order');
    refs = items
      .filter((item) => CHAPTER_MEDIA_TYPES.has(item.mediaType) && !item.properties.has('nav'))
      .map((item) => ({ item, linear: true }));
  }

  const facts: ChapterFacts[] = [];
  /** Manifest item path -> the chapter path of its first place in the spine. */
  const chapterOf = new Map<string, string>();
  const taken = new Set(items.map((item) => item.path));
  const placesOf = new Map<string, number>();
  for (const { item: spineItem, linear, properties } of refs) {
    const shown = shownItem(spineItem, byId, files, warn);
    if (!shown) continue;
    const { item, mediaType } = shown;
    const bytes = files.get(item.zipPath!)!;
    const imagePage = mediaType.startsWith('image/') && mediaType !== SVG_MEDIA_TYPE;
    const laidOut = itemRendition(titleRendition, properties ?? []);
    const fixed = laidOut.layout === 'pre-paginated';
    let fullPath = imagePage ? freePath(`${item.path}.xhtml`, taken) : item.path;
    const places = (placesOf.get(item.path) ?? 0) + 1;
    placesOf.set(item.path, places);
    if (places > 1) {
      fullPath = freePath(numbered(fullPath, places), taken);
      warn(`the spine lists ${item.href} more than once; each place is kept (place ${places} as ${fullPath})`);
    }
    taken.add(fullPath);
    if (!chapterOf.has(item.path)) chapterOf.set(item.path, fullPath);
    if (!chapterOf.has(spineItem.path)) chapterOf.set(spineItem.path, fullPath);
    const rawHtml = imagePage ? imagePageHtml(item.path, fixed) : readText(bytes, item.path, warn);
    // Every place of a broken item is marked (the reader's notice); the warning is said once.
    const problem = mediaType === 'application/xhtml+xml' && !imagePage ? xmlProblem(rawHtml) : null;
    if (problem && places === 1) warn(`${item.href} is not well-formed XHTML (${problem}); read with the HTML parser's recovery`);
    const document = parseHtml(rawHtml);
    const rendition: ChapterRendition = {
      ...laidOut,
      viewport: fixed
        ? pageViewport(imagePage ? { kind: 'image', bytes, mediaType } : { kind: 'document', document, svg: mediaType === SVG_MEDIA_TYPE }, titleRendition)
        : null,
    };
    if (fixed && !rendition.viewport) warn(`the fixed-layout page ${item.href} gives no viewport size; the reader uses its neighbours'`);
    const body = findFirst(document, 'body');
    const heading = findFirst(body ?? document, 'h1');
    const titleElement = findFirst(document, 'title');
    const image =
      facts.length === 0
        ? DomUtils.findOne((element) => element.name === 'img' || element.name === 'image', (body ?? document).children)
        : null;
    facts.push({
      chapter: {
        fullPath,
        label: '',
        mediaType: imagePage ? 'application/xhtml+xml' : mediaType,
        rawHtml,
        textLength: visibleText((body ?? document).children).length,
        linear,
        rendition,
        ...(problem && !doctypeEntity(problem, rawHtml) ? { markupError: problem } : {}),
      },
      declaredPath: imagePage ? `${item.declaredPath}.xhtml` : item.declaredPath,
      heading: (heading && visibleText([heading])) || null,
      documentTitle: (titleElement && textOf(titleElement)) || null,
      firstImage: (image && (attr(image, 'src') ?? attr(image, 'href'))) || null,
      linkTextLength: findAll(body ?? document, 'a').reduce((sum, a) => sum + visibleText([a]).length, 0),
    });
  }
  return { facts, chapterOf };
}

/** "text/ch1.xhtml", 2 -> "text/ch1~2.xhtml" (same folder, so the chapter's relative links still resolve). */
function numbered(path: string, n: number): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  return dot > slash ? `${path.slice(0, dot)}~${n}${path.slice(dot)}` : `${path}~${n}`;
}

function freePath(path: string, taken: Set<string>): string {
  let candidate = path;
  for (let n = 2; taken.has(candidate); n++) candidate = numbered(path, n);
  return candidate;
}

/**
 * The page shown for an image in the spine: the image, alone, fitted to the reading view; on a fixed-layout page
 * (whose viewport is the image's size) it fills the page.
 */
function imagePageHtml(imagePath: string, fixed = false): string {
  const name = encodeURIComponent(imagePath.slice(imagePath.lastIndexOf('/') + 1));
  if (fixed) {
    const fill = 'display: block; width: 100%; height: 100%; margin: 0; object-fit: contain';
    return `<html><head><title></title></head><body><div style="width: 100%; height: 100%"><img src="${name}" alt="" style="${fill}"/></div></body></html>`;
  }
  return `<html><head><title></title></head><body><div><img src="${name}" alt=""/></div></body></html>`;
}

/** The image types every reading system shows (EPUB 3.3 core media types). */
const CORE_IMAGE_TYPES = new Set(['image/gif', 'image/jpeg', 'image/png', 'image/svg+xml', 'image/webp']);

/** For an image of another type, the first core image on its manifest fallback chain (with its bytes); else null. */
function imageFallback(item: ManifestItem, byId: Map<string, ManifestItem>, files: Map<string, Uint8Array>): { item: ManifestItem; bytes: Uint8Array } | null {
  const type = item.mediaType.toLowerCase();
  if (!type.startsWith('image/') || CORE_IMAGE_TYPES.has(type) || !item.fallback) return null;
  const seen = new Set<ManifestItem>([item]);
  for (let next = byId.get(item.fallback); next && !seen.has(next); next = next.fallback ? byId.get(next.fallback) : undefined) {
    seen.add(next);
    const bytes = next.zipPath ? files.get(next.zipPath) : undefined;
    if (bytes && CORE_IMAGE_TYPES.has(next.mediaType.toLowerCase())) return { item: next, bytes };
  }
  return null;
}

/** The item a spine entry shows: itself if it is a content document, else the first one on its fallback chain; else an image on the chain. */
function shownItem(spineItem: ManifestItem, byId: Map<string, ManifestItem>, files: Map<string, Uint8Array>, warn: Warn): { item: ManifestItem; mediaType: string } | null {
  const seen = new Set<ManifestItem>();
  let image: ManifestItem | null = null;
  for (let item: ManifestItem | undefined = spineItem; item && !seen.has(item); item = item.fallback ? byId.get(item.fallback) : undefined) {
    seen.add(item);
    if (!item.zipPath || !files.has(item.zipPath)) {
      warn(`spine item ${item.href} is missing from the zip; skipped`);
      continue;
    }
    const mediaType = contentMediaType(item, item === spineItem && !item.fallback ? warn : () => {});
    if (mediaType) {
      if (item !== spineItem) warn(`spine item ${spineItem.href} is ${spineItem.mediaType}; shown through its fallback ${item.href}`);
      return { item, mediaType };
    }
    if (!image && item.mediaType.startsWith('image/')) image = item;
  }
  if (image) {
    warn(`spine item ${spineItem.href} is ${spineItem.mediaType}, not XHTML${spineItem.fallback ? '' : ', and has no fallback'}; shown as an image page`);
    return { item: image, mediaType: image.mediaType };
  }
  if (spineItem.zipPath && files.has(spineItem.zipPath)) warn(`spine item ${spineItem.href} is ${spineItem.mediaType}, not XHTML, and has no fallback that is; left out of the chapters`);
  return null;
}

function contentMediaType(item: ManifestItem, warn: Warn): string | null {
  if (CHAPTER_MEDIA_TYPES.has(item.mediaType) || item.mediaType === SVG_MEDIA_TYPE) return item.mediaType;
  const guessed = mediaTypeFromExtension(item.path);
  if (guessed && CHAPTER_MEDIA_TYPES.has(guessed) && !item.mediaType.startsWith('image/')) {
    warn(`spine item ${item.href} is declared as ${item.mediaType}; read as ${guessed}`);
    return guessed;
  }
  return null;
}

/**
 * Label order: a TOC entry for the whole file; the chapter's first <h1>; a TOC entry for a place in the file;
 * its <title>; "Chapter N". Headings come before <title> because many books repeat the book's title in every
 * chapter's <title> (Moby-Dick does).
 */
function labelChapters(facts: ChapterFacts[], toc: ParsedTocEntry[]): void {
  const wholeFile = new Map<string, string>();
  const place = new Map<string, string>();
  for (const entry of toc) {
    const map = entry.fragment ? place : wholeFile;
    if (!map.has(entry.fullPath)) map.set(entry.fullPath, entry.label);
  }
  facts.forEach((fact, index) => {
    const path = fact.chapter.fullPath;
    fact.chapter.label =
      wholeFile.get(path) ?? fact.heading ?? place.get(path) ?? fact.documentTitle ?? `Chapter ${index + 1}`;
  });
}

/** Chapters shorter than this are title pages, part titles or covers, not what a sample should show. */
const SAMPLE_MIN_TEXT = 500;
/** Landmark (EPUB 3 epub:type) and guide (EPUB 2 type) values of pages that are not the book's text. */
const NOT_TEXT_TYPES = new Set([
  'cover', 'title-page', 'titlepage', 'halftitlepage', 'toc', 'loi', 'lot', 'frontmatter', 'copyright-page', 'copyright',
  'dedication', 'epigraph', 'colophon', 'imprint', 'imprimatur', 'acknowledgements', 'acknowledgments', 'foreword', 'preface',
  'contributors', 'other-credits', 'errata', 'bibliography', 'index', 'glossary', 'backmatter', 'notes', 'footnotes', 'endnotes',
]);
/** Labels (and file names) of front and back matter: what a visitor should not get as "the sample chapter". */
const NOT_TEXT_LABEL =
  /^(?:the\s+)?(?:cover(?:\s+page)?|(?:half[-\s]?)?title(?:\s*page)?|(?:brief\s+|table\s+of\s+)?contents|toc|copyright(?:\s+page)?|colophon|dedication|imprint|acknowledge?ments?|(?:original\s+)?transcriber[’'`]?s?\s+notes?|notes?\s+(?:on|about)\s+(?:the\s+)?(?:text|edition|transcription)|about(?:\s+(?:the\s+)?(?:author|authors|publisher|book|edition|e-?book|feedbooks|this\s+(?:e-?book|edition)))?|foreword|preface|front\s*matter|licen[cs]e|also\s+by\b.*|other\s+books\s+by\b.*|praise\s+for\b.*|list\s+of\s+(?:figures|tables|illustrations)|index|glossary|bibliography|footnotes|endnotes|notes)[\s.:]*$/i;
const NOT_TEXT_FILE = /(?:^|[/_.-])(?:cover|title(?:page)?|toc|contents|copyright|colophon|dedication|imprint|about|preface|foreword|nav|pr\d+)(?:[_.-]?\d*)?\.(?:x?html?|xml)$/i;

export interface Landmark {
  type: string;
  fullPath: string;
  label: string;
  fragment: string | null;
}

/**
 * The sample chapter: the first real chapter of the book, not its cover, title page, printed contents,
 * transcriber's notes, publisher's About page, copyright or dedication. The search starts at the EPUB 3
 * `bodymatter` landmark (else the EPUB 2 guide's `text` reference) and skips, from there, pages that a landmark or
 * the guide calls front or back matter, pages whose label or file name says so, pages that are mostly links (a
 * contents page) and pages with under 500 characters of text (part titles). When nothing qualifies after the
 * landmark, the search runs again from the start, then falls back to the first linear chapter with some text.
 */
export function chooseSampleChapter(facts: readonly ChapterFacts[], landmarks: readonly Landmark[], bookTitle: string): number {
  const index = (fullPath: string | undefined) => (fullPath ? facts.findIndex((fact) => fact.chapter.fullPath === fullPath) : -1);
  const start = index(landmarks.find((l) => l.type === 'bodymatter')?.fullPath ?? landmarks.find((l) => l.type === 'text' || l.type === 'start')?.fullPath);
  const notText = new Set(landmarks.filter((l) => NOT_TEXT_TYPES.has(l.type)).map((l) => l.fullPath));
  const simplify = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  const qualifies = (fact: ChapterFacts): boolean => {
    const { chapter } = fact;
    if (!chapter.linear || chapter.textLength < SAMPLE_MIN_TEXT || notText.has(chapter.fullPath)) return false;
    if (NOT_TEXT_LABEL.test(chapter.label.trim()) || NOT_TEXT_FILE.test(chapter.fullPath)) return false;
    // The book's own title as the label of a short page: a title page with a blurb.
    if (simplify(chapter.label) === simplify(bookTitle) && chapter.textLength < 5_000) return false;
    return fact.linkTextLength < chapter.textLength / 2;
  };
  const from = (first: number) => facts.findIndex((fact, i) => i >= first && qualifies(fact));
  const found = start >= 0 ? from(start) : -1;
  if (found >= 0) return found;
  const anywhere = from(0);
  if (anywhere >= 0) return anywhere;
  const withText = facts.findIndex((fact) => fact.chapter.linear && fact.chapter.textLength >= SAMPLE_MIN_TEXT);
  return withText >= 0 ? withText : 0;
}

/** EPUB 3: the entries of <nav epub:type="landmarks"> that lead to chapters, with their epub:type. */
function readNavLandmarks(context: TocContext): Landmark[] {
  const navItem = context.items.find((item) => item.properties.has('nav'));
  const source = tocDocument(context, navItem);
  if (!source) return [];
  const nav = findAll(parseHtml(source.text), 'nav').find((element) => (attr(element, 'epub:type') ?? '').split(/\s+/).includes('landmarks'));
  return nav ? landmarksOf(context, source.declaredPath, findAll(nav, 'a').map((a) => [attr(a, 'epub:type'), attr(a, 'href'), visibleText([a])])) : [];
}

/** EPUB 2: the package's <guide> references (type="text" is where the text starts). */
function readGuide(pkg: DomElement, opfPath: string, context: TocContext): Landmark[] {
  const guide = findFirst(pkg, 'guide');
  return guide ? landmarksOf(context, opfPath, findAll(guide, 'reference').map((r) => [attr(r, 'type'), attr(r, 'href'), attr(r, 'title')?.trim() ?? ''])) : [];
}

function landmarksOf(context: TocContext, from: string, entries: [string | undefined, string | undefined, string][]): Landmark[] {
  const landmarks: Landmark[] = [];
  for (const [types, href, label] of entries) {
    const resolved = href && !isAbsoluteUrl(href) ? resolveHref(from, href) : null;
    const item = resolved ? context.byPath.get(resolved.path) : undefined;
    const chapter = item ? context.chapterOf.get(item.path) : undefined;
    if (!resolved || !chapter) continue;
    for (const type of (types ?? '').toLowerCase().split(/\s+/).filter(Boolean)) landmarks.push({ type, fullPath: chapter, label, fragment: resolved.fragment });
  }
  return landmarks;
}

/** Languages written right to left: a book in one whose spine says nothing else turns its pages that way. */
const RTL_LANGUAGES = new Set(['ar', 'arc', 'ckb', 'dv', 'fa', 'he', 'iw', 'ks', 'ku', 'ps', 'sd', 'syr', 'ug', 'ur', 'yi']);

/** At most this many pages are kept of a page list (a 3,000-page print edition is long; a hostile list is not). */
const MAX_PAGE_LIST = 20_000;

/** EPUB 3: <nav epub:type="page-list">, a flat list of the print pages' places (hidden or not). */
function readNavPageList(context: TocContext): ParsedTocEntry[] | null {
  const navItem = context.items.find((item) => item.properties.has('nav'));
  const source = tocDocument(context, navItem);
  if (!source) return null;
  const nav = findAll(parseHtml(source.text), 'nav').find((element) => (attr(element, 'epub:type') ?? '').split(/\s+/).includes('page-list'));
  if (!nav) return null;
  return pageEntries(context, source.declaredPath, findAll(nav, 'a').map((a) => [attr(a, 'href'), visibleText([a]) || attr(a, 'title')?.trim() || '']));
}

/** EPUB 2: the NCX's <pageList> of <pageTarget>s. */
function readNcxPageList(context: TocContext, spineToc: string | undefined): ParsedTocEntry[] {
  const source = tocDocument(context, ncxItemOf(context, spineToc, false));
  const pageList = source ? findFirst(parseXml(source.text), 'pagelist') : null;
  if (!source || !pageList) return [];
  return pageEntries(
    context,
    source.declaredPath,
    findAll(pageList, 'pagetarget').map((target) => {
      const labelElement = childElements(target, 'navlabel')[0];
      const text = labelElement && findFirst(labelElement, 'text');
      const content = childElements(target, 'content')[0];
      return [content ? attr(content, 'src') : undefined, (text ? textOf(text) : '') || attr(target, 'value') || ''];
    }),
  );
}

function pageEntries(context: TocContext, from: string, entries: [string | undefined, string][]): ParsedTocEntry[] {
  const pages: ParsedTocEntry[] = [];
  for (const [href, label] of entries.slice(0, MAX_PAGE_LIST)) {
    const resolved = href && !isAbsoluteUrl(href) ? resolveHref(from, href) : null;
    const item = resolved ? context.byPath.get(resolved.path) : undefined;
    const chapter = item ? context.chapterOf.get(item.path) : undefined;
    if (resolved && chapter && label.trim()) pages.push({ label: label.trim().slice(0, 40), fullPath: chapter, fragment: resolved.fragment, depth: 0 });
  }
  return pages;
}

interface TocContext {
  items: ManifestItem[];
  byId: Map<string, ManifestItem>;
  byPath: Map<string, ManifestItem>;
  files: Map<string, Uint8Array>;
  /** A manifest item's path -> the chapter that shows it (its first place in the spine). */
  chapterOf: Map<string, string>;
  warn: Warn;
}

/** A TOC entry if `href` (found in the file at `from`) leads to a chapter; otherwise a warning. */
function tocEntry(context: TocContext, from: string, href: string, label: string, depth: number): ParsedTocEntry | null {
  const resolved = isAbsoluteUrl(href) ? null : resolveHref(from, href);
  const item = resolved ? context.byPath.get(resolved.path) : undefined;
  const chapter = item ? context.chapterOf.get(item.path) : undefined;
  if (!resolved || !chapter) {
    context.warn(`the table of contents links "${label}" to ${href}, which is not a chapter; entry skipped`);
    return null;
  }
  return { label, fullPath: chapter, fragment: resolved.fragment, depth };
}

function tocDocument(context: TocContext, item: ManifestItem | undefined): { text: string; declaredPath: string } | null {
  const bytes = item?.zipPath ? context.files.get(item.zipPath) : undefined;
  return item && bytes ? { text: readText(bytes, item.path, context.warn), declaredPath: item.declaredPath } : null;
}

/** EPUB 3: the <nav epub:type="toc"> of the manifest item with properties="nav"; nested lists give the depth. */
function readNavToc(context: TocContext): ParsedTocEntry[] | null {
  const navItem = context.items.find((item) => item.properties.has('nav'));
  const source = tocDocument(context, navItem);
  if (!source) return null;
  const navs = findAll(parseHtml(source.text), 'nav');
  let nav = navs.find((element) => (attr(element, 'epub:type') ?? '').split(/\s+/).includes('toc'));
  if (!nav && navs[0]) {
    context.warn('the navigation document has no <nav epub:type="toc">; its first <nav> is used');
    nav = navs[0];
  }
  const list = nav ? childElements(nav).find((element) => element.name === 'ol' || element.name === 'ul') ?? findFirst(nav, 'ol') : null;
  if (!list) {
    context.warn('the navigation document has no table of contents list');
    return null;
  }
  const entries: ParsedTocEntry[] = [];
  const walk = (ol: DomElement, depth: number): void => {
    for (const li of childElements(ol, 'li')) {
      const children = childElements(li);
      const link = children.find((element) => element.name === 'a' || element.name === 'span');
      const sublist = children.find((element) => element.name === 'ol' || element.name === 'ul');
      // A heading without a link (<span>) leads to its first child's target.
      const href = (link && attr(link, 'href')) ?? (sublist && findAll(sublist, 'a').map((a) => attr(a, 'href')).find(Boolean));
      // An entry that is only an image is named by the image's alt text, else the link's title (EPUB 3.3 §5.4.2.3).
      const alt = link ? findAll(link, 'img').map((img) => attr(img, 'alt')?.trim() ?? '').filter(Boolean).join(' ') : '';
      const label = link ? visibleText([link]) || alt || attr(link, 'title')?.trim() || '' : '';
      if (href && label) {
        const entry = tocEntry(context, source.declaredPath, href, label, depth);
        if (entry) entries.push(entry);
      }
      if (sublist) walk(sublist, depth + 1);
    }
  };
  walk(list, 1);
  return entries.length > 0 ? entries : null;
}

/** EPUB 2: the NCX named by <spine toc>, else the manifest's NCX; nested navPoints give the depth. */
/** The NCX: the item <spine toc> names, else the manifest's NCX. `warn` says when the spine names a missing item. */
function ncxItemOf(context: TocContext, spineToc: string | undefined, warn: boolean): ManifestItem | undefined {
  const named = spineToc ? context.byId.get(spineToc.trim()) : undefined;
  if (warn && spineToc && !named) context.warn(`the spine's toc attribute names "${spineToc}", which is not in the manifest`);
  return named ?? context.items.find((item) => item.mediaType === NCX_MEDIA_TYPE || item.path.toLowerCase().endsWith('.ncx'));
}

function readNcxToc(context: TocContext, spineToc: string | undefined): ParsedTocEntry[] | null {
  const source = tocDocument(context, ncxItemOf(context, spineToc, true));
  if (!source) return null;
  const navMap = findFirst(parseXml(source.text), 'navmap');
  if (!navMap) {
    context.warn('the NCX has no navMap');
    return null;
  }
  const entries: ParsedTocEntry[] = [];
  const walk = (parent: DomElement, depth: number): void => {
    for (const point of childElements(parent, 'navpoint')) {
      const labelElement = childElements(point, 'navlabel')[0];
      const textElement = labelElement && findFirst(labelElement, 'text');
      const label = textElement ? textOf(textElement) : '';
      const content = childElements(point, 'content')[0];
      const src = content ? attr(content, 'src') : undefined;
      if (src && label) {
        const entry = tocEntry(context, source.declaredPath, src, label, depth);
        if (entry) entries.push(entry);
      }
      walk(point, depth + 1);
    }
  };
  walk(navMap, 1);
  return entries.length > 0 ? entries : null;
}

function tocFromSpine(chapters: ParsedChapter[]): ParsedTocEntry[] {
  const linear = chapters.filter((chapter) => chapter.linear);
  return (linear.length > 0 ? linear : chapters).map((chapter) => ({
    label: chapter.label,
    fullPath: chapter.fullPath,
    fragment: null,
    depth: 1,
  }));
}

/**
 * EPUB 3 properties="cover-image"; EPUB 2 <meta name="cover" content="id">; an image whose id or file name says
 * "cover"; the first image of the first chapter.
 */
function findCover(
  items: ManifestItem[],
  byId: Map<string, ManifestItem>,
  byPath: Map<string, ManifestItem>,
  coverRef: string | null,
  firstChapter: ChapterFacts | undefined,
  opfPath: string,
  files: Map<string, Uint8Array>,
  warn: Warn,
): ParsedTitle['cover'] {
  const isImage = (item: ManifestItem): boolean => item.zipPath !== null && item.mediaType.startsWith('image/');

  let cover = items.find((item) => item.properties.has('cover-image') && isImage(item));
  if (!cover && coverRef) {
    const named = byId.get(coverRef) ?? byPath.get(resolveHref(opfPath, coverRef)?.path ?? '');
    if (named && isImage(named)) cover = named;
    else if (named?.zipPath) warn(`the cover <meta> names ${named.href}, which is not an image`);
    else if (named) warn(`the cover <meta> names ${named.href}, which is missing from the zip`);
    else warn(`the cover <meta> names "${coverRef}", which is not in the manifest`);
  }
  cover ??= items.find(
    (item) => isImage(item) && (item.id?.toLowerCase().includes('cover') || item.path.toLowerCase().includes('cover')),
  );
  if (!cover && firstChapter?.firstImage) {
    const resolved = resolveHref(firstChapter.declaredPath, firstChapter.firstImage);
    const candidate = resolved ? byPath.get(resolved.path) : undefined;
    if (candidate && isImage(candidate)) cover = candidate;
  }
  const data = cover?.zipPath ? files.get(cover.zipPath) : undefined;
  return cover && data ? { fullPath: cover.path, mediaType: cover.mediaType, data } : null;
}

/** Files the manifest does not list are not part of the publication; say which were left behind. */
function reportUnlisted(zip: ZipArchive, opfPath: string, items: ManifestItem[], warn: Warn): void {
  const listed = new Set(items.map((item) => item.zipPath));
  const unlisted = zip.paths.filter(
    (path) => path !== 'mimetype' && path !== opfPath && !path.startsWith('META-INF/') && !listed.has(path),
  );
  if (unlisted.length === 0) return;
  const shown = unlisted.slice(0, 5).join(', ');
  const more = unlisted.length > 5 ? ` and ${unlisted.length - 5} more` : '';
  warn(`${unlisted.length} file(s) in the zip are not in the manifest and were not imported: ${shown}${more}`);
}
