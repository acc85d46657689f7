/**
 * What the reader changes in a book's own styles once a chapter's stylesheets are in (a walk over the book's style
 * rules and the few elements styled inline; no layout):
 *
 * Horizontal margins and indents of at most 40% of the column: a title page laid out for a wide page (Alice's
 * `margin-left: 13em` at 150%) would otherwise push its words past a phone's screen.
 *
 * Justified text only where the browser hyphenates the chapter's language (docs/decisions.md "Justification"):
 * justified lines without hyphenation open rivers of white space, worst on a phone's narrow column. Books ask for
 * `text-align: justify` in their stylesheets and style attributes; where this browser cannot hyphenate the language
 * (Chromium on Linux without its hyphenation dictionaries, or a language it has none for) those become `start`.
 */

const hyphenation = new Map<string, boolean>();

/** Whether this browser hyphenates `lang` (`hyphens: auto`): measured once per language on a small hidden probe. */
export function hyphenates(lang: string, doc: Document = document): boolean {
  const key = lang.toLowerCase();
  const known = hyphenation.get(key);
  if (known !== undefined) return known;
  const body = doc.body;
  if (!body) return false;
  const probe = doc.createElement('div');
  probe.lang = key;
  probe.setAttribute('aria-hidden', 'true');
  // Long words in a column narrower than any of them: hyphenated, they break into more lines than they are words.
  probe.style.cssText = 'position:absolute;left:-9999px;top:0;visibility:hidden;width:4em;font:16px/20px serif;hyphens:manual;-webkit-hyphens:manual;overflow-wrap:normal;word-break:normal;white-space:normal';
  probe.textContent = 'characteristically incomprehensibilities internationalization';
  body.append(probe);
  const manual = probe.offsetHeight;
  probe.style.hyphens = 'auto';
  probe.style.setProperty('-webkit-hyphens', 'auto');
  const works = probe.offsetHeight > manual;
  probe.remove();
  hyphenation.set(key, works);
  return works;
}

/** Horizontal spacing a book may set, each kept to at most MAX_INDENT of the column. */
const INDENTS = ['margin-left', 'margin-right', 'padding-left', 'padding-right', 'margin-inline-start', 'margin-inline-end', 'padding-inline-start', 'padding-inline-end', 'text-indent'];
const MAX_INDENT = '40%';

function adaptStyle(style: CSSStyleDeclaration, unjustify: boolean) {
  if (unjustify && style.textAlign === 'justify') style.setProperty('text-align', 'start', style.getPropertyPriority('text-align'));
  for (const name of INDENTS) {
    const value = style.getPropertyValue(name).trim();
    // Positive lengths only: percentages already follow the column, negative ones are hanging indents.
    if (!value || value.includes('%') || value.includes('(') || !(parseFloat(value) > 0)) continue;
    style.setProperty(name, `min(${value}, ${MAX_INDENT})`, style.getPropertyPriority(name));
  }
}

function adaptRules(rules: CSSRuleList, unjustify: boolean) {
  for (const rule of Array.from(rules)) {
    const style = (rule as CSSStyleRule).style;
    if (style) adaptStyle(style, unjustify);
    const nested = (rule as CSSGroupingRule).cssRules;
    if (nested) adaptRules(nested, unjustify);
  }
}

/** The chapter's language: the html element's, else the first language its markup names. */
export function chapterLanguage(doc: Document, root: Element | null): string {
  const own = root?.querySelector('[lang]')?.getAttribute('lang');
  if (own && doc.documentElement.lang !== own) doc.documentElement.lang = own;
  return doc.documentElement.lang || 'en';
}

/**
 * Adapts the book's styles in a written chapter document (its stylesheets loaded): indents kept within the column,
 * and justified text turned to `start` unless the browser hyphenates the chapter's language. Running it twice
 * changes nothing more.
 */
export function adaptBookStyles(doc: Document, root: Element | null): void {
  const unjustify = !hyphenates(chapterLanguage(doc, root));
  for (const sheet of Array.from(doc.styleSheets)) {
    // The reader's own style elements (no owner link) are left alone.
    if (!(sheet.ownerNode as Element | null)?.matches?.('link')) continue;
    try {
      adaptRules(sheet.cssRules, unjustify);
    } catch {
      // a sheet the frame may not read: nothing of ours
    }
  }
  if (!root) return;
  for (const el of Array.from(root.querySelectorAll<HTMLElement>('[style]'))) adaptStyle(el.style, unjustify);
  if (unjustify) for (const el of Array.from(root.querySelectorAll('[align="justify" i]'))) el.removeAttribute('align');
}
