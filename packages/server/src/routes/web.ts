/**
 * The built web app: hashed assets with long caching, brotli or gzip when the build made a compressed copy and the
 * browser takes it; index.html for every other page address so the client router can take over (it renders its
 * own 404 page). Unknown API addresses get a JSON 404.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fastifyStatic from '@fastify/static';
import {
  type AccountProfile,
  APP_MESSAGES,
  BOOT_DATA_ID,
  CHAPTER_FRAME_SANDBOX,
  COOKIES,
  CSRF_HEADER,
  EARLY_BLOCK_GLOBAL,
  EARLY_INPUT_GLOBAL,
  firstScreenImages,
  firstScreenRequests,
  firstScreenTitles,
  formatLabel,
  highlightPrivacyAttributes,
  type HighlightPrivacySetting,
  isMediaFormat,
  LIMITS,
  PAGE_FRAME_FOOTER_PX,
  PAGE_FRAME_ID,
  PAGE_PLACE_ATTR,
  PAGE_VIEW_KEYS,
  paths,
  type PositionResponse,
  SHORTCUTS_PAGE_PATH,
  titleDisplay,
} from '@lectern/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NOSCRIPT_MARKER, noscriptForms } from '../plugins/noscript-forms.ts';
import { escapeAttribute, escapeText } from '../util/html-escape.ts';

/** Where index.html takes the page's first data (packages/web/index.html). */
export const BOOT_MARKER = '<!--lectern:boot-data-->';

const API_PREFIXES = ['/api/', '/nest/', '/u/', '/r/', '/a/', '/auth/', '/healthz'];
/**
 * Pages below an API prefix (library-playlists-account.md §2: the shortcuts settings page is /u/shortcuts/), and the
 * account page /u with its slash, as every other page is reached (it was a JSON 404).
 */
const PAGES_UNDER_API = [SHORTCUTS_PAGE_PATH, SHORTCUTS_PAGE_PATH.slice(0, -1), '/u/'];

/**
 * Hashed assets never change; the icons change rarely and are asked for again on every in-app navigation (a
 * revalidation each time, competing with the chapter being opened), so they keep for a day; anything else, such as
 * index.html, is revalidated.
 */
export function cacheControlOf(filePath: string): string {
  if (filePath.includes(`${path.sep}assets${path.sep}`)) return 'public, max-age=31536000, immutable';
  if (/\.(png|ico|svg|webmanifest)$/i.test(filePath)) return 'public, max-age=86400';
  return 'no-cache';
}

/** How the page asks for a start file that does not hold its first paint. */
const LOW_PRIORITY = 'fetchpriority="low"';

/**
 * index.html per address: where the build's route-preloads.json (packages/web/vite.config.ts) names the code an
 * address's page opens with, the page's head names it too (modulepreload for its chunks, preload for its
 * stylesheets), so the browser fetches it with the entry rather than once the entry has run and routed. Each
 * variant is made once. Without the file (an older build), every page gets index.html as it is.
 */
export function routePagesOf(indexHtml: string | null, webDist: string | null): (pathname: string) => string {
  if (!indexHtml) return () => '';
  const file = webDist ? path.join(webDist, 'route-preloads.json') : null;
  let routes: { pattern: RegExp; html: string }[] = [];
  if (file && fs.existsSync(file) && indexHtml.includes('</head>')) {
    const table = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, { js: string[]; css: string[] }>;
    const attr = (url: string) => url.replace(/[^\w/.@-]/g, '');
    routes = Object.entries(table).map(([pattern, { js, css }]) => {
      // at low priority, as the build marks the entry's (vite.config.ts startFilesAtLowPriority): they do not hold
      // the first paint, and at High or VeryHigh Lighthouse counted them into its FCP when they came before it
      const links = [
        ...js.map((u) => `<link rel="modulepreload" crossorigin href="${attr(u)}" ${LOW_PRIORITY}>`),
        ...css.map((u) => `<link rel="preload" as="style" crossorigin href="${attr(u)}" ${LOW_PRIORITY}>`),
      ].join('\n    ');
      return { pattern: new RegExp(pattern), html: indexHtml.replace('</head>', `  ${links}\n  </head>`) };
    });
  }
  return (pathname) => routes.find((r) => r.pattern.test(pathname))?.html ?? indexHtml;
}

/**
 * The address of the build's chapter worker (packages/web engine/chapter.worker.ts, the file the build names
 * `assets/chapter.worker-{hash}.js`; its schemas are a chunk it loads itself), which a reader address's page starts
 * itself (EARLY_BLOCK_SCRIPT); null when the build has none (the app then starts it as it always has).
 */
export function chapterWorkerOf(webDist: string): string | null {
  const dir = path.join(webDist, 'assets');
  if (!fs.existsSync(dir)) return null;
  const file = fs.readdirSync(dir).find((f) => /^chapter\.worker-[\w-]+\.js$/.test(f));
  return file ? `/assets/${file}` : null;
}

/** index.html with what the page declares on its document element (reader.md §4's highlight privacy). */
export function withPageAttributes(indexHtml: string, attributes: Record<string, string>): string {
  const written = Object.entries(attributes)
    .map(([name, value]) => (value === '' ? ` ${name}` : ` ${name}="${escapeAttribute(value)}"`))
    .join('');
  return indexHtml.replace(/<html(?=[\s>])/i, `<html${written}`);
}

