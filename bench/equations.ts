/**
 * Equations bench (docs/decisions.md "Reading fidelity: the importer's half"): first paint of a chapter holding 500
 * MathML equations against a plain reflowable twin chapter of the same amount of text, in Chromium at 1280x800. Both
 * books are generated here (a seeded PRNG, so every run reads the same bytes) and imported with the operators' command
 * line into a fresh server:
 *  - "Equations Bench: Mathematics" — two short chapters, then text/ch3.xhtml (manifest properties="mathml"):
 *    prose paragraphs with 500 equations of textbook variety, 300 inline in the paragraphs and 200 display ones
 *    (<math display="block">) between them: fractions (nested, continued), square and nth roots, sub- and
 *    superscripts (msub, msup, msubsup, mmultiscripts), sums, products, integrals and limits with munderover /
 *    munder, accents (mover), matrices and piecewise cases (mtable), stretchy fences, binomials, norms, operators;
 *  - "Equations Bench: Plain Twin" — the same three chapters where every equation is replaced by its own text (the
 *    characters the MathML renders, in a <span> inline and a <div class="equation"> for a display one): the same
 *    amount of text and the same paragraphs, no MathML.
 * Each run opens the book at its first chapter, waits until the reader has prepared the next chapter (the short
 * interlude) in its spare frame, then clicks the contents entry of chapter three and measures the click to the
 * reader's `reader:chapter-painted` mark, as bench/reader.ts and bench/fixed-layout.ts do: the measured chapter is
 * always written and laid out from scratch (never the prepared one), and no preparation runs during it. Math and
 * twin runs alternate in the same browser so both see the same machine, and the first pair is a warm-up. Prints the
 * median and range of each and of the ratio math/twin per round.
 *
 *   npm run build --silent && npx tsx bench/equations.ts        (ROUNDS=7 by default, at least 5)
 *   STEPS=1: each run's reader:* marks after the click; TRACE=file.json (TRACE_JS=1 adds the JavaScript profiler):
 *   a Chrome trace of the last math run; WEB_DIST=dir: against another build of the web app (the server reads it);
 *   MATH_FONT='DejaVu Math TeX Gyre': a third book, the math one whose own stylesheet names that font for <math>
 *   (`math { font-family: "…", math }`), measured in the same rounds: what the math costs when its glyphs need no
 *   font fallback (Chromium's generic `math` family is the default serif on a Linux without a math alias).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { buildZip, CONTAINER_XML, xhtml } from '../packages/server/test/ingest/helpers.ts';
import { CHROMIUM_LAUNCH, importBook, signIn, startFreshServer } from '../scripts/fresh-server.ts';
import { median, summary } from './stats.ts';
import { mulberry32 } from '../packages/server/test/fixtures/prng.ts';

const ROUNDS = Math.max(5, Number(process.env.ROUNDS ?? 7));
const TARGET = 'text/ch3.xhtml';
const EQUATIONS = 500;
const INLINE = 300;
const MATH_TITLE = 'Equations Bench: Mathematics';
const TWIN_TITLE = 'Equations Bench: Plain Twin';
const FONT_TITLE = 'Equations Bench: Mathematics With Its Font';
const MATH_FONT = process.env.MATH_FONT ?? '';
const MATHML = 'http://www.w3.org/1998/Math/MathML';

// ---- the generated books ----

type Rnd = () => number;
const pick = <T,>(rnd: Rnd, xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
const int = (rnd: Rnd, lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

/** A piece of MathML (m) and the text it renders (t), built together so the twin can carry the same characters. */
interface M {
  m: string;
  t: string;
}
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const tok = (tag: string, s: string, attrs = ''): M => ({ m: `<${tag}${attrs}>${esc(s)}</${tag}>`, t: s });
const mi = (s: string, attrs = '') => tok('mi', s, attrs);
const mn = (s: string | number) => tok('mn', String(s));
const mo = (s: string, attrs = '') => tok('mo', s, attrs);
const el = (tag: string, attrs: string, ...kids: M[]): M => ({ m: `<${tag}${attrs}>${kids.map((k) => k.m).join('')}</${tag}>`, t: kids.map((k) => k.t).join('') });
const row = (...kids: M[]) => el('mrow', '', ...kids);
const frac = (a: M, b: M, attrs = '') => el('mfrac', attrs, a, b);
const sqrt = (...kids: M[]) => el('msqrt', '', ...kids);
const root = (a: M, n: M) => el('mroot', '', a, n);
const sup = (a: M, b: M) => el('msup', '', a, b);
const sub = (a: M, b: M) => el('msub', '', a, b);
const subsup = (a: M, b: M, c: M) => el('msubsup', '', a, b, c);
const under = (a: M, b: M) => el('munder', '', a, b);
const underover = (a: M, b: M, c: M) => el('munderover', '', a, b, c);
const over = (a: M, b: M) => el('mover', ' accent="true"', a, b);
const fenced = (open: string, close: string, ...kids: M[]) => row(mo(open, ' fence="true" stretchy="true"'), ...kids, mo(close, ' fence="true" stretchy="true"'));
const table = (rows: M[][], attrs = '') => el('mtable', attrs, ...rows.map((r) => el('mtr', '', ...r.map((c) => el('mtd', '', c)))));
const text = (s: string) => tok('mtext', s);

