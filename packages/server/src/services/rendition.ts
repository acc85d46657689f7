/**
 * How a title and its chapters ask to be laid out (migration 0022, ingest/rendition.ts), as the reader gets it: our
 * `rendition` field of the chapter, the archive item and the contents (core's renditionSchema). Nothing for rows
 * imported before (the reader takes them as reflowable) and for PDFs.
 */
import type { Rendition } from '@lectern/core';

type Layout = Rendition['layout'];
type Spread = Rendition['spread'];
type Flow = Rendition['flow'];
type Side = NonNullable<Rendition['page_spread']>;

const LAYOUTS: readonly Layout[] = ['reflowable', 'pre-paginated'];
const SPREADS: readonly Spread[] = ['none', 'landscape', 'both', 'auto'];
const FLOWS: readonly Flow[] = ['paginated', 'scrolled-continuous', 'scrolled-doc', 'auto'];
const SIDES: readonly Side[] = ['left', 'right', 'center'];

const oneOf = <T extends string>(values: readonly T[], value: string | null | undefined, fallback: T): T => (values.includes(value as T) ? (value as T) : fallback);

interface StoredRendition {
  rendition_layout: string | null;
  rendition_spread: string | null;
  rendition_flow: string | null;
  viewport_width: number | null;
  viewport_height: number | null;
  page_spread?: string | null;
}

/** A stored title or chapter row's rendition; undefined when it has none (imported before 0022, or a PDF). */
export function renditionOf(row: StoredRendition): Rendition | undefined {
  if (!row.rendition_layout) return undefined;
  const layout = oneOf(LAYOUTS, row.rendition_layout, 'reflowable');
  return {
    layout,
    spread: oneOf(SPREADS, row.rendition_spread, 'auto'),
    flow: oneOf(FLOWS, row.rendition_flow, 'auto'),
    page_spread: SIDES.includes(row.page_spread as Side) ? (row.page_spread as Side) : null,
    viewport: row.viewport_width && row.viewport_height ? { width: Number(row.viewport_width), height: Number(row.viewport_height) } : null,
  };
}
