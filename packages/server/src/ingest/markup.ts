/**
 * Text decoding and DOM helpers shared by the EPUB importer and the chapter renderer. Book files are parsed with
 * htmlparser2 (never with regular expressions): package documents as XML, chapters as HTML that also honours
 * XHTML's self-closing tags, because "<a id='p1'/>" is common in XHTML books and would otherwise swallow the
 * rest of the paragraph into a link.
 */
import { DomUtils, Parser, parseDocument } from 'htmlparser2';

export type DomDocument = ReturnType<typeof parseDocument>;
export type DomNode = DomDocument['children'][number];
export type DomElement = Parameters<typeof DomUtils.getAttributeValue>[0];

const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface DecodedText {
  text: string;
  /** The bytes were not valid UTF-8 (nor UTF-16 with a BOM) and were read as Windows-1252. */
  fallback: boolean;
}

/** Decodes a book file: UTF-16 when it starts with a UTF-16 BOM, else UTF-8 (BOM stripped), else Windows-1252. */
export function decodeText(bytes: Uint8Array): DecodedText {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes), fallback: false };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes), fallback: false };
  try {
    return { text: utf8.decode(bytes), fallback: false };
  } catch {
    return { text: decodeWindows1252(bytes), fallback: true };
  }
}

/**
 * Windows-1252's printable characters at 0x80-0x9F (curly quotes, dashes, the euro sign), indexed from 0x80.
 * Written out because Node 20's TextDecoder('windows-1252') decodes these bytes as ISO-8859-1 control codes.
 */
const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(bytes: Uint8Array): string {
  const codes = new Uint16Array(bytes.length);
  bytes.forEach((byte, index) => {
    codes[index] = byte >= 0x80 && byte < 0xa0 ? WINDOWS_1252_HIGH.charCodeAt(byte - 0x80) : byte;
  });
  const chunks: string[] = [];
  for (let start = 0; start < codes.length; start += 8192) {
    chunks.push(String.fromCharCode(...codes.subarray(start, start + 8192)));
  }
  return chunks.join('');
}

export function parseXml(text: string): DomDocument {
  return parseDocument(text, { xmlMode: true });
}

export function parseHtml(text: string): DomDocument {
  return parseDocument(text, { recognizeSelfClosing: true, recognizeCDATA: true });
}

const isElement = DomUtils.isTag;

/** Element name without its namespace prefix, lower-cased: "dc:title" and "opf:meta" become "title" and "meta". */
function localName(element: DomElement): string {
  const name = element.name.toLowerCase();
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** Attribute by local name, so that "opf:role" and "role" both answer to "role". */
export function attr(element: DomElement, name: string): string | undefined {
  const exact = element.attribs[name];
  if (exact !== undefined) return exact;
  for (const [key, value] of Object.entries(element.attribs)) {
    const colon = key.indexOf(':');
    if (colon >= 0 && key.slice(colon + 1).toLowerCase() === name) return value;
  }
  return undefined;
}

export function childElements(node: DomElement | DomDocument, name?: string): DomElement[] {
  return node.children.filter(
    (child): child is DomElement => isElement(child) && (name === undefined || localName(child) === name),
  );
}

export function findFirst(node: DomElement | DomDocument, name: string): DomElement | null {
  return DomUtils.findOne((element) => localName(element) === name, node.children, true);
}

export function findAll(node: DomElement | DomDocument, name: string): DomElement[] {
  return DomUtils.findAll((element) => localName(element) === name, node.children);
}

/** Collapses whitespace runs to one space and trims. */
function normaliseSpace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const INVISIBLE = new Set(['script', 'style', 'template', 'noscript', 'head', 'title']);
const INLINE = new Set([
  'a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'kbd', 'label', 'mark',
  'q', 'rb', 'rp', 'rt', 'ruby', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u',
  'var', 'wbr',
]);

const NOTHING_MORE: ReadonlySet<string> = new Set();

/**
 * The text a reader sees, whitespace-normalised: script, style and head contents left out, and the elements named
 * in `leaveOut` too (search leaves out ruby's readings, `rt` and `rp`, so a word reads as its base text).
 */
export function visibleText(nodes: readonly DomNode[], leaveOut: ReadonlySet<string> = NOTHING_MORE): string {
  const parts: string[] = [];
  const walk = (list: readonly DomNode[]): void => {
    for (const node of list) {
      if (DomUtils.isText(node)) parts.push(node.data);
      else if (isElement(node)) {
        const name = localName(node);
        if (!INVISIBLE.has(name) && !leaveOut.has(name)) walk(node.children);
        // Block boundaries (and <br>) separate words even when the markup has no whitespace between them.
        if (!INLINE.has(name)) parts.push(' ');
      } else if (DomUtils.isCDATA(node)) walk(node.children);
    }
  };
  walk(nodes);
  return normaliseSpace(parts.join(''));
}

/** Plain text of a node, whitespace-normalised. */
export function textOf(node: DomElement): string {
  return normaliseSpace(DomUtils.textContent(node));
}

const XML_ENTITY = /&(?!(?:amp|lt|gt|quot|apos);)([A-Za-z][A-Za-z0-9]*);/;

/**
 * The first reason an XHTML file is not well-formed XML, or null: an element left open (an HTML-style <br> or <p>,
 * a missing end tag) or an entity XML does not define (&nbsp;). Chapters are always read with the HTML parser's
 * recovery; this only says, in the import's warnings, what a strict XML reading system would have refused.
 */
export function xmlProblem(text: string): string | null {
  let problem: string | null = null;
  // htmlparser2 reports a self-closing tag as an implied close too: it is one when it ends where its tag ended.
  let openEnd = -1;
  const parser: Parser = new Parser(
    {
      onopentag(name) {
        openEnd = parser.endIndex;
        // Namespaces in XML: a name holds at most one colon, neither first nor last (pub-xml-names' <p::p>).
        if (!problem && /:.*:|^:|:$/.test(name)) problem = `<${name}> is not a valid XML name`;
      },
      onclosetag(name, isImplied) {
        if (isImplied && !problem && parser.endIndex !== openEnd) problem = `<${name}> is never closed`;
      },
      ontext(data) {
        const entity = problem ? null : XML_ENTITY.exec(data);
        if (entity) problem = `&${entity[1]}; is not an XML entity`;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(text);
  return problem;
}