const LETTERS = ['x', 'y', 'z', 't', 'u', 'v', 'w', 's', 'r'];
const CONSTS = ['a', 'b', 'c', 'k', 'm', 'p', 'q'];
const GREEK = ['α', 'β', 'γ', 'θ', 'λ', 'μ', 'σ', 'φ', 'ω'];
const FUNCS = ['f', 'g', 'h'];

/** Small inline equations, as they sit in a sentence. */
const INLINE_KINDS: ((r: Rnd) => M)[] = [
  (r) => sub(mi(pick(r, LETTERS)), mi(pick(r, ['i', 'j', 'k', 'n']))),
  () => row(sup(mi('a'), mn(2)), mo('+'), sup(mi('b'), mn(2)), mo('='), sup(mi('c'), mn(2))),
  (r) => row(mi(pick(r, GREEK)), mo(pick(r, ['<', '≤', '>', '≥', '≠'])), frac(mn(1), mn(int(r, 2, 9)))),
  (r) => sqrt(mn(int(r, 2, 99))),
  (r) => row(mi(pick(r, FUNCS)), mo('(', ' stretchy="false"'), mi(pick(r, LETTERS)), mo(')', ' stretchy="false"')),
  (r) => row(mi(pick(r, LETTERS)), mo('∈'), mi('ℝ', ' mathvariant="normal"')),
  (r) => subsup(mi(pick(r, LETTERS)), mi('n'), mn(int(r, 2, 4))),
  (r) => row(mi(pick(r, CONSTS)), mo('='), frac(mi(pick(r, LETTERS)), mn(int(r, 2, 12)))),
  () => row(mi('O'), mo('(', ' stretchy="false"'), mi('n'), mi('log'), mo('⁡'), mi('n'), mo(')', ' stretchy="false"')),
  (r) => row(mi('e'), mo('≈'), mn(`2.${int(r, 10, 99)}`)),
  (r) => over(mi(pick(r, ['v', 'u', 'F', 'E'])), mo('→')),
  (r) => row(mo('|'), mi(pick(r, LETTERS)), mo('−'), mi(pick(r, CONSTS)), mo('|'), mo('<'), mi('ε')),
];

