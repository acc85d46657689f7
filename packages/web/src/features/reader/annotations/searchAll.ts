/**
 * Every annotation a store search matches, asked for a page (ANNOTATION_LIMITS.searchLimitMax) at a time with
 * `offset` until the answer's `total` is in: one search stops at 1,000 rows. The store orders its search by creation
 * time and id, so pages do not overlap.
 */
import { ANNOTATION_LIMITS, type Annotation } from '@lectern/core';
import { api } from '../../../api/client.ts';

export async function searchAllAnnotations(prefix: string, token: string, query: { user?: string }, signal?: AbortSignal): Promise<Annotation[]> {
  const limit = ANNOTATION_LIMITS.searchLimitMax;
  const rows: Annotation[] = [];
  for (;;) {
    const page = await api.searchAnnotations(prefix, token, { ...query, limit, offset: rows.length }, signal);
    rows.push(...page.rows);
    if (page.rows.length < limit || rows.length >= page.total || rows.length > ANNOTATION_LIMITS.searchOffsetMax) return rows;
  }
}
