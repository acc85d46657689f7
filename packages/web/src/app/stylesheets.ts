/**
 * The entry's stylesheets, which the build names as preloads so they do not hold the first paint (vite.config.ts,
 * lazyStylesheets; index.html draws the shell with inline styles meanwhile): each becomes a stylesheet, and the
 * promise resolves once every one has applied (or failed: the app still renders, as it would without them).
 */
export const LAZY_CSS_SELECTOR = 'link[rel="preload"][as="style"][data-lectern-css]';

export function applyStylesheets(doc: Document): Promise<void> {
  const links = [...doc.querySelectorAll<HTMLLinkElement>(LAZY_CSS_SELECTOR)];
  return Promise.all(
    links.map(
      (preload) =>
        new Promise<void>((resolve) => {
          const sheet = doc.createElement('link');
          sheet.rel = 'stylesheet';
          // the attribute as the preload has it: what Vite's preload helper looks for before adding a sheet again
          sheet.setAttribute('href', preload.getAttribute('href') ?? preload.href);
          // the same credentials mode as the preload, or the browser fetches it again
          if (preload.crossOrigin !== null) sheet.crossOrigin = preload.crossOrigin;
          sheet.onload = sheet.onerror = () => resolve();
          preload.after(sheet);
        }),
    ),
  ).then(() => undefined);
}