/** Display equations: the shapes a calculus, algebra or physics chapter holds. */
const DISPLAY_KINDS: ((r: Rnd) => M)[] = [
  // the quadratic formula
  (r) => {
    const [a, b, c] = [mi(pick(r, CONSTS)), mi(pick(r, ['b', 'p', 'q'])), mi(pick(r, ['c', 'd', 'r']))];
    return row(mi(pick(r, LETTERS)), mo('='), frac(row(mo('−'), b, mo('±'), sqrt(sup(b, mn(2)), mo('−'), mn(4), a, c)), row(mn(2), a)));
  },
  // a finite sum with its closed form
  (r) => {
    const k = mi(pick(r, ['k', 'i', 'j']));
    const p = int(r, 1, 3);
    const rhs = p === 1 ? frac(row(mi('n'), fenced('(', ')', mi('n'), mo('+'), mn(1))), mn(2)) : p === 2 ? frac(row(mi('n'), fenced('(', ')', mi('n'), mo('+'), mn(1)), fenced('(', ')', mn(2), mi('n'), mo('+'), mn(1))), mn(6)) : sup(fenced('(', ')', frac(row(mi('n'), fenced('(', ')', mi('n'), mo('+'), mn(1))), mn(2))), mn(2));
    return row(underover(mo('∑'), row(k, mo('='), mn(1)), mi('n')), sup(k, mn(p)), mo('='), rhs);
  },
  // a definite integral
  (r) => {
    const f = mi(pick(r, FUNCS));
    const x = mi(pick(r, LETTERS));
    return row(subsup(mo('∫'), mi(pick(r, ['a', '0'])), mi(pick(r, ['b', '1', '∞']))), f, mo('(', ' stretchy="false"'), x, mo(')', ' stretchy="false"'), mspace(), mi('d', ' mathvariant="normal"'), x, mo('='), mi('F'), mo('(', ' stretchy="false"'), mi('b'), mo(')', ' stretchy="false"'), mo('−'), mi('F'), mo('(', ' stretchy="false"'), mi('a'), mo(')', ' stretchy="false"'));
  },
  // a Gaussian integral
  (r) => row(subsup(mo('∫'), row(mo('−'), mi('∞')), mi('∞')), sup(mi('e'), row(mo('−'), mi(pick(r, CONSTS)), sup(mi('x'), mn(2)))), mspace(), mi('d', ' mathvariant="normal"'), mi('x'), mo('='), sqrt(frac(mi('π'), mi('a')))),
  // a matrix product
  (r) => {
    const n = int(r, 2, 3);
    const entry = (i: number, j: number) => (r() < 0.5 ? mn(int(r, -9, 9)) : sub(mi(pick(r, CONSTS)), mn(`${i + 1}${j + 1}`)));
    const matrix = fenced('(', ')', table(Array.from({ length: n }, (_v, i) => Array.from({ length: n }, (_w, j) => entry(i, j)))));
    const vector = fenced('(', ')', table(Array.from({ length: n }, (_v, i) => [sub(mi('x'), mn(i + 1))])));
    const rhs = fenced('(', ')', table(Array.from({ length: n }, (_v, i) => [sub(mi('b'), mn(i + 1))])));
    return row(matrix, vector, mo('='), rhs);
  },
  // a determinant
  (r) => row(mi('det'), mo('⁡'), fenced('|', '|', table([[mi('a'), mi('b')], [mi('c'), mi('d')]])), mo('='), mi('a'), mi('d'), mo('−'), mi('b'), mi('c'), mo('='), mn(int(r, -20, 20))),
  // an nth root
  (r) => row(root(row(sup(mi(pick(r, LETTERS)), mn(int(r, 3, 9))), mo('+'), mi(pick(r, CONSTS))), mn(int(r, 3, 5))), mo('≤'), mn(1), mo('+'), frac(mi(pick(r, LETTERS)), mn(int(r, 3, 5)))),
  // a limit
  (r) => {
    const x = mi(pick(r, ['x', 'h', 't']));
    return row(under(mi('lim'), row(x, mo('→'), mn(0))), frac(row(mi('sin'), mo('⁡'), x), x), mo('='), mn(1));
  },
  // a derivative and a partial differential equation
  (r) => row(frac(mi('d'), row(mi('d'), mi('x'))), fenced('(', ')', sup(mi('x'), mi('n'))), mo('='), mi('n'), sup(mi('x'), row(mi('n'), mo('−'), mn(int(r, 1, 1))))),
  (r) => row(frac(row(sup(mo('∂'), mn(2)), mi('u')), row(mo('∂'), sup(mi('t'), mn(2)))), mo('='), sup(mi(pick(r, ['c', 'v'])), mn(2)), sup(mo('∇'), mn(2)), mi('u')),
  // a binomial coefficient
  (r) => {
    const n = int(r, 4, 12);
    const k = int(r, 1, n - 1);
    return row(fenced('(', ')', frac(mn(n), mn(k), ' linethickness="0"')), mo('='), frac(row(mn(n), mo('!')), row(mn(k), mo('!'), mo('(', ' stretchy="false"'), mn(n - k), mo(')', ' stretchy="false"'), mo('!'))), mo('='), mn(binomial(n, k)));
  },
  // a piecewise function
  (r) => {
    const f = mi(pick(r, FUNCS));
    const x = mi(pick(r, LETTERS));
    return row(f, mo('(', ' stretchy="false"'), x, mo(')', ' stretchy="false"'), mo('='), mo('{', ' stretchy="true"'), table([[row(sup(x, mn(2)), mo(','))], [row(mo('−'), x, mo(','))]].map((c, i) => [...c, row(text(i === 0 ? 'if ' : 'otherwise'), ...(i === 0 ? [x, mo('≥'), mn(0)] : []))]), ' columnalign="left"'));
  },
  // Euler's identity and a Fourier series
  () => row(sup(mi('e'), row(mi('i'), mi('π'))), mo('+'), mn(1), mo('='), mn(0)),
  (r) => row(mi('f'), mo('(', ' stretchy="false"'), mi('x'), mo(')', ' stretchy="false"'), mo('='), frac(sub(mi('a'), mn(0)), mn(2)), mo('+'), underover(mo('∑'), row(mi('n'), mo('='), mn(1)), mi('∞')), fenced('(', ')', sub(mi('a'), mi('n')), mi('cos'), mo('⁡'), frac(row(mi('n'), mi('π'), mi('x')), mi('L')), mo('+'), sub(mi('b'), mi('n')), mi('sin'), mo('⁡'), frac(row(mi('n'), mi('π'), mi('x')), mi(pick(r, ['L', 'T']))))),
  // a continued fraction
  (r) => {
    const depth = int(r, 2, 4);
    let m: M = mn(int(r, 1, 9));
    for (let i = 0; i < depth; i++) m = row(mn(int(r, 1, 9)), mo('+'), frac(mn(1), m));
    return row(mi(pick(r, GREEK)), mo('='), m);
  },
  // norms and the triangle inequality, vectors with arrows
  (r) => {
    const [u, v] = [over(mi(pick(r, ['u', 'a'])), mo('→')), over(mi(pick(r, ['v', 'b'])), mo('→'))];
    return row(mo('‖'), u, mo('+'), v, mo('‖'), mo('≤'), mo('‖'), u, mo('‖'), mo('+'), mo('‖'), v, mo('‖'));
  },
  // a product, tensor indices with mmultiscripts
  (r) => row(underover(mo('∏'), row(mi('k'), mo('='), mn(1)), mi('n')), fenced('(', ')', mn(1), mo('+'), frac(mi(pick(r, LETTERS)), sup(mi('k'), mn(2))))),
  (r) => row(el('mmultiscripts', '', mi('R'), mi('μ'), none(), mi('ν'), none(), el('mprescripts', ''), mi(pick(r, ['a', 'b'])), none()), mo('='), sub(mi('g'), row(mi('μ'), mi('ν'))), mi('R')),
  // normal distribution
  (r) => row(mi('p'), mo('(', ' stretchy="false"'), mi('x'), mo(')', ' stretchy="false"'), mo('='), frac(mn(1), row(mi('σ'), sqrt(mn(2), mi('π')))), sup(mi('e'), row(mo('−'), frac(sup(fenced('(', ')', mi('x'), mo('−'), mi('μ')), mn(2)), row(mn(2), sup(mi('σ'), mn(int(r, 2, 2)))))))),
];
function mspace(): M {
  return { m: '<mspace width="0.167em"></mspace>', t: '' };
}
function none(): M {
  return { m: '<none></none>', t: '' };
}
function binomial(n: number, k: number): number {
  let b = 1;
  for (let i = 1; i <= k; i++) b = (b * (n - k + i)) / i;
  return Math.round(b);
}

