/**
 * The annotation store as the reader's layer uses it (reader.md §4 "Annotations", §8): one auth token for the page,
 * a chapter's annotations asked for by its prefix, the drafts a new highlight or note and a change send, and a
 * failure turned into the §8 notice (a 401 drops the token, so the next call asks for a new one).
 */
import { ANNOTATION_LIMITS, ANNOTATION_TYPE_NOTE, annotationPaths, storeErrorNotice, withSharing, type Annotation, type SharingChoices } from '@lectern/core';
import { api, isApiError, type AnnotationDraft } from '../../../api/client.ts';
import type { RangeDescription } from './anchoring.ts';
import { TokenFailure, TokenKeeper } from './tokenKeeper.ts';

/** What the editor (or the adder's Add Highlight) saves. */
export interface NoteFields {
  text: string;
  tags: string[];
  sharing: SharingChoices;
}

export type StoreAction = 'create' | 'update' | 'delete' | 'read' | 'search';

/** One token keeper for the page: every chapter's store calls share it. */
const tokens = new TokenKeeper(() => api.annotationToken());
export const annotationToken = () => tokens.get();

/**
 * The §8 notice for a failed store call (no answer at all reads as "not found"); when the call never got as far as
 * the store because the token could not be had, "Couldn't get auth token:" and why.
 */
export function failureNotice(e: unknown, action: StoreAction): string {
  if (e instanceof TokenFailure) return e.message;
  if (isApiError(e) && e.status === 401) tokens.invalidate();
  const status = isApiError(e) ? e.status : 0;
  return storeErrorNotice(status === 0 ? 404 : status, action);
}

/** The annotations of one chapter: asked for by its prefix, kept to those of the chapter itself. */
export async function chapterAnnotations(prefix: string, href: string): Promise<Annotation[]> {
  const token = await tokens.get();
  return (await api.searchAnnotations(prefix, token, { limit: ANNOTATION_LIMITS.searchLimitMax })).rows.filter((a) => a.chapter_href === href);
}

/** A new highlight (no text) or note on a described selection; a preview's is a preview annotation. */
export function newDraft(description: RangeDescription, fields: NoteFields & { preview?: boolean }, uri: string): AnnotationDraft {
  return {
    quote: description.quote,
    ranges: description.ranges,
    selectors: description.selectors,
    text: fields.text,
    tags: fields.tags,
    uri,
    is_public: fields.sharing.view,
    permissions: withSharing({ read: [], update: [], delete: [], admin: [] }, fields.sharing),
    annotation_type: fields.preview ? 'preview_annotation' : ANNOTATION_TYPE_NOTE,
  };
}

/** A change to an annotation's text, tags and sharing, its other permissions kept. */
export function changeDraft(a: Annotation, fields: NoteFields): AnnotationDraft {
  return { text: fields.text, tags: fields.tags, is_public: fields.sharing.view, permissions: withSharing(a.permissions, fields.sharing) };
}

export async function saveNew(prefix: string, draft: AnnotationDraft): Promise<Annotation> {
  return api.createAnnotation(prefix, await tokens.get(), draft);
}

/** An annotation's own prefix (its chapter's: the notes panel changes those of other chapters too). */
const prefixOf = (titleSafe: string, bookId: string, a: Annotation) => annotationPaths.prefix(titleSafe || 'book', bookId, a.chapter_href);

export async function saveChange(titleSafe: string, bookId: string, a: Annotation, draft: AnnotationDraft): Promise<Annotation> {
  return api.updateAnnotation(prefixOf(titleSafe, bookId, a), await tokens.get(), a.id, draft);
}

export async function deleteAnnotation(titleSafe: string, bookId: string, a: Annotation): Promise<void> {
  await api.deleteAnnotation(prefixOf(titleSafe, bookId, a), await tokens.get(), a.id);
}
