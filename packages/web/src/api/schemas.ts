/**
 * The core zod schemas the client parses answers with, gathered in one module that the client loads on its
 * first request. Keeping zod out of the entry chunk lets the shell and the loading skeletons paint before the
 * validation code has arrived (DESIGN.md: entry chunk ≤ 120 KB gzip); the import runs alongside the first fetch.
 */
import {
  accountProfileSchema,
  bookDetailSchema,
  chapterContentSchema,
  contentMetadataSchema,
  errorBodySchema,
  pagedSchema,
  topicSchema,
} from '@lectern/core';
import type { Parser, TopicCount } from './client.ts';

export { accountProfileSchema, bookDetailSchema, chapterContentSchema, errorBodySchema };

export const bookPageSchema = pagedSchema(contentMetadataSchema);

/** `GET /api/v1/topics/` answer. Core has only the item schema (name, slug); the count is checked here. */
export const topicListParser: Parser<{ results: TopicCount[] }> = {
  safeParse(input) {
    const results = (input as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) return { success: false, error: 'results is not a list' };
    const out: TopicCount[] = [];
    for (const item of results) {
      const topic = topicSchema.safeParse(item);
      const count = (item as { count?: unknown } | null)?.count;
      if (!topic.success) return { success: false, error: topic.error };
      if (typeof count !== 'number' || !Number.isInteger(count)) return { success: false, error: 'count is not an integer' };
      out.push({ ...topic.data, count });
    }
    return { success: true, data: { results: out } };
  },
};
