/**
 * Path arithmetic for files inside a book package. Books reference each other's files with relative URLs
 * (percent-encoded, with "../", "./", queries and fragments); everything we store is keyed by a plain decoded
 * posix path, so every href goes through resolveHref exactly once.
 */

export interface ResolvedHref {
  path: string;
  fragment: string | null;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** True for URLs that leave the package: "http:", "mailto:", "javascript:", "data:", "//host/...". */
export function isAbsoluteUrl(href: string): boolean {
  const trimmed = href.trim();
  return SCHEME.test(trimmed) || trimmed.startsWith('//');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/**
 * Joins and normalises slash-separated segments; null when ".." climbs above the root, unless `clamp` (then the
 * path stays at the root, as a browser's URL parser does with "/../x").
 * With `decode`, each segment is percent-decoded after splitting, so "%2F" cannot introduce a separator.
 */
export function normalisePath(path: string, decode = false, clamp = false): string | null {
  const out: string[] = [];
  for (const raw of path.split('/')) {
    const segment = decode ? safeDecode(raw) : raw;
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) {
        if (clamp) continue;
        return null;
      }
      out.pop();
    } else {
      out.push(segment);
    }
  }
  return out.join('/');
}

/**
 * Resolves a relative URL found in the file at `from` (a package path). Returns null for absolute URLs; a path
 * that climbs above the package root is clamped to the root ("../../x.png" from "a.xhtml" is "x.png"), as the
 * EPUB reading-system rules and every browser do. "#x" resolves to `from` itself with fragment "x"; a leading "/" is
 * taken from the package root.
 */
export function resolveHref(from: string, href: string, decode = true): ResolvedHref | null {
  const trimmed = href.trim();
  if (isAbsoluteUrl(trimmed)) return null;
  const hash = trimmed.indexOf('#');
  const fragment = hash < 0 ? null : safeDecode(trimmed.slice(hash + 1)) || null;
  let pathPart = hash < 0 ? trimmed : trimmed.slice(0, hash);
  const query = pathPart.indexOf('?');
  if (query >= 0) pathPart = pathPart.slice(0, query);
  if (pathPart === '') return { path: from, fragment };
  const base = pathPart.startsWith('/') ? '' : dirname(from);
  const path = normalisePath(base ? `${base}/${pathPart}` : pathPart, decode, true);
  return path ? { path, fragment } : null;
}

/** The path relative to `folder` (a prefix of it), or the path itself when `folder` is the root. */
export function relativeTo(folder: string, path: string): string {
  return folder ? path.slice(folder.length + 1) : path;
}

/** The deepest folder containing every given path's folder. */
export function commonFolder(folders: Iterable<string>): string {
  let common: string[] | null = null;
  for (const folder of folders) {
    const parts = folder ? folder.split('/') : [];
    if (common === null) {
      common = parts;
      continue;
    }
    let i = 0;
    while (i < common.length && i < parts.length && common[i] === parts[i]) i++;
    common = common.slice(0, i);
  }
  return common ? common.join('/') : '';
}
