/**
 * Two clicks at once on the adder's Add Highlight make one highlight: the adder stays up until the store has
 * answered, and each click used to send a POST of its own (two identical highlights on the same words).
 */
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AnnotationLayer } from '../src/features/reader/annotations/AnnotationLayer.tsx';
import type { RangeDescription } from '../src/features/reader/annotations/anchoring.ts';
import type { useChapterAnnotations } from '../src/features/reader/annotations/useChapterAnnotations.ts';
import { profile } from './fixtures.ts';

type Layer = ReturnType<typeof useChapterAnnotations>;

describe('the adder', () => {
  it('sends one highlight for two clicks made before the store answers', async () => {
    const sent: RangeDescription[] = [];
    let answer: (v: null) => void = () => undefined;
    const description = { quote: 'Call me Ishmael', ranges: [] } as unknown as RangeDescription;
    const layer = {
      selection: { description, box: { left: 100, right: 200, top: 300, bottom: 320 } },
      viewing: null,
      notice: null,
      clearSelection: () => undefined,
      closeViewer: () => undefined,
      // the store's answer is held back: both clicks come while the first save is on its way
      create: (d: RangeDescription) => {
        sent.push(d);
        return new Promise<null>((done) => (answer = done));
      },
    } as unknown as Layer;
    render(<AnnotationLayer layer={layer} profile={profile} />);
    const button = screen.getByRole('button', { name: 'Add Highlight' });
    fireEvent.click(button);
    fireEvent.click(button);
    expect(sent).toHaveLength(1);
    // a failed save (null) lets the reader try again
    answer(null);
    await screen.findByRole('button', { name: 'Add Highlight' });
    await expect.poll(() => screen.getByRole<HTMLButtonElement>('button', { name: 'Add Highlight' }).disabled).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Add Highlight' }));
    expect(sent).toHaveLength(2);
  });
});
