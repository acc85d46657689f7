/**
 * Bounded samples: a title that is one chapter (a Gutenberg book packed into one file) or one PDF is never free
 * in full. Visitors who may not read the title get its opening part instead: the first pages of a PDF, made at
 * import as a small PDF of their own, or the first tenth of a one-chapter book's text, cut between blocks.
 * The rule is in docs/decisions.md ("Bounded samples").
 */
import { DomUtils } from 'htmlparser2';
import { parseHtml, visibleText, type DomNode } from './markup.ts';

/** A PDF's sample: the first 10% of its pages, at most 20, at least 1. */
export const PDF_SAMPLE = { share: 0.1, maxPages: 20 } as const;
/** A one-chapter book's sample: the first 10% of its text, at most 20,000 characters. */
export const TEXT_SAMPLE = { share: 0.1, maxChars: 20_000 } as const;

/** Pages of a PDF's sample; 0 when the document is too short to give a part without giving it all. */
export function pdfSamplePages(pageCount: number): number {
  const pages = Math.max(1, Math.min(PDF_SAMPLE.maxPages, Math.floor(pageCount * PDF_SAMPLE.share)));
  return pages < pageCount ? pages : 0;
}

/** The opening pages of a PDF as a new, small PDF (pdf-lib copies the pages; nothing is rendered); null when too short. */
export async function makePdfSample(data: Uint8Array): Promise<{ data: Uint8Array; pageCount: number } | null> {
  // pdf-lib is loaded for PDFs only: it is most of an EPUB import worker's start-up otherwise.
  const { PDFDocument } = await import('pdf-lib');
  const source = await PDFDocument.load(data, { ignoreEncryption: true, updateMetadata: false });
  const pages = pdfSamplePages(source.getPageCount());
  if (pages === 0) return null;
  const sample = await PDFDocument.create({ updateMetadata: false });
  const copied = await sample.copyPages(source, Array.from({ length: pages }, (_, i) => i));
  for (const page of copied) sample.addPage(page);
  const title = safe(() => source.getTitle());
  if (title) sample.setTitle(`${title} (sample)`);
  const author = safe(() => source.getAuthor());
  if (author) sample.setAuthor(author);
  return { data: await sample.save(), pageCount: pages };
}

function safe(read: () => string | undefined): string | undefined {
  try {
    return read()?.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Characters of text a one-chapter book's sample keeps. */
export function textSampleLength(textLength: number): number {
  return Math.max(1, Math.min(TEXT_SAMPLE.maxChars, Math.floor(textLength * TEXT_SAMPLE.share)));
}

/** Elements whose children are blocks: a cut may go inside them. Anything else is kept or dropped whole. */
const CONTAINERS = new Set(['body', 'div', 'section', 'article', 'main', 'header', 'footer', 'aside', 'blockquote', 'ol', 'ul', 'dl', 'figure', 'details']);

/**
 * The opening part of a chapter's sanitised HTML: whole blocks, in order, while their text stays within the
 * sample's length (the block that would pass it, and everything after it, is left out; the first block is always
 * kept so a sample is never empty). Cut with a real parser, so the result is well-formed; the text after the
 * cut is not in it at all.
 */
export function openingPart(html: string, textLength: number): string {
  const limit = textSampleLength(textLength);
  const document = parseHtml(html);
  let kept = 0;
  /** Where the sample stops: this node and all after it go (`from`), or all after it go (`after`). */
  let stop: { node: DomNode; drop: 'from' | 'after' } | null = null;
  const walk = (nodes: readonly DomNode[]): boolean => {
    for (const node of nodes) {
      const length = visibleText([node]).length;
      if (kept + length <= limit || (kept === 0 && !isContainer(node))) {
        kept += length;
        if (kept < limit) continue;
        stop = { node, drop: 'after' };
        return true;
      }
      if (isContainer(node) && walk((node as { children: DomNode[] }).children)) return true;
      stop = { node, drop: 'from' };
      return true;
    }
    return false;
  };
  walk(document.children);
  if (stop) dropFrom((stop as { node: DomNode; drop: 'from' | 'after' }).node, (stop as { drop: 'from' | 'after' }).drop);
  return DomUtils.getOuterHTML(document.children, { encodeEntities: 'utf8' });
}

/** Removes everything after `node` in document order (and `node` itself for 'from'). */
function dropFrom(node: DomNode, drop: 'from' | 'after'): void {
  const removeSiblingsAfter = (first: DomNode): void => {
    let sibling = first.next;
    while (sibling) {
      const next: DomNode | null = sibling.next;
      DomUtils.removeElement(sibling);
      sibling = next;
    }
  };
  removeSiblingsAfter(node);
  for (let parent = node.parent; parent && parent.type !== 'root'; parent = parent.parent) removeSiblingsAfter(parent);
  if (drop === 'from') DomUtils.removeElement(node);
}

function isContainer(node: DomNode): boolean {
  return DomUtils.isTag(node) && CONTAINERS.has(node.name.toLowerCase()) && node.children.some((child) => DomUtils.isTag(child));
}

/** Appended to a bounded sample, so the reader knows why the text stops. */
export const SAMPLE_END_HTML =
  '<aside class="lectern-sample-end" role="note"><p><strong>This is the end of the sample.</strong> Sign in with a subscription to read the whole title.</p></aside>';
