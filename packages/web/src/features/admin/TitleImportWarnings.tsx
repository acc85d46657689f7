/**
 * A title's import warnings in its console page (docs/decisions.md "A chapter that is not well-formed"): what the
 * importer forgave in the file, and the chapters readers see recovered (not well-formed XHTML, read with the HTML
 * parser's recovery, shown with a notice).
 */
import { useQuery } from '@tanstack/react-query';
import { CONSOLE_MESSAGES as M } from '@lectern/core';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { ErrorState } from '../../components/ErrorState.tsx';

export function TitleImportWarnings({ bookId }: { bookId: string }) {
  const query = useQuery({ queryKey: adminKeys.titleWarnings(bookId), queryFn: ({ signal }) => adminApi.titleWarnings(bookId, signal) });
  const data = query.data;
  return (
    <section className="admin-panel" aria-labelledby="admin-title-warnings">
      <h2 id="admin-title-warnings">{M.importWarningsHeading}</h2>
      {query.isError ? <ErrorState message={M.loadFailed} onRetry={() => void query.refetch()} /> : null}
      {data && !data.recorded ? <p className="admin-muted">{M.importWarningsUnknown}</p> : null}
      {data?.recorded && !data.warnings.length && !data.recovered_chapters.length ? <p className="admin-muted">{M.importWarningsNone}</p> : null}
      {data?.recovered_chapters.length ? (
        <>
          <p className="admin-hint">{M.recoveredChaptersHint}</p>
          <ul className="admin-import__warnings" aria-label="Chapters shown recovered">
            {data.recovered_chapters.map((c) => (
              <li key={c.full_path}>
                {c.label || c.full_path}: {c.problem}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {data?.warnings.length ? (
        <ul className="admin-import__warnings" aria-label={M.importWarningsHeading}>
          {data.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
