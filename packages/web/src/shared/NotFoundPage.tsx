import { useLocation } from 'react-router';
import { ButtonLink } from '../components/Button.tsx';
import { appPaths } from './links.ts';
import './NotFoundPage.css';

/** Any address the app does not know, and books or chapters the server does not know. */
export function NotFoundPage({ message }: { message?: string }) {
  const { pathname } = useLocation();
  return (
    <div className="page not-found">
      <title>Page not found · Lectern</title>
      <p className="not-found__code" aria-hidden="true">
        404
      </p>
      <h1 className="page-heading">Page not found</h1>
      {/* reader.md §2: any other path is reported as an error saying no route exists for it */}
      <p className="not-found__text">{message ?? `No route exists for ${pathname}. The page you are looking for does not exist or has moved.`}</p>
      <ButtonLink to={appPaths.library} size="lg">
        Go to the library
      </ButtonLink>
    </div>
  );
}
