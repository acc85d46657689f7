import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Cover, coverFit, coverTitleSize } from '../src/components/Cover.tsx';

describe('Cover', () => {
  it('fills the frame with book-shaped images and shows the rest whole', () => {
    expect(coverFit(600, 900)).toBe('cover');
    expect(coverFit(1400, 2100)).toBe('cover');
    expect(coverFit(640, 900)).toBe('cover');
    expect(coverFit(720, 900)).toBe('contain'); // cropping would cut the words printed on it
    expect(coverFit(900, 240)).toBe('contain'); // a landscape banner
    expect(coverFit(900, 900)).toBe('contain'); // square
    expect(coverFit(100, 1000)).toBe('contain'); // a thin strip
  });

  it('switches a loaded landscape cover to contain', () => {
    render(<Cover title="Wide" authors={[]} src="/wide.png" />);
    const img = screen.getByRole<HTMLImageElement>('img', { name: 'Wide' });
    Object.defineProperty(img, 'naturalWidth', { value: 900 });
    Object.defineProperty(img, 'naturalHeight', { value: 240 });
    fireEvent.load(img);
    expect(img.parentElement!.className).toContain('cover--contain');
  });

  it('sizes a generated title so its longest word fits on a line', () => {
    expect(coverTitleSize('Lectern Field Manual')).toBe(12.5);
    const long = coverTitleSize('Internationalization Handbook');
    expect(long).toBeLessThan(7);
    // 20 letters at that size take no more than the free width (78 % of the cover)
    expect(20 * 0.62 * long).toBeLessThanOrEqual(78.1);
    render(<Cover title="Internationalization Handbook" authors={['A. Writer']} src={null} />);
    const cover = screen.getByRole('img', { name: 'Internationalization Handbook' });
    expect(cover.style.getPropertyValue('--cover-title-size')).toBe(`${long}cqi`);
    expect(cover.style.getPropertyValue('--cover-title-min')).toBe('0px');
  });
});
