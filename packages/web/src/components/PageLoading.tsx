import { Spinner } from './Spinner.tsx';

/** The page shown while a page's code or its first data is on its way (styles: .page-loading in app/Shell.css). */
export function PageLoading() {
  return (
    <div className="page page-loading">
      <Spinner size="lg" label="Loading…" />
    </div>
  );
}