/**
 * JSON as the text of a `<script type="application/json">`: every `<`, `>` and `&` escaped as JSON's \u00XX, so no
 * value (an email, a team name) can close the element (`</script>`) or open a comment; U+2028 and U+2029 too, which
 * older parsers took for line ends. JSON.parse reads the escapes back as the characters they stand for.
 */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The book and chapter a reader address opens (reader.md §2: /library/view/{title_safe}/{book_id}/{chapter_full_path}),
 * decoded as the reader's router decodes them (the splat without its trailing slashes); null for any other address,
 * for one without a chapter (the reader then picks the chapter from the reader's position) or one that is not valid
 * percent-encoding.
 */
export function readerAddressOf(pathname: string): { bookId: string; href: string } | null {
  const m = /^\/library\/view\/[^/]+\/([^/]+)\/(.+)$/.exec(pathname);
  if (!m) return null;
  try {
    const bookId = decodeURIComponent(m[1]!);
    const href = decodeURIComponent(m[2]!).replace(/\/+$/, '');
    return bookId && href ? { bookId, href } : null;
  } catch {
    return null;
  }
}

/**
 * A reader address's early chapter request (docs/decisions.md "A reader address asks for
 * its chapter from the page itself"): the reader's own POST /nest/epub/block/ (reader.md §7: "The chapter can be
 * preloaded from the page"), sent as the page is parsed instead of once the app has started, routed and rendered.
 * The body is the web client's (api/reader.ts getBlockWith), the CSRF token the page's cookie as the client sends it;
 * the answer is left under EARLY_BLOCK_GLOBAL, where the reader takes it (engine/chapterWorker.ts loadBlock). Static
 * text: its hash is in the pages' CSP (`script-src 'self' 'sha256-…'`), so no inline code but this one runs.
 */
export const EARLY_BLOCK_SCRIPT =
  '(function(){try{' +
  `var b=JSON.parse(document.getElementById(${JSON.stringify(BOOT_DATA_ID)}).textContent),d=b.reader,` +
  `m=/(?:^|;\\s*)${COOKIES.csrf}=([^;]*)/.exec(document.cookie);` +
  'if(!d||!m)return;' +
  'var r=fetch("/nest/epub/block/",{method:"POST",credentials:"same-origin",' +
  `headers:{"Accept":"application/json","Content-Type":"application/json",${JSON.stringify(CSRF_HEADER)}:decodeURIComponent(m[1])},` +
  'body:JSON.stringify({book_id:d.book_id,hrefs:d.href,package_resources:1,screen_width:Math.round(innerWidth),screen_height:Math.round(innerHeight),update_progress:true})});' +
  'r.catch(function(){});' +
  'var g={book_id:d.book_id,href:d.href,response:r,path:location.pathname,long:d.long===true};' +
  `window[${JSON.stringify(EARLY_BLOCK_GLOBAL)}]=g;` +
  // The chapter worker started here, beside the app's entry rather than after it has run, and handed a copy of the
  // answer with the page's key: its script loads and the decryption runs while the app starts. What it says before
  // the app listens is kept in g.replies (engine/workerStart.ts takes the worker, chapterWorker.ts its answer, id 0);
  // g.posted says whether the answer went to it (false: the app reads the response itself, as without a worker).
  'if(typeof d.worker!=="string"||typeof d.key!=="string"||!d.key||typeof Worker==="undefined")return;' +
  'var w=new Worker(d.worker,{type:"module",name:"lectern-chapter"});' +
  // What the reader would read in this browser for its first screen (web engine/pageFirstScreen.ts PageView): its
  // settings, its places, the hash, the width; the worker builds that screen's document from it, or none.
  'var V=function(){try{var s={};' +
  `${JSON.stringify(PAGE_VIEW_KEYS)}.forEach(function(k){s[k]=localStorage.getItem(k)});` +
  'return{width:innerWidth,hash:location.hash,cookie:document.cookie,storage:s,user:b.profile&&b.profile.user_uuid||null,position:d.position}' +
  '}catch(e){}};' +
  // (the skeleton's toolbar's foot, also read once the page is parsed: the app may have replaced it by the answer)
  'var G=0;document.addEventListener("DOMContentLoaded",function(){var k=document.querySelector(".boot__reader");if(k)G=k.getBoundingClientRect().bottom});' +
  // The worker's first screen painted here (docs/decisions.md "A long chapter's first screen painted by the page"):
  // written into a frame of the reader's sandbox over the reader's stage (below the skeleton's toolbar, above its
  // footer), scrolled to the reader's place, shown once its stylesheets are in; the app removes it once its own
  // first screen is painted (pageFirstScreen.ts releasePageFrame). Never once the app has drawn its own reader.
  // (over the reader's stage once the app has drawn it, else below the skeleton's toolbar: its top and height, or none)
  'var P=function(){var k=document.querySelector(".reader-stage"),t;if(k){k=k.getBoundingClientRect();return[k.top,k.height]}' +
  `k=document.querySelector(".boot__reader");t=k?k.getBoundingClientRect().bottom:G;return t?[t,innerHeight-t-${PAGE_FRAME_FOOTER_PX}]:null};` +
  'var F=function(x){try{' +
  // (not once the reader has released it, nor after the app has left this address: nothing would take it away)
  'if(g.released||location.pathname!==g.path)return;' +
  // (not over a frame of the reader's already shown)
  'var v=document.querySelector("iframe.chapter-view__frame"),y;' +
  `if(v&&v.style.visibility==="visible"||document.getElementById(${JSON.stringify(PAGE_FRAME_ID)})||!(y=P()))return;` +
  'var f=document.createElement("iframe");' +
  `f.id=${JSON.stringify(PAGE_FRAME_ID)};f.setAttribute("sandbox",${JSON.stringify(CHAPTER_FRAME_SANDBOX)});f.setAttribute("aria-hidden","true");f.tabIndex=-1;f.inert=true;` +
  // (inert and without pointer events: a picture of the first screen until the reader's frame takes over, nothing in
  // it to focus, click or read twice)
  'f.style.cssText="position:fixed;left:0;width:100%;border:0;margin:0;z-index:11;visibility:hidden;pointer-events:none;top:"+y[0]+"px;height:"+y[1]+"px";' +
  'document.body.appendChild(f);' +
  // (a resize or a rotation moves the stage: the frame follows it until the reader removes it, and a new width, which
  // reflows the text, scrolls it to the place again (K, once the document is written); the reader's release takes the
  // listener off at once (g.unfollow), so nothing holds the removed frame's document)
  'var K=null,U=function(){removeEventListener("resize",R);K=null},R=function(){if(!f.isConnected){U();return}var y=P();if(y){f.style.top=y[0]+"px";f.style.height=y[1]+"px"}if(K)K()};' +
  'g.unfollow=U;addEventListener("resize",R);' +
  // (the frame's document in three tasks, not one: the frame's start above, then the head and what a screen needs
  // (x.split: the place and a few screens after it), shown once its stylesheets are in, then the rest below it)
  'setTimeout(function(){try{if(!f.isConnected)return;' +
  'var c=f.contentDocument,D=x.document,z=x.split>0&&x.split<D.length?x.split:D.length;c.open();c.write(D.slice(0,z));' +
  'setTimeout(function(){try{if(f.isConnected&&z<D.length)c.write(D.slice(z));c.close()}catch(e){}},0);' +
  'var o=0,n=0,S=function(){if(o++||!f.isConnected)return;' +
  // (vertical writing is laid out by the reader's controller, not scrolled from the top: left to the reader)
  'var m=c.body&&c.defaultView.getComputedStyle(c.body).writingMode;if(m&&m.indexOf("horizontal")<0){f.remove();U();return}' +
  `var s=c.scrollingElement||c.documentElement,p=c.querySelector("[${PAGE_PLACE_ATTR}]");` +
  'K=function(){if(p){var a=p.nextSibling,r=c.createRange();if(a&&a.nodeType===3&&a.length){r.setStart(a,0);r.setEnd(a,1)}else r.selectNode(p);' +
  'var q=r.getClientRects()[0]||r.getBoundingClientRect();s.scrollTop=Math.max(0,s.scrollTop+q.top-8)}' +
  'else s.scrollTop=Math.max(0,(s.scrollHeight-s.clientHeight)*x.percentage/100)};K();' +
  'f.style.visibility="visible";' +
  'requestAnimationFrame(function(){requestAnimationFrame(function(){if(f.isConnected){performance.mark("reader:page-first-screen");performance.mark("reader:first-screen",{detail:"page"})}})})},' +
  'N=function(){--n||S()};' +
  '[].forEach.call(c.querySelectorAll("link[rel~=stylesheet]"),function(l){if(!l.sheet){n++;l.addEventListener("load",N);l.addEventListener("error",N)}});' +
  // (a stylesheet that never answers does not keep it hidden: ChapterView's STYLESHEET_WAIT_MS)
  'if(n)setTimeout(S,3000);else S()' +
  '}catch(e){}},0)' +
  '}catch(e){}};' +
  'g.worker=w;g.replies=[];' +
  // (the marks: where the page's worker stands on the reader's timeline, bench/long-chapter.ts STEPS=1)
  'performance.mark("reader:page-worker");' +
  'w.addEventListener("message",function(e){var k=e.data&&e.data.kind;' +
  'if(k==="first-screen"){F(e.data);return}' +
  'if(k==="ready"||e.data&&e.data.id===0)performance.mark(k==="ready"?"reader:page-worker-ready":"reader:page-worker-answered");' +
  'if(g.replies)g.replies.push(e.data)});' +
  'w.addEventListener("error",function(){g.failed=true});' +
  'g.posted=r.then(function(x){return x.clone().arrayBuffer().then(function(b){' +
  'w.postMessage({kind:"block",id:0,params:{bookId:d.book_id,href:d.href,updateProgress:true},csrf:decodeURIComponent(m[1]),key:d.key,answer:{bytes:b,status:x.status,statusText:x.statusText},view:V()},[b]);return true})})' +
  '.catch(function(){return false})' +
  '}catch(e){}})();';

/** The CSP source that lets EARLY_BLOCK_SCRIPT, and nothing else inline, run. */
export const EARLY_BLOCK_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(EARLY_BLOCK_SCRIPT).digest('base64')}'`;

