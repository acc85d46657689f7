/**
 * A scripted title's frame document, as the importer stores it (ingest/render.ts makes it): its media type and shape,
 * apart from the renderer so that the services reading one (services/scripted-frames.ts) do not load the sanitiser.
 */
import type { RootAttributes } from '@lectern/core';

/**
 * A scripted title's document shown in an iframe and in no chapter's place (a manifest item outside the spine), as
 * the importer stores it in place of the book's file: rendered and sanitised like a chapter, served as a page only
 * on the publication's scripted origin (scripted-origin.ts), and as text anywhere else (plugins/book-files.ts).
 */
/** At most so many frame documents per book: each is a page rendered at import (a book of hundreds is not a book). */
export const MAX_FRAME_DOCUMENTS = 200;
export const FRAME_DOCUMENT_TYPE = 'application/vnd.lectern.frame-document+json';
export interface FrameDocument {
  html: string;
  stylesheets: string[];
  root: RootAttributes | null;
  title: string | null;
  /** The chapters whose iframes (or whose frame documents' iframes) show it: a reader who may read one may read it. */
  chapters: string[];
}
