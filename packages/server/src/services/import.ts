/**
 * Importing EPUB and PDF files into the catalog. A file imports whole or not at all: it is parsed and rendered
 * in memory, its resources are written to a staging folder, and only when the database transaction commits do
 * the rows become visible; any failure removes what was staged. A book that breaks EPUB rules but can be read
 * imports with warnings.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { authorSortKey, type ImportReport, paths, slugify, titleSortKey, workKey } from '@lectern/core';
import type { Flag } from '../db/schema.ts';
import { parseEpub } from '../ingest/epub.ts';
import { parsePdf } from '../ingest/pdf.ts';
import { renderChapter } from '../ingest/render.ts';
import { makePdfSample, openingPart } from '../ingest/sample.ts';
import { IngestError, type ParsedTitle } from '../ingest/types.ts';
import type { CatalogRepository, NewTitleBundle } from '../repositories/catalog.ts';
import type { ContentStore } from '../storage/content-store.ts';
import { sha256 } from './tokens.ts';

export interface ImportOptions {
  /** topic slugs (or "Name" strings) to attach besides the book's own subjects */
  topics?: string[];
  /** where the file came from, kept for operators */
  origin?: string;
  allowScripts?: boolean;
}

const MAX_SUBJECT_TOPICS = 3;

export class ImportService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly store: ContentStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Imports every .epub and .pdf among the given files and folders (folders searched recursively). */
  async importPaths(inputs: string[], options: ImportOptions = {}): Promise<ImportReport> {
    const report: ImportReport = { imported: [], failed: [] };
    for (const file of await expandInputs(inputs, report)) {
      try {
        const data = new Uint8Array(await fs.readFile(file));
        const result = await this.importBytes(data, path.basename(file), options);
        report.imported.push(result);
      } catch (err) {
        report.failed.push({ file, reason: reasonOf(err) });
      }
    }
    return report;
  }

  async importBytes(data: Uint8Array, fileName: string, options: ImportOptions = {}): Promise<ImportReport['imported'][number]> {
    const fileHash = sha256(data);
    const existing = await this.catalog.findTitleByFileHash(fileHash);
    if (existing) throw new IngestError(`already in the library as "${existing.title}" (book id ${existing.book_id})`);

    const parsed = await parseFile(data, fileName);
    const bookId = await this.uniqueBookId(parsed, fileHash);
    const titleSafe = slugify(parsed.title);
    const allowScripts = options.allowScripts ?? false;

    const staging = await this.store.beginStaging();
    let committedFolder: string | null = null;
    try {
      const storagePaths = new Map<string, string>();
      const resources: NewTitleBundle['resources'] = [];
      for (const r of parsed.resources) {
        const name = await staging.write(r.data, path.extname(r.fullPath));
        storagePaths.set(r.fullPath, `${bookId}/${name}`);
        resources.push({ full_path: r.fullPath, media_type: r.mediaType, size: r.data.byteLength, storage_path: `${bookId}/${name}` });
      }
      await addPdfSample(parsed, resources, async (data) => `${bookId}/${await staging.write(data, '.pdf')}`);
      let coverPath: string | null = null;
      if (parsed.cover) {
        coverPath = storagePaths.get(parsed.cover.fullPath) ?? `${bookId}/${await staging.write(parsed.cover.data, path.extname(parsed.cover.fullPath))}`;
      }

      const chapterPaths = new Set(parsed.chapters.map((c) => c.fullPath));
      // A PDF too short to give a part of (one page) has no sample at all.
      const sampleIndex = parsed.source === 'application/pdf' && !resources.some((r) => r.sample_storage_path) ? -1 : parsed.sampleIndex;
      const chapters: NewTitleBundle['chapters'] = parsed.chapters.map((c, index) => {
        const isPdf = c.mediaType === 'application/pdf';
        const rendered = isPdf
          ? { html: '', stylesheets: [], textLength: 0 }
          : renderChapter(c.rawHtml, {
              chapterFullPath: c.fullPath,
              allowScripts,
              chapterUrl: (p, fragment) => paths.reader(titleSafe, bookId, p) + (fragment ? `#${fragment}` : ''),
              resourceUrl: (p) => paths.chapterApi(bookId, p),
              isChapter: (p) => chapterPaths.has(p),
            });
        return {
          full_path: c.fullPath,
          label: c.label,
          item_order: index,
          media_type: c.mediaType,
          content: rendered.html,
          stylesheets: JSON.stringify(rendered.stylesheets),
          text_length: isPdf ? c.textLength : rendered.textLength,
          as_sample: (index === sampleIndex ? 1 : 0) as Flag,
          is_public: 0 as Flag,
          sample_content: isPdf ? null : boundedSample(parsed, rendered),
        };
      });

      await staging.commit(bookId);
      committedFolder = bookId;
      const title = await this.catalog.insertTitle({
        title: {
          book_id: bookId,
          title: parsed.title,
          title_safe: titleSafe,
          description: parsed.description,
          content_format: parsed.source === 'application/pdf' ? 'document' : 'book',
          source: parsed.source,
          language: parsed.language,
          issued: parsed.issued,
          identifier: parsed.identifier,
          cover_path: coverPath,
          cover_media_type: parsed.cover?.mediaType ?? null,
          allow_scripts: allowScripts ? 1 : 0,
          is_system_book: 0,
          page_count: parsed.pageCount,
          file_sha256: fileHash,
          origin: options.origin ?? fileName,
          created_at: this.now().toISOString(),
          sort_title: titleSortKey(parsed.title),
          sort_author: authorSortKey(parsed.authors),
          work_key: workKey(parsed.title, parsed.authors),
        },
        work: { isbn: isbnOf(parsed.identifier) },
        authors: dedupe(parsed.authors),
        publishers: dedupeBySlug(parsed.publishers.map((name) => ({ name, slug: slugify(name) }))),
        topics: dedupeBySlug([
          ...(options.topics ?? []).map(topicFromOption),
          ...parsed.subjects.slice(0, MAX_SUBJECT_TOPICS).map((name) => ({ name: name.slice(0, 60), slug: slugify(name) })),
        ]),
        chapters,
        resources,
        toc: parsed.toc.map((t, position) => ({ position, depth: t.depth, label: t.label, full_path: t.fullPath, fragment: t.fragment })),
      });
      return { book_id: title.book_id, title: title.title, chapters: chapters.length, warnings: parsed.warnings };
    } catch (err) {
      if (committedFolder) await fs.rm(this.store.resolve(committedFolder), { recursive: true, force: true });
      else await staging.abort();
      throw err;
    }
  }

  /** ISBNs become the book id as they are; other identifiers a short stable hash, so ids stay URL-safe. */
  private async uniqueBookId(parsed: ParsedTitle, fileHash: string): Promise<string> {
    const isbn = isbnOf(parsed.identifier);
    const base = isbn ?? sha256(parsed.identifier ? `id:${parsed.identifier}` : `file:${fileHash}`).slice(0, 12);
    if (!(await this.catalog.findTitleByBookId(base))) return base;
    return `${base}-${fileHash.slice(0, 6)}`;
  }
}