/**
 * A server-rendered screen's early script (docs/decisions.md "The first screen rendered on the server"), written
 * right after #root: the screen shows before the app has hydrated it, and what a reader does in that gap would be
 * lost (the shortcuts' listener is the app's; React resets a select's and a textarea's value as it hydrates them).
 * Until the app takes it (web app/earlyInput.ts), it keeps under EARLY_INPUT_GLOBAL:
 * - `keys`: the keydowns the shortcut registry could take (web shared/shortcuts/registry.ts): one printable
 *   character or Shift+Enter, without Ctrl, Alt or Meta, not typed into a field; Escape forgets those kept so far
 *   (nothing is open yet to close, and a key let go of should not come back); 32 at most;
 * - `fields`: each select's and textarea's value as the reader changed it (a text box or a check box keeps its own
 *   through hydration; the app takes those from the DOM).
 * Nothing is prevented: typing goes into the fields natively. Static text: its hash is in the pages' CSP, as
 * EARLY_BLOCK_SCRIPT's is. No `<` in it (the server's tests read inline scripts as text up to the next one).
 */
export const EARLY_INPUT_SCRIPT =
  '(function(){try{' +
  'var d=document,k=[],v=[],' +
  'f=function(e){if(e.ctrlKey||e.altKey||e.metaKey||e.isComposing||e.defaultPrevented)return;' +
  'var t=e.target;if(t&&(t.isContentEditable||/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)))return;' +
  'if(e.key==="Escape"){k.length=0;return}' +
  'if(e.key.length!==1&&!(e.key==="Enter"&&e.shiftKey)||k.length>=32)return;' +
  'k.push({key:e.key,shiftKey:e.shiftKey,target:t})},' +
  'g=function(e){var t=e.target;if(t&&/^(SELECT|TEXTAREA)$/.test(t.tagName))v.push({field:t,value:t.value})};' +
  'd.addEventListener("keydown",f);d.addEventListener("input",g);d.addEventListener("change",g);' +
  `window[${JSON.stringify(EARLY_INPUT_GLOBAL)}]={keys:k,fields:v,stop:function(){` +
  'd.removeEventListener("keydown",f);d.removeEventListener("input",g);d.removeEventListener("change",g)}}' +
  '}catch(e){}})();';

