/**
 * The console's lists (Titles, People, Audit log, a title's readers): a heading, a search form whose fields the page
 * gives, and a keyset-paged table (usePaged) with its loading, error and empty states and its pager.
 */
import { CONSOLE_MESSAGES as M } from '@lectern/core';
import type { ReactNode } from 'react';
import { isApiError } from '../../api/client.ts';
import { Button } from '../../components/Button.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { Pager } from './Pager.tsx';
import type { usePaged } from './usePaged.ts';

/** One column: its heading, its cell, and a class for both (`num`, `admin-nowrap`). */
export type AdminColumn<T> = { header: string; cell: (row: T) => ReactNode; className?: string };

type Paged<T> = ReturnType<typeof usePaged<object, T>>;

export type PagedTableProps<T> = {
  paged: Paged<T>;
  columns: AdminColumn<T>[];
  rowKey: (row: T) => string;
  /** the table's region name ("Titles list") and the pager's ("Titles pages") */
  label: string;
  pagerLabel: string;
  empty?: ReactNode;
  /** on a phone, each row as a stack of labelled lines instead of a table scrolled sideways (the audit log) */
  stacked?: boolean;
};

/** The paged table alone, with its states: for a list inside a page (a title's readers). */
export function PagedTable<T>({ paged, columns, rowKey, label, pagerLabel, empty = M.noResults, stacked = false }: PagedTableProps<T>) {
  const { query, page, next, previous } = paged;
  return (
    <>
      {query.isPending ? <Spinner label="Loading…" /> : query.isError ? <ErrorState message={isApiError(query.error) ? query.error.detail : M.loadFailed} onRetry={() => void query.refetch()} /> : null}
      {query.data ? (
        query.data.results.length ? (
          <div className="admin-table-wrap" tabIndex={0} role="region" aria-label={label}>
            <table className={stacked ? 'admin-table admin-table--stacked' : 'admin-table'}>
              <thead>
                <tr>
                  {columns.map((c) => (
                    <th key={c.header} className={c.className}>
                      {c.header}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {query.data.results.map((row) => (
                  <tr key={rowKey(row)}>
                    {columns.map((c) => (
                      <td key={c.header} className={c.className} data-label={stacked ? c.header : undefined}>
                        {c.cell(row)}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p className="admin-muted">{empty}</p>
        )
      ) : null}
      <Pager page={page} next={next} previous={previous} label={pagerLabel} />
    </>
  );
}

/**
 * A console section that is a list: `filters` are the form's fields, `onSearch` applies what was typed (the page
 * keeps the typed and the applied filter apart, so typing does not fetch); `children` come after the pager.
 */
export function AdminListPage<T>({
  title,
  filters,
  submitLabel = 'Search',
  onSearch,
  children,
  ...table
}: PagedTableProps<T> & { title: string; filters: ReactNode; submitLabel?: string; onSearch: () => void; children?: ReactNode }) {
  return (
    <div>
      <div className="admin-head">
        <h1 className="page-heading">{title}</h1>
      </div>
      <form
        className="admin-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          onSearch();
        }}
      >
        {filters}
        <Button type="submit" variant="secondary">
          {submitLabel}
        </Button>
      </form>
      <PagedTable {...table} />
      {children}
    </div>
  );
}