function isbnOf(identifier: string | null): string | null {
  return identifier?.replace(/[-\s]/g, '').match(/(?:^|[^0-9])(97[89][0-9]{10}|[0-9]{9}[0-9X])(?:$|[^0-9])/i)?.[1] ?? null;
}

/**
 * A one-chapter book is never free in full: its only chapter keeps its opening part as the sample that visitors
 * get (docs/decisions.md "Bounded samples").
 */
function boundedSample(parsed: ParsedTitle, rendered: { html: string; textLength: number }): string | null {
  return parsed.chapters.length === 1 ? openingPart(rendered.html, rendered.textLength) : null;
}

/** A PDF is never free in full: its first pages, as a small PDF beside it, are what visitors get. */
async function addPdfSample(
  parsed: ParsedTitle,
  resources: NewTitleBundle['resources'],
  write: (data: Uint8Array) => Promise<string>,
): Promise<void> {
  if (parsed.source !== 'application/pdf') return;
  for (const resource of resources) {
    if (resource.media_type !== 'application/pdf') continue;
    const data = parsed.resources.find((r) => r.fullPath === resource.full_path)?.data;
    const sample = data ? await makePdfSample(data).catch(() => null) : null;
    if (!sample) continue;
    resource.sample_storage_path = await write(sample.data);
    resource.sample_size = sample.data.byteLength;
  }
}

async function parseFile(data: Uint8Array, fileName: string): Promise<ParsedTitle> {
  const head = Buffer.from(data.subarray(0, 5)).toString('latin1');
  if (head.startsWith('PK')) return parseEpub(data, fileName);
  if (head === '%PDF-') return parsePdf(data, fileName);
  const ext = path.extname(fileName).toLowerCase();
  if (ext === '.epub') return parseEpub(data, fileName);
  if (ext === '.pdf') return parsePdf(data, fileName);
  throw new IngestError('unsupported file type: expected an EPUB or a PDF');
}

async function expandInputs(inputs: string[], report: ImportReport): Promise<string[]> {
  const files: string[] = [];
  for (const input of inputs) {
    const stat = await fs.stat(input).catch(() => null);
    if (!stat) {
      report.failed.push({ file: input, reason: 'no such file or folder' });
    } else if (stat.isDirectory()) {
      const entries = await fs.readdir(input, { recursive: true, withFileTypes: true });
      for (const e of entries) {
        if (e.isFile() && /\.(epub|pdf)$/i.test(e.name)) files.push(path.join(e.parentPath, e.name));
      }
    } else {
      files.push(input);
    }
  }
  return files.sort();
}

function topicFromOption(value: string): { name: string; slug: string } {
  const slug = slugify(value);
  const name = value.includes(' ') || /[A-Z]/.test(value) ? value : value.split(/[-_]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
  return { name, slug };
}

const dedupe = (items: string[]) => [...new Set(items.map((s) => s.trim()).filter(Boolean))];
function dedupeBySlug<T extends { slug: string }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((i) => i.slug !== 'untitled' && !seen.has(i.slug) && seen.add(i.slug));
}

export function reasonOf(err: unknown): string {
  if (err instanceof IngestError) return err.message;
  if (err instanceof Error) return `import failed: ${err.message}`;
  return 'import failed';
}