/** The CSP source that lets EARLY_INPUT_SCRIPT run. */
export const EARLY_INPUT_SCRIPT_SOURCE = `'sha256-${createHash('sha256').update(EARLY_INPUT_SCRIPT).digest('base64')}'`;

/**
 * The page's first data, in the page (docs/decisions.md "The first screen's data
 * in the page"): for a request that carries a session cookie, the profile `/u/information_for_javascript` would
 * answer (null when the session has gone), so the app's first request is not made at all. Not a script the
 * browser runs. Nothing for a visitor without a session.
 * On a reader address with a chapter, for a signed-in reader and a title that is read in the reader (not a video or
 * an audiobook, whose player sends no block request): the book, the chapter, the title's format (the router's
 * question before it picks the reader) and this reader's stored position of the book (what
 * GET /api/v1/book/{id}/position/ answers, which the reader waits for before it places the chapter), this reader's
 * decryption key (what GET /nest/key/ answers them: the chapter is decrypted as soon as it is here, not a round trip
 * after the reader has started), and EARLY_BLOCK_SCRIPT after it. Whether the reader may read that chapter is the
 * block request's own answer (rights, samples, the §8 messages), as when the app asks. A page with the key is
 * `no-store`, as the key's own answer is: no cache, the browser's included, keeps it.
 */
async function bootData(
  app: FastifyInstance,
  request: FastifyRequest,
  pathname: string,
  boot: BootDeps,
  chapterWorker: string | null,
): Promise<{ html: string; secret: boolean; page?: PageData; heading?: ReaderHeading; playlist?: PlaylistHeading; catalog?: CatalogFirstCard }> {
  if (!request.cookies[COOKIES.session]) return { html: '', secret: false };
  const profile = await boot.profile(request);
  const address = profile ? readerAddressOf(pathname) : null;
  // (a failure here costs the reader only the head start: the app asks for all of it itself, and reports)
  const found = address ? await boot.readerStart(request, address.bookId, address.href).catch(() => null) : null;
  // the titles go into the page's markup, not its data
  const { heading, ...start } = found ?? { heading: null };
  const reader = address && found && !isMediaFormat(found.format) ? { book_id: address.bookId, href: address.href, ...(start as Omit<typeof found, 'heading'>), ...(chapterWorker ? { worker: chapterWorker } : {}) } : undefined;
  const answers = profile ? await firstAnswers(app, request) : null;
  // the first card's cover of the catalog or a playlist, fetched beside the app's code (core's firstScreenImages); a
  // playlist's items carry no cover, so the server looks up its first one, as the card's metadata request would
  const covers = answers ? await boot.covers(firstScreenTitles(answers)) : [];
  const preloads = answers ? firstScreenImages(answers, covers).map((url) => `<link rel="preload" as="image" href="${escapeAttribute(url)}" fetchpriority="high">`) : [];
  const page: PageData = { profile, ...(answers ? { answers } : {}), ...(reader ? { reader } : {}) };
  const data = `${preloads.join('')}<script type="application/json" id="${BOOT_DATA_ID}">${inlineJson(page)}</script>`;
  const playlist = answers ? playlistHeadingOf(pathname, answers) : null;
  const catalog = answers ? catalogFirstCardOf(pathname, answers) : null;
  return reader
    ? { html: `${data}\n    <script>${EARLY_BLOCK_SCRIPT}</script>`, secret: true, page, ...(heading ? { heading } : {}) }
    : { html: data, secret: false, page, ...(playlist ? { playlist } : {}), ...(catalog ? { catalog } : {}) };
}

/**
 * A reader address's boot data and early script at the head's start, right after its charset (docs/decisions.md "A
 * long chapter's first screen painted by the page"): the block request and the chapter worker's script are asked for
 * as the head is parsed, not once the body is (the browser's preload scanner still asks for the head's module files
 * first). The reader's first screen waits for those two (the page paints it from the worker), not for the app's
 * start. Where the head has no charset line, at the marker as before.
 */
export function withBootFirst(html: string, data: string): string {
  const charset = /<meta charset=[^>]*>/i.exec(html);
  const head = html.indexOf('</head>');
  if (!charset || head < 0 || charset.index > head) return html.replace(BOOT_MARKER, () => data);
  const at = charset.index + charset[0].length;
  return `${html.slice(0, at)}\n    ${data}${html.slice(at).replace(BOOT_MARKER, '')}`;
}

