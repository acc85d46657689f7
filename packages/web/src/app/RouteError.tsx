/** What a route shows when it throws while rendering or a lazy chunk fails to load. */
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { Button, ButtonLink } from '../components/Button.tsx';
import { NotFoundPage } from './NotFoundPage.tsx';
import { appPaths } from './links.ts';
import './RouteError.css';

export function RouteError() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage />;
  if (import.meta.env.DEV) console.error(error);
  return (
    <div className="page route-error" role="alert">
      <title>Something went wrong · Lectern</title>
      <h1 className="page-heading">Something went wrong</h1>
      <p className="route-error__text">This page could not be shown. Reloading usually helps.</p>
      <div className="route-error__actions">
        <Button size="lg" onClick={() => window.location.reload()}>
          Retry
        </Button>
        <ButtonLink to={appPaths.library} variant="secondary" size="lg" reloadDocument>
          Go to the library
        </ButtonLink>
      </div>
    </div>
  );
}
