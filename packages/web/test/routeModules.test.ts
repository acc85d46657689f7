/**
 * routeModules.ts names, per address, the page module the server preloads (packages/server/src/routes/web.ts);
 * each must be a module router.tsx loads on demand, or the address would preload code its page does not open with
 * (the build also fails on a module that is no chunk of its own).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTE_MODULES } from '../src/app/routeModules.ts';

const router = readFileSync(join(__dirname, '..', 'src', 'app', 'router.tsx'), 'utf8');
const loaded = new Set([...router.matchAll(/\bimport\(\s*'\.\.\/([^']+)'\s*\)/g)].map((m) => `src/${m[1]}`));

describe('ROUTE_MODULES', () => {
  it('names only modules router.tsx loads on demand, for the addresses that open them', () => {
    for (const { module } of ROUTE_MODULES) expect(loaded, module).toContain(module);
    const pageOf = (p: string) => ROUTE_MODULES.find((r) => new RegExp(r.path).test(p))?.module;
    expect(pageOf('/')).toBe('src/features/home/HomePage.tsx');
    expect(pageOf('/home/')).toBe('src/features/home/HomePage.tsx');
    expect(pageOf('/c/collection/abc/')).toBe('src/features/playlists/PlaylistsArea.tsx');
    expect(pageOf('/search/?q=x')).toBe('src/features/search/SearchPage.tsx');
    expect(pageOf('/library/view/moby-dick/abc/ch1.xhtml')).toBe('src/features/reader/ReaderPage.tsx');
    // the catalog is in the entry: nothing more to name
    expect(pageOf('/library/')).toBeUndefined();
  });
});