/** The book's title and the chapter's label a reader address opens, as the reader's toolbar shows them. */
export interface ReaderHeading {
  title: string;
  chapter: string;
}

/** Where index.html's skeleton lies, below its top bar (packages/web/index.html). */
const SKELETON_START = '<!--lectern:skeleton-->';
const SKELETON_END = '<!--/lectern:skeleton-->';

/** The page before `open` and after the `close` that follows it (markers and what is between them cut out); null without both. */
function around(html: string, open: string, close: string): [before: string, after: string] | null {
  const start = html.indexOf(open);
  const end = html.indexOf(close, start);
  return start < 0 || end < 0 ? null : [html.slice(0, start), html.slice(end + close.length)];
}

/** index.html with `markup` in place of its skeleton; unchanged when it has no skeleton markers. */
function withSkeleton(html: string, markup: string): string {
  const cut = around(html, SKELETON_START, SKELETON_END);
  return cut ? cut[0] + markup + cut[1] : html;
}

/** The id of the page's chapter heading, by which a largest-paint entry names it once the app has replaced it. */
export const BOOT_HEADING_ID = 'boot-chapter-heading';

/**
 * A reader address's page with the reader's toolbar titles in place of the skeleton (docs/decisions.md "The reader's
 * titles in its page"): the book's title and the chapter's `h1`, drawn from the page with index.html's inline styles
 * at the toolbar's own sizes (ReaderPage.css). The largest thing the page paints is then there from its first paint;
 * before, it was the toolbar's `h1` that React painted once the app, the chapter's answer and the reader's code were
 * in, and Lighthouse's LCP counted every file and task before it (2.95-3.06 s against 0.7-2.7 s). React replaces it
 * with its own toolbar, the same titles at the same sizes. Unchanged when index.html has no skeleton markers.
 */
export function withReaderHeading(html: string, heading: ReaderHeading): string {
  return withSkeleton(
    html,
    `<div class="boot__reader"><div class="boot__titles"><span class="boot__book">${escapeText(heading.title)}</span>` +
      `<h1 class="boot__chapter" id="${BOOT_HEADING_ID}">${escapeText(heading.chapter || '\u00a0')}</h1></div></div>`,
  );
}

/** A playlist's heading as its page shows it (features/playlists/PlaylistView.tsx): the eyebrow and the name. */
export interface PlaylistHeading {
  name: string;
  isDefault: boolean;
}

/** The id of the playlist's heading in the page, by which a largest-paint entry names it once the app has replaced it. */
export const BOOT_PLAYLIST_HEADING_ID = 'boot-playlist-heading';

/**
 * The heading of the playlist a playlist address opens, from the playlist's answer the page carries (its first
 * answers: core's firstScreenRequests), as this reader's own request got it; null on any other address, or when
 * that answer is not in the page (not theirs, a failure).
 */
export function playlistHeadingOf(pathname: string, answers: Readonly<Record<string, unknown>>): PlaylistHeading | null {
  const id = /^\/c\/collection\/([^/]+)\/$/.exec(pathname)?.[1];
  if (!id) return null;
  for (const [url, answer] of Object.entries(answers)) {
    if (url.includes('?') || !/^\/nest\/api\/api\/v2\/collections\/[^/]+\/$/.test(url)) continue;
    const { name, is_default: isDefault } = (answer ?? {}) as { name?: unknown; is_default?: unknown };
    if (typeof name === 'string') return { name, isDefault: isDefault === true };
  }
  return null;
}

/**
 * A playlist address's page with the playlist's heading in place of the skeleton (docs/decisions.md "A playlist's
 * heading in its page"): the eyebrow and the name's `h1`, drawn with index.html's inline `.boot__library` rules at
 * the place and size PlaylistView's header has (PlaylistsArea.css, global.css `.page` and `.page-heading`, at
 * 390 px and on a desktop). The page's largest paint is then there from its first paint; before, it was that `h1`,
 * painted by React once the app had loaded and rendered (a render delay of 2.1-2.5 s in Lighthouse's mobile runs).
 * React's heading is the same text at the same place and size: no larger paint after it. Unchanged when index.html
 * has no skeleton markers.
 */
export function withPlaylistHeading(html: string, heading: PlaylistHeading): string {
  return withSkeleton(
    html,
    `<div class="boot__main boot__library"><div class="boot__side"></div><div><p class="boot__eyebrow">${heading.isDefault ? 'Default playlist' : 'Playlist'}</p>` +
      `<h1 class="boot__heading" id="${BOOT_PLAYLIST_HEADING_ID}">${escapeText(heading.name)}</h1></div></div>`,
  );
}

/** The catalog's first card as its page shows it (shared/TitleCard.tsx), and the count its header shows above it. */
export interface CatalogFirstCard {
  count: number;
  title: string;
  contentFormat: string | null;
  /** the card's cover address, as the card asks for it (core's cardCoverUrl, what firstScreenImages preloads) */
  cover: string;
}

/** The id of the catalog's first cover in the page, by which a largest-paint entry names it once the app has replaced it. */
export const BOOT_CATALOG_COVER_ID = 'boot-catalog-cover';

/**
 * The catalog's first card, from the catalog's first answer the page carries (core's firstScreenRequests: /library/
 * unfiltered), as this reader's own request got it; null on any other address, without that answer (a failure), or
 * when the first title has no cover image (its card's typographic cover is React's to draw).
 */
