/**
 * The HTML document a chapter is shown in. Book HTML never enters the app's DOM: it goes into a sandboxed iframe
 * (no scripts) as `srcdoc`, with
 * - `<base target="_top">` so links the app does not intercept leave the frame for the whole tab,
 * - a Content-Security-Policy that forbids scripts and loads only same-origin images, styles, fonts and media,
 * - the chapter's own stylesheets, then our reading stylesheet (Georgia, 1.125rem, 1.6 line height, 40em column).
 */
import type { ChapterContent } from '@lectern/core';

export const CHAPTER_CSP =
  "default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self'; media-src 'self'";

/** Attribute and text escaping for the few values we write into the document ourselves. */
export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

export const READING_CSS = `
html { color-scheme: light; -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
html, body { overflow: hidden; }
body {
  display: flow-root;
  box-sizing: border-box;
  max-width: 40em;
  margin: 0 auto;
  padding: 1.5rem 1.25rem 2.5rem;
  font-family: Georgia, 'Times New Roman', serif;
  font-size: 1.125rem;
  line-height: 1.6;
  color: #1b1b1b;
  background: #ffffff;
  overflow-wrap: break-word;
}
img, svg, video, audio, canvas, object { max-width: 100%; height: auto; }
pre { max-width: 100%; overflow-x: auto; white-space: pre-wrap; font-size: 0.9em; }
code, kbd, samp, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
table { max-width: 100%; border-collapse: collapse; }
a { color: #0c5b63; }
a:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; }
h1, h2, h3, h4, h5, h6 { line-height: 1.25; }
`;

export function buildChapterDocument(chapter: Pick<ChapterContent, 'label' | 'stylesheets' | 'content'>, lang = 'en'): string {
  const links = chapter.stylesheets.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n');
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<base target="_top">
<meta http-equiv="Content-Security-Policy" content="${CHAPTER_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(chapter.label)}</title>
${links}
<style>${READING_CSS}</style>
</head>
<body>
${chapter.content}
</body>
</html>`;
}
