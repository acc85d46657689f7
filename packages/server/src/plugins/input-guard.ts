/**
 * Checks every request's input once, before any route sees it: path parameters, the query and the parsed body
 * (JSON or form). A NUL character (U+0000) is refused with a 400 that names the field: PostgreSQL cannot store
 * it in text and answered every such value with an error (a 500), and no field of ours has a use for it.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

export const NUL_MESSAGE = 'must not contain the NUL character (U+0000).';

/** The path (dotted, as the zod errors name fields) of the first string or key holding a NUL, or null. */
export function findNul(value: unknown, root: string): string | null {
  // Iterative: a deeply nested JSON body must not overflow the stack (that would be a 500 of its own).
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return path;
    } else if (current !== null && typeof current === 'object') {
      for (const [key, child] of Object.entries(current)) {
        const childPath = path ? `${path}.${key}` : key;
        if (key.includes('\u0000')) return childPath.replaceAll('\u0000', '\\u0000');
        stack.push([child, childPath]);
      }
    }
  }
  return null;
}

/**
 * Whether any string or key in `value` holds a NUL: findNul's walk without making a path for every key, which
 * every JSON body paid for (the reader's chapter request is one); the path is made only for a value that has one.
 */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  const stack: object[] = [value];
  while (stack.length) {
    const current = stack.pop() as Record<string, unknown>;
    // own enumerable string keys, as Object.entries in findNul
    for (const key in current) {
      if (!Object.hasOwn(current, key)) continue;
      if (key.includes('\u0000')) return true;
      const child = current[key];
      if (typeof child === 'string') {
        if (child.includes('\u0000')) return true;
      } else if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
  return false;
}

export function registerInputGuard(app: FastifyInstance): void {
  // Callback style: an async hook costs every request a promise and a microtask hop even when it returns at once.
  app.addHook('preValidation', (request, _reply, done) => {
    // Without a body, a NUL can only come from a %00 in the address (the HTTP parser refuses a raw one): most
    // requests are GETs, and walking their parameters and query for nothing was measurable (bench/http.ts).
    if (request.body === undefined && !request.url.includes('%00')) return done();
    if (!containsNul(request.params) && !containsNul(request.query) && !containsNul(request.body)) return done();
    const field = findNul(request.params, '') ?? findNul(request.query, '') ?? findNul(request.body, '');
    if (field === null) return done();
    // The wildcard of /chapter/* is the chapter's path.
    const name = field === '*' ? 'path' : field || 'body';
    done(new AppError(400, `${name}: ${NUL_MESSAGE}`, { [name]: [NUL_MESSAGE] }));
  });
}
