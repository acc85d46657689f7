import { titleProgress } from '@lectern/core';

/**
 * The table of contents' "n% complete": core's title progress over the TOC's chapters. The TOC gives each chapter's
 * reading minutes, which are its text length over a constant, so they weigh the chapters as the text does (a PDF's
 * chapters have 0 minutes and weigh equally, as on the server).
 */
export function bookProgress(chapters: readonly { uri: string; minutes_required: number }[], furthestOf: ReadonlyMap<string, number>): number {
  return titleProgress(chapters.map((c) => ({ textLength: c.minutes_required, furthest: furthestOf.get(c.uri) ?? 0 })));
}
