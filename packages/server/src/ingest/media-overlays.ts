/**
 * EPUB Media Overlays 3.3 (docs/decisions.md "Read aloud"): the SMIL document a spine item names in its manifest
 * `media-overlay` attribute, reduced to what the reader plays: for each chapter, the phrases in order, each a
 * fragment of the chapter (`<text src="chapter.xhtml#id">`) and a clip of one of the book's audio files
 * (`<audio src clipBegin clipEnd>`), with the structure around it that a listener may skip (page numbers, notes)
 * or escape (a table, a sidebar).
 *
 * A SMIL file is hostile input like every other file of a book: it is read with the same XML parser as the package
 * (htmlparser2: no DTDs, no external entities), only when it is a manifest item of the book and at most
 * MAX_SMIL_BYTES long; nesting, phrases per chapter and per book are bounded; audio must be an audio item of the
 * book's own manifest (a path that climbs above the root is clamped to it, as every other href; `javascript:`,
 * `http:` and `data:` are not paths of the book and are dropped); a text reference must name the chapter the
 * overlay belongs to and a plain fragment id that is an id of that chapter (a phrase whose element the chapter lacks
 * could never be shown; when none is left the chapter has no overlay and the browser's voice reads it). What is
 * dropped is said in the import's warnings.
 */
import type { MediaOverlay } from '@lectern/core';
import { DomUtils } from 'htmlparser2';
import { attr, childElements, decodeText, findAll, findFirst, parseHtml, parseXml, type DomElement } from './markup.ts';
import { isAbsoluteUrl, resolveHref } from './paths.ts';

