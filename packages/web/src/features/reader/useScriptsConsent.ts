/**
 * The reader's answer to running a scripted title's scripts (docs/decisions.md "Scripted publications"), one cache
 * entry per title shared by the chapter view (which asks) and the settings panel (which withdraws). `decision` null:
 * not asked yet, or withdrawn. `unavailable`: the server runs no scripts for it (404).
 */
import type { ScriptsConsent } from '@lectern/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { isApiError } from '../../api/client.ts';
import { readerApi } from '../../api/reader.ts';
import { readerKeys } from '../../shared/reading/readerKeys.ts';

export function useScriptsConsent(bookId: string, enabled = true) {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: readerKeys.scriptsConsent(bookId),
    queryFn: ({ signal }) => readerApi.getScriptsConsent(bookId, signal),
    enabled,
    staleTime: 60_000,
    retry: (failures, error) => !(isApiError(error) && error.status >= 400 && error.status < 500) && failures < 2,
  });
  const settle = (answer: ScriptsConsent) => client.setQueryData(readerKeys.scriptsConsent(bookId), answer);
  const answer = useMutation({ mutationFn: (allow: boolean) => readerApi.answerScripts(bookId, allow), onSuccess: settle });
  const withdraw = useMutation({ mutationFn: () => readerApi.withdrawScriptsConsent(bookId), onSuccess: settle });
  return {
    decision: query.data?.decision,
    loading: query.isPending && enabled,
    unavailable: isApiError(query.error) && query.error.status === 404,
    failed: query.isError && !(isApiError(query.error) && query.error.status === 404),
    retry: () => void query.refetch(),
    answer,
    withdraw,
  };
}