const WORDS = (
  'the of and to a in that it is we by for as on this with be an which are from or if then so since thus hence ' +
  'function value limit series sum integral derivative matrix vector root equation term order constant variable ' +
  'interval bound proof lemma theorem case step result example exercise section chapter point line plane space ' +
  'converges diverges holds follows gives shows implies satisfies defines equals exceeds vanishes remains becomes ' +
  'positive negative real complex finite infinite continuous smooth linear quadratic small large first second last ' +
  'each every some any all both either neither only also again now here there clearly directly similarly finally'
).split(/\s+/);

/** A sentence-ish run of words of about `chars` characters. */
function words(rnd: Rnd, chars: number): string {
  const out: string[] = [];
  let n = 0;
  while (n < chars) {
    const w = pick(rnd, WORDS);
    out.push(w);
    n += w.length + 1;
  }
  const s = out.join(' ');
  return s[0]!.toUpperCase() + s.slice(1);
}

/**
 * Chapter three of both books from one seed: paragraphs of prose carrying the inline equations, display equations
 * between them, a section heading every 25 paragraphs. Returns the math body, the twin body and the text length.
 */
export function equationsChapter(seed = 12): { math: string; twin: string; textLength: number; inline: number; display: number } {
  const rnd = mulberry32(seed);
  const math: string[] = ['<h1>Chapter Three: Equations</h1>'];
  const twin: string[] = ['<h1>Chapter Three: Equations</h1>'];
  let textLength = 'Chapter Three: Equations'.length;
  let inline = 0;
  let display = 0;
  let paragraphs = 0;
  // 300 inline and 200 display, shuffled into a reading order: each step is a paragraph with 0-3 inline equations
  // and, sometimes, a display equation after it.
  while (inline < INLINE || display < EQUATIONS - INLINE) {
    if (paragraphs % 25 === 0) {
      const h = `${Math.floor(paragraphs / 25) + 1}. ${words(rnd, 20)}`;
      math.push(`<h2>${h}</h2>`);
      twin.push(`<h2>${h}</h2>`);
      textLength += h.length;
    }
    paragraphs++;
    const count = Math.min(INLINE - inline, int(rnd, 0, 3));
    let m = '';
    let t = '';
    for (let i = 0; i <= count; i++) {
      const prose = `${words(rnd, int(rnd, 40, 160))}${i === count ? '.' : ' '}`;
      m += prose;
      t += prose;
      textLength += prose.length;
      if (i < count) {
        const eq = pick(rnd, INLINE_KINDS)(rnd);
        m += `<math xmlns="${MATHML}">${eq.m}</math> `;
        t += `<span class="eq">${esc(eq.t)}</span> `;
        textLength += eq.t.length + 1;
        inline++;
      }
    }
    math.push(`<p>${m}</p>`);
    twin.push(`<p>${t}</p>`);
    if (display < EQUATIONS - INLINE && (rnd() < 0.55 || inline >= INLINE)) {
      const eq = pick(rnd, DISPLAY_KINDS)(rnd);
      display++;
      math.push(`<div class="equation" id="eq-${display}"><math xmlns="${MATHML}" display="block">${eq.m}</math></div>`);
      twin.push(`<div class="equation" id="eq-${display}">${esc(eq.t)}</div>`);
      textLength += eq.t.length;
    }
  }
  return { math: math.join('\n'), twin: twin.join('\n'), textLength, inline, display };
}

