/**
 * A keyset-paged admin list (core/admin.ts: `{ results, next_cursor }`): the cursors of the pages seen are kept,
 * so Previous goes back without the server counting offsets at 100,000 rows.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';

export function usePaged<Q extends object, T>(key: (q: Q & { cursor?: string }) => readonly unknown[], filter: Q, load: (q: Q & { cursor?: string }, signal: AbortSignal) => Promise<{ results: T[]; next_cursor: string | null }>) {
  const [trail, setTrail] = useState<{ filter: string; cursors: (string | undefined)[] }>({ filter: '', cursors: [undefined] });
  const filterKey = JSON.stringify(filter);
  // a new filter starts again at the first page
  const cursors = trail.filter === filterKey ? trail.cursors : [undefined];
  const cursor = cursors[cursors.length - 1];
  const q = { ...filter, ...(cursor ? { cursor } : {}) } as Q & { cursor?: string };
  const query = useQuery({ queryKey: key(q), queryFn: ({ signal }) => load(q, signal), placeholderData: keepPreviousData });
  return {
    query,
    page: cursors.length,
    next: query.data?.next_cursor ? () => setTrail({ filter: filterKey, cursors: [...cursors, query.data.next_cursor!] }) : null,
    previous: cursors.length > 1 ? () => setTrail({ filter: filterKey, cursors: cursors.slice(0, -1) }) : null,
  };
}
