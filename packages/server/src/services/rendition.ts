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
  align_x_center?: number | string | null;
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
    viewport: viewportOf(row.viewport_width, row.viewport_height),
    // a chapter's itemref rendition:align-x-center (0043); never on a title (the property is per spine item)
    align_x_center: Number(row.align_x_center ?? 0) === 1,
  };
}

/**
 * A stored page size: pixels, or 0 for a side that is the device's (device-width / device-height, ingest/rendition.ts
 * DEVICE_SIDE); null when either side is unknown. Readers older than the device sides took 0 as "no size" (the
 * neighbour's), so the stored form stays readable both ways.
 */
function viewportOf(width: number | string | null, height: number | string | null): Rendition['viewport'] {
  if (width === null || height === null) return null;
  const side = (v: number) => (v === 0 ? ('device' as const) : v);
  const w = Number(width);
  const h = Number(height);
  if (!Number.isInteger(w) || !Number.isInteger(h) || w < 0 || h < 0) return null;
  return { width: side(w), height: side(h) };
}