export function catalogFirstCardOf(pathname: string, answers: Readonly<Record<string, unknown>>): CatalogFirstCard | null {
  if (pathname !== '/library/') return null;
  const [url, answer] = Object.entries(answers).find(([u]) => u.startsWith(`${paths.bookList()}?`)) ?? [];
  const [cover] = url ? firstScreenImages({ [url]: answer }) : [];
  const { count, results } = (answer ?? {}) as { count?: unknown; results?: { title?: unknown; content_format?: unknown }[] };
  const first = Array.isArray(results) ? results[0] : undefined;
  if (!cover || typeof count !== 'number' || typeof first?.title !== 'string') return null;
  return { count, title: first.title, contentFormat: typeof first.content_format === 'string' ? first.content_format : null, cover };
}

/**
 * The catalog's page with its header and first card in place of the skeleton (docs/decisions.md "The catalog's first
 * card in its page"): the heading and the count, room for the topic bar and the list's controls (drawn as React's
 * own loading shapes), then the first card's cover, format label and title, with index.html's inline `.boot__catalog`
 * rules at the place and size CatalogPage gives them (CatalogPage.css, TitleGrid.css, TitleCard.css, Card.css, at
 * 390 px and on a desktop). The cover is the image the card asks for (the page preloads it): the page's largest paint
 * is there once it arrives, not once the app has rendered the card; React's card shows the same image in the same box,
 * no larger paint after it. Unchanged when index.html has no skeleton markers.
 */
export function withCatalogFirstCard(html: string, card: CatalogFirstCard): string {
  const display = titleDisplay(card.title, LIMITS.titleShrinkThreshold);
  return withSkeleton(
    html,
    '<div class="boot__main boot__catalog"><div class="boot__head"><h1 class="boot__heading">Library</h1>' +
      `<p class="boot__count">${card.count} ${card.count === 1 ? 'title' : 'titles'}</p></div>` +
      '<div class="boot__topics"><span></span><span></span><span></span><span></span><span></span></div>' +
      '<div class="boot__controls"><span class="boot__formats"></span><span class="boot__sort"></span></div>' +
      `<div class="boot__cards"><div class="boot__tcard"><div class="boot__media"><img class="boot__cover" id="${BOOT_CATALOG_COVER_ID}" src="${escapeAttribute(card.cover)}" alt="${escapeAttribute(card.title)}" fetchpriority="high"></div>` +
      `<div class="boot__body"><p class="boot__label">${escapeText(formatLabel(card.contentFormat))}</p>` +
      `<h2 class="boot__title${display.shrink ? ' boot__title--shrink' : ''}">${escapeText(display.text)}</h2></div></div></div></div>`,
  );
}

/**
 * The answers the screen's first content is rendered from (core's firstScreenRequests: the home's sections, the
 * catalog's first page, a search's first page), for a signed-in reader, keyed by the address the client asks them at:
 * it takes them from the page instead of asking (the largest paint waited for that round trip after the app had
 * started: docs/decisions.md "Each screen's first answers in its page, its chunks named with it, renders in slices").
 * Each is asked of the app itself with the page request's cookies, so it passes every check the browser's own request
 * would (session, rights, the recently viewed cookie) and is the same answer; only a 200 is written, anything else is
 * left for the client to ask and handle as it always has.
 */
async function firstAnswers(app: FastifyInstance, request: FastifyRequest): Promise<Record<string, unknown>> {
  const at = request.url.indexOf('?');
  const urls = firstScreenRequests(at < 0 ? request.url : request.url.slice(0, at), new URLSearchParams(at < 0 ? '' : request.url.slice(at + 1)));
  const asked = await Promise.all(
    urls.map(async (url) => {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (request.headers.cookie) headers.cookie = request.headers.cookie;
      if (request.headers['user-agent']) headers['user-agent'] = request.headers['user-agent'];
      const answer = await app.inject({ method: 'GET', url, headers });
      return answer.statusCode === 200 && String(answer.headers['content-type'] ?? '').startsWith('application/json') ? ([url, answer.json()] as const) : null;
    }),
  );
  // written in the order asked, not the order answered: the same page is the same bytes (its ETag and compression)
  const answers: Record<string, unknown> = {};
  for (const entry of asked) if (entry) answers[entry[0]] = entry[1];
  return answers;
}

/** The page's data as written into it (packages/web api/boot.ts reads it). */
interface PageData {
  profile: AccountProfile | null;
  answers?: Record<string, unknown>;
  reader?: Record<string, unknown>;
}

/** What the build's server renderer (packages/web src/ssr.tsx, built into dist/ssr/ssr.js) exports. */
interface FirstScreenRenderer {
  FIRST_SCREEN_ATTRIBUTE: string;
  renderFirstScreen: (input: { url: string; cookie: string | null; page: PageData }, options?: { limitMs?: number }) => Promise<string | null>;
}

/**
 * How long a page waits for its first screen to be rendered here, its turn among the renders included (the renderer
 * renders one at a time): past it, the page is served as the browser renders it, as a visitor's is, and the log says
 * why (docs/decisions.md "The first screen rendered on the server, within a time limit"). A warm render takes a few
 * ms; the first of each screen loads its code, and on a loaded machine (CI) that neared 500 ms: the limit is for a
 * stuck render, not a slow one.
 */
export const FIRST_SCREEN_LIMIT_MS = 2_000;

/**
 * The renderer's screen for this page, or null (and a warning in the log saying why) when it fails or is not done
 * within FIRST_SCREEN_LIMIT_MS. The renderer is given the limit too (pages do not wait behind a render past it); the
 * limit is kept here as well, whatever the renderer does with it.
 */
