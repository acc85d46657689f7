/**
 * The one position type (DESIGN.md, after Readium's Locator): where a reader is in a book, for resuming on any
 * device, and later for annotations and search hits. `href` is the chapter's path in the book (its chapter_href,
 * no fragment), `progression` how far into that chapter (0 to 1), and `text` a few words at the spot that find the
 * same place again after any re-layout (`highlight` starts at the spot; `before` and `after` surround it).
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';

export const LOCATOR_LIMITS = { href: 1000, highlight: 200, context: 100 } as const;

export const locatorSchema = lazySchema(() => z.object({
  href: z
    .string()
    .min(1, 'href is required.')
    .max(LOCATOR_LIMITS.href, `href must be at most ${LOCATOR_LIMITS.href} characters.`)
    .refine((h) => !h.includes('#'), 'href names a chapter, without a fragment.'),
  progression: z.number().min(0, 'progression must be from 0 to 1.').max(1, 'progression must be from 0 to 1.'),
  text: z
    .object({
      before: z.string().max(LOCATOR_LIMITS.context, `before must be at most ${LOCATOR_LIMITS.context} characters.`).optional(),
      highlight: z.string().max(LOCATOR_LIMITS.highlight, `highlight must be at most ${LOCATOR_LIMITS.highlight} characters.`).optional(),
      after: z.string().max(LOCATOR_LIMITS.context, `after must be at most ${LOCATOR_LIMITS.context} characters.`).optional(),
    })
    .strict()
    .optional(),
}).strict());
export type Locator = z.infer<typeof locatorSchema>;

/** PUT /api/v1/book/{book_id}/position/ */
export const positionRequestSchema = lazySchema(() => z.object({ locator: locatorSchema }).strict());
export type PositionRequest = z.infer<typeof positionRequestSchema>;

/** A stored position: the locator and when the server took it (ISO-8601, the server's clock). */
export const readingPositionSchema = lazySchema(() => z.object({ locator: locatorSchema, updated_at: z.string() }));
export type ReadingPosition = z.infer<typeof readingPositionSchema>;

/** GET and PUT /api/v1/book/{book_id}/position/ answer `{position}`; null when nothing is stored. */
export const positionResponseSchema = lazySchema(() => z.object({ position: readingPositionSchema.nullable() }));
export type PositionResponse = z.infer<typeof positionResponseSchema>;
