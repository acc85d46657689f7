/**
 * The title printed on a PDF's first page, for PDFs whose document information has none (Debian's FHS has
 * none): pdf.js reads the first page's text, and the largest type on it, top to bottom, is taken as the title.
 * Bounded: one page, a few seconds at most, and any failure just means "no title found".
 */

const TIME_LIMIT_MS = 5_000;
const MAX_TITLE = 200;

interface TextPiece {
  text: string;
  size: number;
  y: number;
}

export async function titleFromFirstPage(data: Uint8Array): Promise<string | null> {
  // Loaded only for the PDFs that need it: pdf.js adds tens of megabytes to the import worker's memory.
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // pdf.js takes ownership of the buffer it is given: hand it a copy.
  const task = getDocument({ data: data.slice(), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 });
  let timer: NodeJS.Timeout | undefined;
  try {
    const read = (async () => {
      const document = await task.promise;
      const page = await document.getPage(1);
      const content = await page.getTextContent();
      const pieces: TextPiece[] = [];
      for (const item of content.items) {
        if (!('str' in item) || !item.str.trim()) continue;
        const [, , c = 0, d = 0, , y = 0] = item.transform as number[];
        pieces.push({ text: item.str.trim(), size: Math.hypot(c, d), y });
      }
      return largestType(pieces);
    })();
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), TIME_LIMIT_MS);
    });
    return await Promise.race([read, timeout]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    void task.destroy().catch(() => {});
  }
}

/** The pieces set in the largest type (within 5%), top to bottom, when that type stands out from the body text. */
function largestType(pieces: TextPiece[]): string | null {
  if (pieces.length === 0) return null;
  const largest = Math.max(...pieces.map((p) => p.size));
  const sizes = pieces.map((p) => p.size).sort((a, b) => a - b);
  const median = sizes[Math.floor((sizes.length - 1) / 2)] ?? largest;
  if (pieces.length > 1 && largest < median * 1.15) return null;
  const title = pieces
    .filter((p) => p.size >= largest * 0.95)
    .sort((a, b) => b.y - a.y)
    .map((p) => p.text)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return title && title.length <= MAX_TITLE ? title : null;
}

/** Pages of text read for search at most, and the time they may take (the worker's own limits still apply). */
const PAGE_TEXT_LIMITS = { pages: 2_000, timeMs: 60_000, charsPerPage: 20_000 };

/**
 * Each page's text, in order, for search (a PDF hit lands on its page). Bounded in pages, characters and time; a
 * PDF pdf.js cannot read gives what was read so far (possibly nothing): search then knows it by its title alone.
 */
export async function pageTexts(data: Uint8Array): Promise<string[]> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = getDocument({ data: data.slice(), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 });
  const out: string[] = [];
  const deadline = Date.now() + PAGE_TEXT_LIMITS.timeMs;
  try {
    const document = await task.promise;
    const pages = Math.min(document.numPages, PAGE_TEXT_LIMITS.pages);
    for (let n = 1; n <= pages && Date.now() < deadline; n++) {
      const page = await document.getPage(n);
      const content = await page.getTextContent();
      const text = content.items
        .map((item) => ('str' in item ? item.str : ''))
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim();
      out.push(text.slice(0, PAGE_TEXT_LIMITS.charsPerPage));
      page.cleanup();
    }
  } catch {
    // what was read stays
  } finally {
    void task.destroy().catch(() => {});
  }
  return out;
}