async function renderedWithin(renderer: FirstScreenRenderer, input: Parameters<FirstScreenRenderer['renderFirstScreen']>[0], log: FastifyRequest['log']): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), FIRST_SCREEN_LIMIT_MS);
  });
  const notRendered = `the first screen was not rendered within ${FIRST_SCREEN_LIMIT_MS} ms: the page is served without it`;
  try {
    const screen = await Promise.race([renderer.renderFirstScreen(input, { limitMs: FIRST_SCREEN_LIMIT_MS }), late]);
    if (screen !== 'late') return screen;
    log.warn({ limitMs: FIRST_SCREEN_LIMIT_MS }, notRendered);
    return null;
  } catch (error) {
    if (error instanceof Error && error.name === 'FirstScreenTimeout') log.warn({ limitMs: FIRST_SCREEN_LIMIT_MS }, `${error.message}: the page is served without it`);
    else log.warn({ err: error }, 'the first screen was not rendered on the server');
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** Where index.html's #root holds the skeleton the server replaces with a rendered first screen. */
const SCREEN_START = '<!--lectern:screen-->';
const SCREEN_END = '<!--/lectern:screen-->';

/**
 * The build's renderer of first screens (docs/decisions.md "The first screen rendered on the server"), a bundle
 * made by `npm run build` (vite build --ssr): null when the build has none, when index.html has no place for a
 * screen, or when it does not load, and every page is then served as the browser renders it.
 */
export async function firstScreenRendererOf(webDist: string, indexHtml: string, log: FastifyInstance['log']): Promise<FirstScreenRenderer | null> {
  const file = path.join(webDist, 'ssr', 'ssr.js');
  if (!fs.existsSync(file) || !indexHtml.includes(SCREEN_START) || !indexHtml.includes(SCREEN_END)) return null;
  try {
    const renderer = (await import(pathToFileURL(file).href)) as Partial<FirstScreenRenderer>;
    if (typeof renderer.renderFirstScreen !== 'function' || typeof renderer.FIRST_SCREEN_ATTRIBUTE !== 'string') throw new Error('not a first-screen renderer');
    return renderer as FirstScreenRenderer;
  } catch (error) {
    log.warn({ err: error, file }, 'the first-screen renderer did not load: pages are rendered in the browser');
    return null;
  }
}

/** The attribute of the `<style>` that carries a server-rendered screen's stylesheets in its page. */
export const FIRST_SCREEN_STYLE_ATTRIBUTE = 'data-lectern-screen-css';

/** A stylesheet the page names as a preload (the entry's, vite.config.ts lazyStylesheets; its route's, routePagesOf). */
const STYLE_PRELOAD = /<link rel="preload" as="style"[^>]*?\shref="([^"]+)"[^>]*>/g;

/**
 * The text of the build's stylesheets by address, each read once: for `hrefs` (the page's stylesheet preloads, in
 * its order), their rules one after the other; null when one is not a file of the build's assets or could close the
 * `<style>` it is written into (the page then links them as before).
 */
export function stylesheetsOf(webDist: string): (hrefs: readonly string[]) => string | null {
  const read = new Map<string, string | null>();
  const textOf = (href: string): string | null => {
    if (!read.has(href)) {
      const name = /^\/assets\/([\w.-]+\.css)$/.exec(href)?.[1];
      const file = name ? path.join(webDist, 'assets', name) : null;
      const text = file && fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
      read.set(href, text !== null && !/<\/style/i.test(text) ? text : null);
    }
    return read.get(href)!;
  };
  return (hrefs) => {
    const texts = hrefs.map(textOf);
    return texts.every((t) => t !== null) ? texts.join('\n') : null;
  };
}

/**
 * A server-rendered screen's stylesheet links whose rules are in the page are `disabled`: never fetched nor applied
 * (applied after hydration, they restyled the whole page for rules it already had; linked for print, they were
 * still fetched with the page and held its first paint in some of Lighthouse's runs). They stay so the bundler's
 * loader, which counts `rel="stylesheet"` links as loaded, does not append the route's file again.
 */
const NOT_APPLIED = '<link rel="stylesheet" disabled';

/**
 * The page with `screen` (React's HTML of the first screen) in #root, marked for the app to hydrate, and
 * EARLY_INPUT_SCRIPT after it (what is done before the hydration is kept). The HTML is the screen itself, which must
 * not show unstyled: the page's stylesheets (the entry's and the route's) are written into it whole, in a `<style>`
 * at the end of its head (docs/decisions.md "The first screen rendered on the server": the screen's CSS in the page),
 * so the first paint waits for no other request, and their links are NOT_APPLIED. Without `styles` (or when it
 * has no text for them), the preloads become stylesheets that hold the paint.
 */
export function withFirstScreen(html: string, screen: string, attribute: string, styles?: (hrefs: readonly string[]) => string | null): string {
  const cut = around(html, SCREEN_START, SCREEN_END);
  if (!cut) return html;
  let before = cut[0].replace('<div id="root">', `<div id="root" ${attribute}>`);
  const hrefs = [...before.matchAll(STYLE_PRELOAD)].map((m) => m[1]!);
  const css = hrefs.length > 0 && before.includes('</head>') ? (styles?.(hrefs) ?? null) : null;
  if (css !== null) {
    before = before
      .replace(/<link rel="preload" as="style"/g, NOT_APPLIED)
      .replace('</head>', () => `<style ${FIRST_SCREEN_STYLE_ATTRIBUTE}>${css}</style>\n  </head>`);
  } else {
    // stylesheets that hold the paint now: at their default priority
    before = before.replace(/<link rel="preload" as="style"([^>]*?) fetchpriority="low"/g, '<link rel="preload" as="style"$1').replace(/<link rel="preload" as="style"/g, '<link rel="stylesheet"');
  }
  // the early script right after #root: it listens from the moment the screen can be seen, well before the app
  const rest = cut[1];
  const script = `<script>${EARLY_INPUT_SCRIPT}</script>`;
  const after = rest.startsWith('</div>') ? `</div>${script}${rest.slice('</div>'.length)}` : rest.replace('</body>', () => `${script}</body>`);
  return before + screen + after;
}