function book(title: string, uid: string, chapterThree: string, mathml: boolean, mathFont = ''): Uint8Array {
  const rnd = mulberry32(1);
  const intro = ['<h1>Chapter One: Before the Equations</h1>'];
  for (let i = 0; i < 8; i++) intro.push(`<p>${words(rnd, 380)}.</p>`);
  const css = '<link rel="stylesheet" type="text/css" href="../styles/book.css"/>';
  return buildZip({
    mimetype: 'application/epub+zip',
    'META-INF/container.xml': CONTAINER_XML,
    'OEBPS/content.opf': `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">${uid}</dc:identifier>
    <dc:title>${title}</dc:title>
    <dc:creator>The Lectern Bench</dc:creator>
    <dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="ch1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/>
    <item id="ch3" href="text/ch3.xhtml" media-type="application/xhtml+xml"${mathml ? ' properties="mathml"' : ''}/>
    <item id="css" href="styles/book.css" media-type="text/css"/>
  </manifest>
  <spine><itemref idref="ch1"/><itemref idref="ch2"/><itemref idref="ch3"/></spine>
</package>`,
    'OEBPS/nav.xhtml': xhtml(
      'Contents',
      `<nav epub:type="toc" id="toc"><h1>Contents</h1><ol>
      <li><a href="text/ch1.xhtml">Chapter One: Before the Equations</a></li>
      <li><a href="text/ch2.xhtml">Interlude</a></li>
      <li><a href="text/ch3.xhtml">Chapter Three: Equations</a></li>
    </ol></nav>`,
    ),
    'OEBPS/text/ch1.xhtml': xhtml('Chapter One: Before the Equations', intro.join('\n'), css),
    'OEBPS/text/ch2.xhtml': xhtml('Interlude', `<h1>Interlude</h1>\n<p>${words(rnd, 600)}.</p>`, css),
    'OEBPS/text/ch3.xhtml': xhtml('Chapter Three: Equations', chapterThree, css),
    'OEBPS/styles/book.css': `p { text-indent: 1.2em; margin: 0 0 0.4em; }\nh1, h2 { text-align: center; }\n.equation { margin: 0.6em 0; text-align: center; }\n${mathFont ? `math { font-family: "${mathFont}", math; }\n` : ''}`,
  });
}

