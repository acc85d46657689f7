/**
 * The attack suite's fuzz inputs (fast-check), generated for any route of the table: path parameters fuzzed, real
 * or another of the world's objects, a query of the route's own keys and strangers, and a body that is either anything at all or the route's
 * well-formed body with one value somewhere inside replaced (else almost every request fails the first check).
 * A multipart upload route mostly gets hostile multipart bodies (no boundary, lying parts); a page of the web app
 * also gets addresses sent as they are (RAW_PAGE_PATHS).
 * POST /login/ is also sent as the no-JavaScript form, with the right password, so that the success redirect, which
 * carries `next`, is reached (a newline there was a 500).
 */
import fc from 'fast-check';
import { fillPath, paramsOf, type TableRoute } from './route-table.ts';
import { PASSWORD, requestOf, type World } from './world.ts';

/** Values that broke parsers, databases and Date before: weighted up so that a few runs meet them. */
const nasty = fc.constantFrom('', ' ', '..', '../..', '%', '%00', '\u0000', '\n', '\r\n', '\u2028', '\ud800', '-1', '0', '1e308', 'NaN', 'Infinity', '9'.repeat(30), 'null', '[]', '{}', '//evil.example', '/\\evil', "'", '"', '\\', 'a'.repeat(5000), '\u00e9\u{1f600}');
export const text = fc.oneof(
  { arbitrary: nasty, weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.tuple(fc.string({ maxLength: 8 }), nasty, fc.string({ maxLength: 8 })).map((parts) => parts.join('')), weight: 2 },
);
export const jsonish: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: text, weight: 2 },
  { arbitrary: fc.double(), weight: 2 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.constantFrom(1e21, -1e21, 8.64e15 + 1, -8.64e15 - 1, Number.MAX_SAFE_INTEGER, -0, 0.5, 50, 100, true, false, null), weight: 3 },
  { arbitrary: fc.array(text, { maxLength: 4 }), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
);

function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return 'x';
  }
}

/** Every place inside a JSON value (as key paths), the value itself included. */
function placesIn(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const inner =
    Array.isArray(value) ? value.flatMap((v, i) => placesIn(v, [...at, i])) : value && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => placesIn(v, [...at, k])) : [];
  return [at, ...inner];
}

/** A copy of `value` with the value at `place` replaced (or, for a missing key, added). */
function replaced(value: unknown, place: (string | number)[], by: unknown): unknown {
  if (!place.length) return by;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a copy of any JSON value, indexed by a path of keys
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[place[0]!] = replaced(copy[place[0]!], place.slice(1), by);
  return copy;
}

/**
 * Addresses sent as they are (not encoded) to the web app's pages: what a browser's URL parser refuses or reads
 * otherwise (a second slash making a host, a backslash for a slash, an unclosed bracket), and climbs out of the build.
 */
export const RAW_PAGE_PATHS = ['//[', '//evil.example/', '/\\[', '//x:y@[', '//%5B', '//[::1', '/./../', '/%2e%2e/%2e%2e/etc/passwd', '/assets/../../../etc/passwd', '/assets/%2e%2e/%2e%2e/package.json', '//a%20b', '/login/?next=//['];

export interface FuzzedRequest {
  url: string;
  body?: unknown;
  /** an url-encoded form instead of JSON */
  form?: string;
  /** a raw body with its own Content-Type (multipart uploads) */
  raw?: { payload: string; contentType: string };
}

/** Multipart uploads as a hostile client sends them: no boundary, an empty or quoted one, parts that lie. */
const multipart = fc.record({
  contentType: fc.oneof(
    fc.constantFrom('multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary="', 'multipart/form-data; boundary=x; boundary=y', 'multipart/form-data; boundary=x', 'multipart/mixed; boundary=x'),
    text.map((t) => `multipart/form-data; boundary=${t}`),
  ),
  name: fc.oneof(fc.constant('file'), text),
  filename: fc.oneof(fc.constantFrom('book.epub', 'cover.png', '../../etc/passwd', ''), text),
  content: fc.oneof(text, fc.constant('PK\u0003\u0004')),
  close: fc.boolean(),
}).map(({ contentType, name, filename, content, close }) => ({
  contentType,
  payload: `--x\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n${close ? '--x--\r\n' : ''}`,
}));

export function fuzzedRequest(route: TableRoute, world: World): fc.Arbitrary<FuzzedRequest> {
  const real = requestOf(world, route);
  const names = paramsOf(route.url);
  const realValue = (name: string) => world.objects[route.params?.[name] ?? name] ?? name;
  const wellFormed = real.body;
  const places = placesIn(wellFormed ?? {});
  const keys = [...Object.keys(route.query ?? {}), ...(wellFormed && typeof wellFormed === 'object' ? Object.keys(wellFormed) : [])];
  return fc
    .record({
      // the real object, fuzz, or another of the world's objects (a playlist's id where a book's goes, the hostile book)
      params: fc.tuple(...names.map(() => fc.oneof(fc.constant(null), text, fc.constantFrom(...Object.values(world.objects)).map((v) => ({ object: v }))))),
      query: fc.oneof(
        fc.constant(null),
        fc.dictionary(fc.oneof(fc.constantFrom(...(keys.length ? keys : ['q'])), fc.string({ maxLength: 5 })), fc.oneof(text, fc.array(text, { maxLength: 3 })), { maxKeys: 4 }),
      ),
      body: fc.oneof(
        { arbitrary: jsonish, weight: 1 },
        { arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(...(keys.length ? keys : ['x'])), fc.string({ maxLength: 5 })), jsonish, { maxKeys: 4 }), weight: 1 },
        { arbitrary: fc.tuple(fc.nat(), jsonish).map(([i, v]) => replaced(wellFormed ?? {}, places[i % places.length]!, v)), weight: 2 },
      ),
      upload: route.multipart ? fc.option(multipart, { freq: 3 }) : fc.constant(null),
      // (those inject can send: it reads the address as a URL first, where a backslash is a slash)
      rawPath: route.served === 'page' ? fc.option(fc.constantFrom(...RAW_PAGE_PATHS.filter((p) => !p.includes('\\'))), { freq: 2 }) : fc.constant(null),
      form: fc.option(
        fc.record({
          next: fc.oneof(text, fc.tuple(fc.constant('/library/'), text).map(([a, b]) => a + b)),
          fields: fc.dictionary(fc.constantFrom('email', 'password', 'x'), text, { maxKeys: 1 }),
        }),
      ),
    })
    .map(({ params, query, body, upload, form, rawPath }) => {
      if (rawPath) return { url: rawPath };
      let url = fillPath(route.url, (name) => {
        const v = params[names.indexOf(name)];
        const value = v === null || v === undefined ? realValue(name) : typeof v === 'object' ? v.object : null;
        if (value !== null) return name === '*' ? value.split('/').map(encodeSegment).join('/') : encodeSegment(value);
        return encodeSegment(v as string);
      });
      if (query === null) url += real.url.includes('?') ? real.url.slice(real.url.indexOf('?')) : '';
      else {
        const search = new URLSearchParams();
        for (const [k, v] of Object.entries(query)) for (const one of ([] as string[]).concat(v)) search.append(k, one);
        if ([...search].length) url += `?${search}`;
      }
      if (route.key === 'POST /login/' && form)
        return { url, form: new URLSearchParams({ email: 'subscriber@example.com', password: PASSWORD, next: String(form.next), ...form.fields }).toString() };
      if (upload) return { url, raw: upload };
      return { url, body };
    });
}
