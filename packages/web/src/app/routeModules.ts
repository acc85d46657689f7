/**
 * The page module each address opens with, for the pages whose code router.tsx loads on demand. The build
 * (vite.config.ts, plugin `routePreloads`) turns this into route-preloads.json: per address, the chunks and
 * stylesheets that module needs beyond the entry. The server names them in that address's index.html, so the
 * browser fetches the page's code alongside the entry instead of after the entry has run (on a phone, the entry's
 * start-up is most of a second at Lighthouse's CPU x4). Keep it in step with router.tsx (a test checks each module
 * is one router.tsx loads). Plain data: the build reads it in Node.
 */
export const ROUTE_MODULES: readonly { readonly path: string; readonly module: string }[] = [
  // `/` sends to the home
  { path: '^/$', module: 'src/features/home/HomePage.tsx' },
  { path: '^/home/', module: 'src/features/home/HomePage.tsx' },
  { path: '^/c/', module: 'src/features/playlists/PlaylistsArea.tsx' },
  { path: '^/(search|noresults)/', module: 'src/features/search/SearchPage.tsx' },
  { path: '^/library/view/', module: 'src/features/reader/ReaderPage.tsx' },
  { path: '^/library/book/', module: 'src/features/title/TitlePage.tsx' },
  { path: '^/login/', module: 'src/features/account/LoginPage.tsx' },
  { path: '^/register/', module: 'src/features/account/RegisterPage.tsx' },
  { path: '^/u$', module: 'src/features/account/AccountPage.tsx' },
  { path: '^/subscribe/', module: 'src/features/account/SubscribePage.tsx' },
  { path: '^/live-training/?$', module: 'src/features/live-training/LiveTrainingPage.tsx' },
  { path: '^/admin(/|$)', module: 'src/features/admin/AdminArea.tsx' },
];