// ---- the run ----

async function main() {
  const chapter = equationsChapter();
  if (chapter.inline + chapter.display !== EQUATIONS) throw new Error(`generated ${chapter.inline} + ${chapter.display} equations`);
  const fresh = await startFreshServer({ dataDirPrefix: 'lectern-bench-equations-', timeoutMs: 170_000 });
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-equations-books-'));
  const ids: Record<string, string> = {};
  const sources: Record<string, number> = {};
  for (const [title, uid, body, mathml] of [
    [MATH_TITLE, 'urn:uuid:7e9a1c20-0000-4000-8000-0000000e0001', chapter.math, true],
    [TWIN_TITLE, 'urn:uuid:7e9a1c20-0000-4000-8000-0000000e0002', chapter.twin, false],
    ...(MATH_FONT ? ([[FONT_TITLE, 'urn:uuid:7e9a1c20-0000-4000-8000-0000000e0003', chapter.math, true]] as const) : []),
  ] as const) {
    const file = path.join(folder, `${title.replace(/\W+/g, '-')}.epub`);
    fs.writeFileSync(file, book(title, uid, body, mathml, title === FONT_TITLE ? MATH_FONT : ''));
    sources[title] = body.length;
    const out = importBook(fresh.dataDir, file);
    ids[title] = new RegExp(`imported\\s+(\\S+)\\s+"${title}"`).exec(out)?.[1] ?? '';
    if (!ids[title]) throw new Error(`${title} was not imported: ${out}`);
  }
  fs.rmSync(folder, { recursive: true, force: true });
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  try {
    const context = await browser.newContext({ baseURL: fresh.base, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signIn(page, fresh.email, fresh.password);
    const urls: Record<string, { first: string; size: number }> = {};
    for (const [title, id] of Object.entries(ids)) {
      const detail = await (await page.request.get(`/api/v1/book/${id}/`)).json();
      const served = await (await page.request.get(`/api/v1/book/${id}/chapter/${TARGET}`)).json();
      urls[title] = { first: detail.chapters[0].web_url, size: served.content.length };
    }
    console.log(`equations: ${chapter.inline} inline + ${chapter.display} display; ${chapter.textLength} characters of text in either chapter`);
    console.log(`chapter three: ${sources[MATH_TITLE]} characters of source XHTML body, ${urls[MATH_TITLE]!.size} of served HTML (math); ${sources[TWIN_TITLE]}, ${urls[TWIN_TITLE]!.size} (twin)`);

    let traced = false;
    const run = async (title: string): Promise<number> => {
      await page.goto(urls[title]!.first);
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0);
      // The reader looks at the page a while; meanwhile (2 s after the paint, when idle) the reader writes the next
      // chapter, the interlude, into its spare frame and lays it out. Waited for, so that it never overlaps the
      // measured opening, and the measured chapter is never the prepared one.
      await page.waitForFunction(() => Array.from(document.querySelectorAll('iframe')).some((f) => f.contentDocument?.querySelector('h1')?.textContent === 'Interlude'), null, { timeout: 15_000 });
      await page.waitForTimeout(500);
      await page.getByRole('button', { name: 'Table of contents' }).click();
      const link = page.locator('aside.toc').locator(`a[href$="/${TARGET}"]`).first();
      await link.waitFor();
      await link.hover();
      await page.waitForTimeout(150);
      await page.evaluate(() => performance.clearMarks());
      // TRACE=file.json: a Chrome trace of the last round's math opening
      const trace = process.env.TRACE && title === MATH_TITLE && runsLeft === 1 && !traced && (traced = true);
      if (trace) await browser.startTracing(page, { path: process.env.TRACE, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'v8.execute', 'blink', 'loading', ...(process.env.TRACE_JS ? ['disabled-by-default-v8.cpu_profiler'] : [])] });
      await link.click();
      await page.waitForFunction(() => performance.getEntriesByName('reader:chapter-painted').length > 0, null, { timeout: 30_000 });
      if (trace) await browser.stopTracing();
      const { ms, steps } = await page.evaluate(() => {
        const click = performance.getEntriesByName('reader:toc-click')[0]!;
        const painted = performance.getEntriesByName('reader:chapter-painted')[0]!;
        const steps: Record<string, number> = {};
        for (const m of performance.getEntriesByType('mark')) if (m.name.startsWith('reader:') && m.startTime >= click.startTime) steps[m.name.slice(7)] ??= m.startTime - click.startTime;
        return { ms: painted.startTime - click.startTime, steps };
      });
      if (process.env.STEPS) console.log(`${title === MATH_TITLE ? 'math' : title === FONT_TITLE ? 'math+font' : 'twin'}: ${Object.entries(steps).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(' | ')}`);
      // The chapter shown is chapter three, with its equations as MathML (math) or none (twin), laid out as MathML.
      const shown = await page.evaluate((ns) => {
        const doc = document.querySelector<HTMLIFrameElement>('iframe.chapter-view__frame')?.contentDocument;
        const maths = doc ? doc.getElementsByTagNameNS(ns, 'math') : null;
        const first = maths?.[0]?.querySelector('mfrac, msqrt, msup, msub');
        return { heading: doc?.querySelector('h1')?.textContent ?? '', maths: maths?.length ?? -1, font: maths?.[0] ? getComputedStyle(maths[0]).fontFamily : '', mathLaidOut: first ? first.getBoundingClientRect().height > 0 && first.constructor.name === 'MathMLElement' : null };
      }, MATHML);
      const want = title === TWIN_TITLE ? 0 : EQUATIONS;
      if (shown.heading !== 'Chapter Three: Equations' || shown.maths !== want || (want && !shown.mathLaidOut) || (title === FONT_TITLE && !shown.font.includes(MATH_FONT))) throw new Error(`${title}: chapter three did not render as expected: ${JSON.stringify(shown)}`);
      return ms;
    };

    const math: number[] = [];
    const twin: number[] = [];
    const withFont: number[] = [];
    let runsLeft = ROUNDS + 1;
    for (let i = 0; i < ROUNDS + 1; i++, runsLeft--) {
      const m = await run(MATH_TITLE);
      const f = MATH_FONT ? await run(FONT_TITLE) : 0;
      const t = await run(TWIN_TITLE);
      if (i === 0) continue; // warm-up
      math.push(m);
      twin.push(t);
      withFont.push(f);
    }
    const ratios = math.map((m, i) => m / twin[i]!);
    console.log(`rounds: ${ROUNDS} (plus one warm-up), alternating`);
    console.log(`500 equations (MathML)   contents click -> painted: ${summary(math, 1)} ms  [${math.map((x) => x.toFixed(0)).join(', ')}]`);
    console.log(`plain twin (anchor)      contents click -> painted: ${summary(twin, 1)} ms  [${twin.map((x) => x.toFixed(0)).join(', ')}]`);
    console.log(`ratio math/twin (per round): ${summary(ratios)}; of the medians ${(median(math) / median(twin)).toFixed(2)}`);
    if (MATH_FONT) {
      console.log(`math, the book naming "${MATH_FONT}" contents click -> painted: ${summary(withFont, 1)} ms  [${withFont.map((x) => x.toFixed(0)).join(', ')}]`);
      console.log(`ratio math-with-font/twin (per round): ${summary(withFont.map((f, i) => f / twin[i]!))}; math-with-font/math (per round): ${summary(withFont.map((f, i) => f / math[i]!))}`);
    }
    console.log(`load average at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    await browser.close();
    await fresh.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) await main();