/** A SMIL document longer than this is not read (a whole novel's overlay is a few hundred kilobytes). */
export const MAX_SMIL_BYTES = 4 * 1024 * 1024;
/** Phrases kept of one chapter's overlay, and of the whole book. */
export const MAX_CLIPS_PER_CHAPTER = 20_000;
export const MAX_CLIPS_PER_BOOK = 200_000;
/** `<seq>` nesting deeper than this is not followed. */
export const MAX_SEQ_DEPTH = 32;
/** A clip time past a day is not a clip of a book's narration. */
const MAX_SECONDS = 24 * 3600;
/** Class names kept from `media:active-class` / `media:playback-active-class`. */
const CLASS_NAME = /^-?[A-Za-z_][A-Za-z0-9_-]{0,99}$/;
/** Fragment ids the reader can find with getElementById; EPUB CFIs and XPointers are not supported. */
const FRAGMENT = /^[^\s()<>"'`]{1,200}$/;

/**
 * EPUB Media Overlays 3.3 §4.2 (skippability): structures a listener may choose not to hear, and §4.3
 * (escapability): structures a listener may leave to the phrase after them.
 */
export const SKIPPABLE = new Set(['sidebar', 'practice', 'marginalia', 'annotation', 'help', 'note', 'footnote', 'rearnote', 'table', 'table-row', 'table-cell', 'list', 'list-item', 'pagebreak']);
export const ESCAPABLE = new Set(['table', 'sidebar', 'bibliography', 'toc', 'loi', 'appendix', 'landmarks', 'lot', 'index', 'colophon', 'epigraph', 'conclusion', 'afterword', 'warning', 'epilogue', 'foreword', 'introduction', 'prologue', 'preface', 'preamble', 'notice', 'errata', 'copyright-page', 'acknowledgments', 'other-credits', 'titlepage', 'imprimatur', 'contributors', 'halftitlepage', 'dedication', 'help', 'annotation', 'marginalia', 'practice', 'note', 'footnote', 'rearnote', 'footnotes', 'rearnotes', 'bridgehead', 'page-list', 'list', 'list-item', 'glossary', 'table-row', 'table-cell', 'figure', 'aside']);

/** A part of a structure, and the structure it belongs to (escaping a part leaves the whole). */
const PART_OF: Record<string, string> = { 'table-row': 'table', 'table-cell': 'table', 'list-item': 'list' };

/** One phrase: the element of the chapter it highlights and the clip of audio that speaks it. */
export interface OverlayClip {
  fragment: string;
  /** Package path of the audio file (a resource of the title). */
  audio: string;
  /** Seconds. */
  begin: number;
  /** Seconds; null: to the end of the file. */
  end: number | null;
  /** The skippable structure it is part of (pagebreak, note, …), if any. */
  skippable?: string;
  /** Index of the first phrase after the escapable structure it is part of, if any (the chapter's phrase count: past
   * its last phrase, the end of the chapter). */
  escapeTo?: number;
  /** That structure's epub:type (table, list, figure, note, …), for the reader to name it. */
  escapeFrom?: string;
}

export interface ChapterOverlay {
  clips: OverlayClip[];
  /** The book's `media:active-class` and `media:playback-active-class`, when given and plain class names. */
  activeClass: string | null;
  playbackActiveClass: string | null;
}

/** What the importer knows of a manifest item (epub.ts ManifestItem, the fields read here). */
export interface OverlayManifestItem {
  path: string;
  declaredPath: string;
  zipPath: string | null;
  mediaType: string;
}

export interface OverlayInput {
  pkg: DomElement;
  opfPath: string;
  byId: Map<string, OverlayManifestItem>;
  byPath: Map<string, OverlayManifestItem>;
  files: Map<string, Uint8Array>;
  /** Each chapter's path, the declared path of the content document it shows, and that document's ids (asked only
   * of chapters with an overlay; null: not checked). */
  chapters: { fullPath: string; declaredPath: string; ids?: () => ReadonlySet<string> | null }[];
  warn: (message: string) => void;
}

/** The overlay of each chapter that has one, by chapter path. */
export function readMediaOverlays(input: OverlayInput): Map<string, ChapterOverlay> {
  const { pkg, opfPath, byId, byPath, files, warn } = input;
  const out = new Map<string, ChapterOverlay>();
  const manifest = findFirst(pkg, 'manifest');
  if (!manifest) return out;
  // The SMIL each content document names, by the content document's declared path.
  const smilOf = new Map<string, OverlayManifestItem>();
  for (const element of findAll(manifest, 'item')) {
    const overlayId = attr(element, 'media-overlay')?.trim();
    const href = attr(element, 'href')?.trim();
    if (!overlayId || !href || isAbsoluteUrl(href)) continue;
    const resolved = resolveHref(opfPath, href);
    const smil = byId.get(overlayId);
    if (!resolved) continue;
    if (!smil) {
      warn(`manifest item ${href} names the media overlay "${overlayId}", which is not in the manifest`);
      continue;
    }
    if (smil.mediaType !== 'application/smil+xml') warn(`the media overlay ${smil.path} is declared as ${smil.mediaType}, not application/smil+xml; read as SMIL`);
    smilOf.set(resolved.path, smil);
  }
  if (smilOf.size === 0) return out;

  const { activeClass, playbackActiveClass } = overlayClasses(pkg, warn);
  let total = 0;
  for (const chapter of input.chapters) {
    const smil = smilOf.get(chapter.declaredPath);
    if (!smil) continue;
    const bytes = smil.zipPath ? files.get(smil.zipPath) : undefined;
    if (!bytes) {
      warn(`the media overlay ${smil.path} is missing from the zip`);
      continue;
    }
    if (bytes.byteLength > MAX_SMIL_BYTES) {
      warn(`the media overlay ${smil.path} is ${Math.ceil(bytes.byteLength / 1024)} KB, more than the ${MAX_SMIL_BYTES / 1024 / 1024} MB read; left out`);
      continue;
    }
    if (total >= MAX_CLIPS_PER_BOOK) {
      warn(`the book's media overlays have more than ${MAX_CLIPS_PER_BOOK} phrases; the rest are left out`);
      break;
    }
    const chapterItem = byPath.get(chapter.declaredPath);
    const ids = chapter.ids?.() ?? null;
    const clips = readSmil(decodeText(bytes).text, smil, chapterItem ?? null, ids, byPath, Math.min(MAX_CLIPS_PER_CHAPTER, MAX_CLIPS_PER_BOOK - total), warn);
    if (clips.length === 0) continue;
    total += clips.length;
    out.set(chapter.fullPath, { clips, activeClass, playbackActiveClass });
  }
  return out;
}

function overlayClasses(pkg: DomElement, warn: (message: string) => void): { activeClass: string | null; playbackActiveClass: string | null } {
  const metadata = findFirst(pkg, 'metadata');
  const metas = metadata ? findAll(metadata, 'meta') : [];
  const read = (property: string): string | null => {
    const meta = metas.find((m) => attr(m, 'property')?.trim() === property && !attr(m, 'refines'));
    const value = meta ? (meta.children.map((c) => ('data' in c ? String(c.data) : '')).join('').trim()) : '';
    if (!value) return null;
    if (CLASS_NAME.test(value)) return value;
    warn(`${property} "${value.slice(0, 40)}" is not a class name; ignored`);
    return null;
  };
  return { activeClass: read('media:active-class'), playbackActiveClass: read('media:playback-active-class') };
}

/** The ids of an (X)HTML document's elements, as the reader's getElementById finds them. */
export function documentIds(html: string): Set<string> {
  const ids = new Set<string>();
  for (const element of DomUtils.findAll((e) => e.attribs.id !== undefined, parseHtml(html).children)) ids.add(element.attribs.id!);
  return ids;
}

/** The epub:type values of an element, lower-cased. */
function typesOf(element: DomElement): string[] {
  return (attr(element, 'type') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/**
 * The escapable structure an element opens, given the ones open around it (outermost first): the first of its
 * epub:type values that is escapable, except a part of a table or list (a row, a cell, an item) inside the table or
 * list it belongs to — escaping a cell leaves the table, not the cell; a row marked on its own is escapable itself.
 */
function escapableType(types: string[], open: readonly string[]): string | undefined {
  return types.find((t) => {
    if (!ESCAPABLE.has(t)) return false;
    const whole = PART_OF[t];
    return !whole || !open.includes(whole);
  });
}

function readSmil(
  text: string,
  smil: OverlayManifestItem,
  chapterItem: OverlayManifestItem | null,
  ids: ReadonlySet<string> | null,
  byPath: Map<string, OverlayManifestItem>,
  limit: number,
  warn: (message: string) => void,
): OverlayClip[] {
  const doc = parseXml(text);
  const root = childElements(doc).find((e) => e.name.toLowerCase().replace(/^.*:/, '') === 'smil') ?? null;
  // the body is a child of <smil>: no deep search through a hostile <head>
  const body = root ? (childElements(root, 'body')[0] ?? null) : null;
  if (!body) {
    warn(`the media overlay ${smil.path} has no SMIL <body>; left out`);
    return [];
  }
  const clips: OverlayClip[] = [];
  const dropped = new Map<string, number>();
  const drop = (why: string) => dropped.set(why, (dropped.get(why) ?? 0) + 1);
  /** Phrases whose text is a plain fragment id of the chapter, and those of them the chapter has no element for. */
  const targets = { named: 0, missing: 0 };
  let truncated = false;
  let tooDeep = false;
  /** The escapable structures open around the phrase being read, outermost first (their escapable type). */
  const open: string[] = [];

  const walk = (parent: DomElement, depth: number, skippable: string | undefined): void => {
    for (const child of childElements(parent)) {
      if (clips.length >= limit) {
        truncated = true;
        return;
      }
      const name = child.name.toLowerCase().replace(/^.*:/, '');
      const types = typesOf(child);
      const skip = skippable ?? types.find((t) => SKIPPABLE.has(t));
      const escapable = escapableType(types, open);
      if (name === 'seq') {
        if (depth >= MAX_SEQ_DEPTH) {
          tooDeep = true;
          continue;
        }
        const start = clips.length;
        if (escapable) open.push(escapable);
        walk(child, depth + 1, skip);
        if (escapable) {
          open.pop();
          // Every phrase of the structure escapes to the one after it, unless a structure nested in it (closed
          // before this one) already took it: escape leaves the innermost structure, and from the phrase after it
          // (still inside this one) escape leaves this one.
          for (let i = start; i < clips.length; i++) {
            const clip = clips[i]!;
            if (clip.escapeTo !== undefined) continue;
            clip.escapeTo = clips.length;
            clip.escapeFrom = escapable;
          }
        }
      } else if (name === 'par') {
        const clip = parClip(child, smil, chapterItem, ids, byPath, drop, targets);
        if (!clip) continue;
        if (skip) clip.skippable = skip;
        clips.push(clip);
        // a structure of one phrase (a <par epub:type="figure">): escape goes on to the next phrase
        if (escapable) {
          clip.escapeTo = clips.length;
          clip.escapeFrom = escapable;
        }
      }
    }
  };
  walk(body, 0, typesOf(body).find((t) => SKIPPABLE.has(t)));
  // An escape target past the last phrase means "the end of the chapter": the player goes on to the next one.
  for (const [why, count] of dropped) warn(`the media overlay ${smil.path}: ${count} phrase(s) ${why}; left out`);
  if (targets.missing > 0) {
    // e.g. IDPF's Moby-Dick sample as stored: the SMIL names c001s0000…, the chapter has c01w00001… (real-books bug 6)
    const left = clips.length === 0 ? 'the chapter has no media overlay (the browser reads it aloud)' : 'those phrases are left out';
    warn(`the media overlay ${smil.path}: ${targets.missing} of ${targets.named} text targets are not in ${chapterItem?.path ?? 'its chapter'}; ${left}`);
  }
  if (tooDeep) warn(`the media overlay ${smil.path} nests <seq> more than ${MAX_SEQ_DEPTH} deep; the deeper parts are left out`);
  if (truncated) warn(`the media overlay ${smil.path} has more than ${limit} phrases; the rest are left out`);
  return clips;
}

function parClip(
  par: DomElement,
  smil: OverlayManifestItem,
  chapterItem: OverlayManifestItem | null,
  ids: ReadonlySet<string> | null,
  byPath: Map<string, OverlayManifestItem>,
  drop: (why: string) => void,
  targets: { named: number; missing: number },
): OverlayClip | null {
  const text = childElements(par, 'text')[0];
  const audio = childElements(par, 'audio')[0];
  if (!text || !audio) {
    drop(text ? 'have no <audio>' : 'have no <text>');
    return null;
  }
  const textSrc = attr(text, 'src')?.trim() ?? '';
  const target = textSrc && !isAbsoluteUrl(textSrc) ? resolveHref(smil.declaredPath, textSrc) : null;
  if (!target || !chapterItem || byPath.get(target.path) !== chapterItem) {
    drop('point at another document than their chapter');
    return null;
  }
  if (!target.fragment || !FRAGMENT.test(target.fragment)) {
    drop('point at no plain fragment id of the chapter');
    return null;
  }
  targets.named++;
  if (ids && !ids.has(target.fragment)) {
    targets.missing++;
    return null;
  }
  const audioSrc = attr(audio, 'src')?.trim() ?? '';
  const audioPath = audioSrc && !isAbsoluteUrl(audioSrc) ? resolveHref(smil.declaredPath, audioSrc)?.path : undefined;
  const audioItem = audioPath ? byPath.get(audioPath) : undefined;
  if (!audioItem || !audioItem.zipPath || !audioItem.mediaType.toLowerCase().startsWith('audio/')) {
    drop("play what is not an audio file of the book's manifest");
    return null;
  }
  const begin = clockValue(attr(audio, 'clipbegin') ?? attr(audio, 'clipBegin')) ?? 0;
  const rawEnd = attr(audio, 'clipend') ?? attr(audio, 'clipEnd');
  const end = rawEnd === undefined ? null : (clockValue(rawEnd) ?? Number.NaN);
  if (Number.isNaN(begin) || (rawEnd !== undefined && (end === null || Number.isNaN(end) || end <= begin))) {
    drop('have clip times that are not SMIL clock values in order');
    return null;
  }
  return { fragment: target.fragment, audio: audioItem.path, begin, end };
}

/**
 * A SMIL 3.0 clock value in seconds: "01:02:03.5" (full), "02:03.5" (partial), or a timecount "3.5s", "1500ms",
 * "2min", "1h", "7" (seconds). undefined for none; NaN for anything else (or past a day).
 */
export function clockValue(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim();
  let seconds = Number.NaN;
  const full = /^(\d+):([0-5]\d):([0-5]\d(?:\.\d+)?)$/.exec(value);
  const partial = /^([0-5]?\d):([0-5]\d(?:\.\d+)?)$/.exec(value);
  const count = /^(\d+(?:\.\d+)?|\.\d+)(h|min|s|ms)?$/.exec(value);
  if (full) seconds = Number(full[1]) * 3600 + Number(full[2]) * 60 + Number(full[3]);
  else if (partial) seconds = Number(partial[1]) * 60 + Number(partial[2]);
  else if (count) seconds = Number(count[1]) * ({ h: 3600, min: 60, s: 1, ms: 0.001 }[count[2] ?? 's'] ?? 1);
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_SECONDS ? Math.round(seconds * 1000) / 1000 : Number.NaN;
}

/**
 * The stored form (chapters.media_overlay, migration 0023): compact JSON, the audio paths listed once.
 * `{"v":1,"active":…,"playing":…,"audio":["audio/c1.mp3"],"clips":[["p1",0,0,1.25],["pg2",0,1.25,1.9,"pagebreak"],…]}`
 * A clip is [fragment, audio index, begin, end|null] and, when set, [skippable|null, escapeTo, escapeFrom] (a row stored
 * before escapeFrom was kept has six fields).
 */
export function storedOverlay(overlay: ChapterOverlay): string {
  const audio: string[] = [];
  const index = new Map<string, number>();
  const clips = overlay.clips.map((c) => {
    let i = index.get(c.audio);
    if (i === undefined) {
      i = audio.push(c.audio) - 1;
      index.set(c.audio, i);
    }
    const row: (string | number | null)[] = [c.fragment, i, c.begin, c.end];
    if (c.skippable || c.escapeTo !== undefined) row.push(c.skippable ?? null);
    if (c.escapeTo !== undefined) row.push(c.escapeTo, c.escapeFrom ?? null);
    return row;
  });
  return JSON.stringify({ v: 1, active: overlay.activeClass, playing: overlay.playbackActiveClass, audio, clips });
}

/**
 * The stored form as the reader gets it (`media_overlay`, ours, on the chapter and the archive item), the audio paths
 * as their served addresses. null for a value that is not the stored form (never thrown: a chapter still reads).
 */
export function readerOverlay(stored: string | null | undefined, audioUrl: (fullPath: string) => string): MediaOverlay | null {
  if (!stored) return null;
  try {
    const value = JSON.parse(stored) as { v?: number; active?: string | null; playing?: string | null; audio?: unknown; clips?: unknown };
    if (value.v !== 1 || !Array.isArray(value.audio) || !Array.isArray(value.clips)) return null;
    const clips: MediaOverlay['clips'] = [];
    for (const row of value.clips as unknown[][]) {
      const [fragment, audio, begin, end, skippable, escapeTo, escapeFrom] = row;
      if (typeof fragment !== 'string' || typeof audio !== 'number' || typeof begin !== 'number' || (end !== null && typeof end !== 'number')) return null;
      clips.push({ fragment, audio, begin, end, ...(typeof skippable === 'string' ? { skippable } : {}), ...(typeof escapeTo === 'number' ? { escape_to: escapeTo } : {}), ...(typeof escapeTo === 'number' && typeof escapeFrom === 'string' ? { escape_from: escapeFrom } : {}) });
    }
    return {
      active_class: typeof value.active === 'string' ? value.active : null,
      playback_active_class: typeof value.playing === 'string' ? value.playing : null,
      audio: (value.audio as unknown[]).map((p) => audioUrl(String(p))),
      clips,
    };
  } catch {
    return null;
  }
}
