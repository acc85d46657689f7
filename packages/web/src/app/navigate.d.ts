// The app runs under <BrowserRouter> (App.tsx; the tests under <MemoryRouter>): in that declarative mode `navigate`
// returns nothing. react-router types it `void | Promise<void>` for its data routers, which would make every
// `navigate()` a floating promise to the type-aware lint; its documentation gives this narrowing for BrowserRouter.
// A switch to createBrowserRouter must delete this file (navigate then returns a promise).
import type { NavigateOptions, To } from 'react-router';

declare module 'react-router' {
  interface NavigateFunction {
    (to: To, options?: NavigateOptions): void;
    (delta: number): void;
  }
}