export interface BootDeps {
  /** The signed-in reader's profile as the profile route answers it; null without a live session. */
  profile: (request: FastifyRequest) => Promise<AccountProfile | null>;
  /**
   * For a reader address: the title's content_format as POST /api/v1/metadata/ answers it, the signed-in reader's
   * position of it as GET /api/v1/book/{id}/position/ answers it and their key as GET /nest/key/ does; null when
   * there is no such title or no signed-in reader.
   */
  readerStart: (
    request: FastifyRequest,
    bookId: string,
    href: string,
  ) => Promise<{ format: string; position: PositionResponse; key: string; heading?: ReaderHeading | null; long?: boolean } | null>;
  /** Each content address's cover_image_url as POST /api/v1/metadata/ answers it (entries for known titles only). */
  covers: (urls: string[]) => Promise<{ api_url?: unknown; cover_image_url?: unknown }[]>;
}

export async function webRoutes(
  app: FastifyInstance,
  webDist: string | null,
  page: { highlightPrivacy?: HighlightPrivacySetting } = {},
  boot: BootDeps = { profile: async () => null, readerStart: async () => null, covers: async () => [] },
): Promise<void> {
  const indexFile = webDist ? path.join(webDist, 'index.html') : null;
  const hasWeb = indexFile !== null && fs.existsSync(indexFile);
  if (hasWeb) {
    await app.register(fastifyStatic, {
      root: webDist!,
      prefix: '/',
      wildcard: false,
      index: false,
      decorateReply: false,
      // Ours, not the plugin's max-age=0 (which would also overwrite what setHeaders says).
      cacheControl: false,
      // The build writes .br and .gz copies of the text assets (vite.config.ts): sent to browsers that take them,
      // with no compression work per request. Uncompressed, the entry chunk alone is over 300 KB on the wire.
      preCompressed: true,
      // Source maps are not served (the build writes them for whoever reads a stack trace on the machine).
      globIgnore: ['**/*.br', '**/*.gz', '**/*.map', '**/route-preloads.json', '**/ssr/**'],
      setHeaders: (reply, filePath) => {
        reply.header('cache-control', cacheControlOf(filePath));
      },
    });
  }
  const indexHtml = hasWeb ? withPageAttributes(fs.readFileSync(indexFile, 'utf8'), highlightPrivacyAttributes(page.highlightPrivacy ?? 'private')) : null;
  const withForms = indexHtml?.includes(NOSCRIPT_MARKER) ?? false;
  const withBoot = indexHtml?.includes(BOOT_MARKER) ?? false;
  const pageHtml = routePagesOf(indexHtml, webDist);
  const chapterWorker = hasWeb ? chapterWorkerOf(webDist!) : null;
  const renderer = indexHtml && withBoot ? await firstScreenRendererOf(webDist!, indexHtml, app.log) : null;
  const styles = renderer ? stylesheetsOf(webDist!) : undefined;

  app.setNotFoundHandler(async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '/';
    const isPage = (request.method === 'GET' || request.method === 'HEAD') && (PAGES_UNDER_API.includes(pathname) || !API_PREFIXES.some((p) => pathname.startsWith(p)));
    if (!isPage || pathname.endsWith('.map')) return reply.status(404).send({ detail: APP_MESSAGES.notFound });
    if (!indexHtml) {
      return reply.status(503).type('text/plain').send('The web app is not built yet: run `npm run build`, then restart.');
    }
    let html = pageHtml(pathname);
    if (!withForms && !withBoot) return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(html);
    // The no-JavaScript forms carry this caller's CSRF token, the boot data their profile: the page is theirs alone,
    // kept by no shared cache and never answered to another cookie from the browser's own.
    // Replaced by a function: a `$'` or `$&` in an email would otherwise be read as a replacement pattern.
    if (withForms) {
      const forms = await noscriptForms(request);
      html = html.replace(NOSCRIPT_MARKER, () => forms);
    }
    let secret = false;
    if (withBoot) {
      const data = await bootData(app, request, pathname, boot, chapterWorker);
      html = data.page?.reader ? withBootFirst(html, data.html) : html.replace(BOOT_MARKER, () => data.html);
      if (data.heading) html = withReaderHeading(html, data.heading);
      if (data.playlist) html = withPlaylistHeading(html, data.playlist);
      if (data.catalog) html = withCatalogFirstCard(html, data.catalog);
      secret = data.secret;
      // a signed-in reader's first screen rendered here; whatever fails or is late, the page is the one the browser renders
      if (renderer && data.page?.profile) {
        const screen = await renderedWithin(renderer, { url: request.url, cookie: request.headers.cookie ?? null, page: data.page }, request.log);
        if (screen) html = withFirstScreen(html, screen, renderer.FIRST_SCREEN_ATTRIBUTE, styles);
      }
    }
    return reply
      .header('cache-control', secret ? 'private, no-store' : 'private, no-cache')
      .header('vary', 'Cookie')
      .type('text/html; charset=utf-8')
      .send(html);
  });
}
