import { useCallback, useLayoutEffect, useRef, useState, type CSSProperties, type SyntheticEvent } from 'react';
import './Cover.css';

export interface CoverProps {
  title: string;
  authors: readonly string[];
  src: string | null;
  size?: 'card' | 'large';
  /** Covers below the fold load lazily; the first screenful may load eagerly. */
  eager?: boolean;
}

/** Deterministic hue from the title, so a title's typographic cover is always the same colour. */
function hueOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return (h >>> 0) % 360;
}

/** A book's shape: 2 wide by 3 high. */
const BOOK_RATIO = 2 / 3;
/** How far (as a factor either way) an image may be from a book's shape and still fill the frame. */
const FILL_TOLERANCE = 1.1;

/**
 * `cover` for images shaped about like a book (cropping a sliver), `contain` for the rest: a landscape cover or a
 * thin banner cut to a 2:3 frame would show a meaningless middle strip.
 */
export function coverFit(width: number, height: number): 'cover' | 'contain' {
  if (!width || !height) return 'cover';
  const off = width / height / BOOK_RATIO;
  return off > FILL_TOLERANCE || off < 1 / FILL_TOLERANCE ? 'contain' : 'cover';
}

/**
 * Size of a generated cover's title, in container units (cqi: percent of the cover's width), so that its longest
 * word fits on one line and the whole title in the six lines the clamp allows: a word is never cut mid-letters.
 * About 78 cqi of the width is free between the paddings; a Georgia bold letter is about 0.58 em wide on average.
 */
export function coverTitleSize(title: string): number {
  const longest = Math.max(1, ...title.split(/\s+/).map((w) => w.length));
  const byWord = 78 / (0.62 * longest);
  const byLength = (6 * 78) / (0.58 * Math.max(1, title.length));
  return Math.floor(Math.min(12.5, byWord, byLength) * 10) / 10;
}

/**
 * A title's cover at a fixed 2:3 aspect ratio. Without an image (documents have none) or when the image fails,
 * a typographic cover: title and author set on a dark panel whose colour is derived from the title. White text
 * on these panels (lightness 26 %) keeps a contrast well above 4.5:1 whatever the hue.
 */
export function Cover({ title, authors, src, size = 'card', eager = false }: CoverProps) {
  const [failed, setFailed] = useState(false);
  const [fit, setFit] = useState<'cover' | 'contain'>('cover');
  const measure = useCallback((img: HTMLImageElement | null) => {
    if (img?.complete && img.naturalWidth) setFit(coverFit(img.naturalWidth, img.naturalHeight));
  }, []);
  const onLoad = (e: SyntheticEvent<HTMLImageElement>) => setFit(coverFit(e.currentTarget.naturalWidth, e.currentTarget.naturalHeight));
  const className = `cover cover--${size}`;
  if (src && !failed) {
    return (
      <div className={`${className}${fit === 'contain' ? ' cover--contain' : ''}`}>
        <img
          ref={measure}
          className="cover__img"
          src={src}
          alt={title}
          loading={eager ? 'eager' : 'lazy'}
          decoding="async"
          onLoad={onLoad}
          onError={() => setFailed(true)}
        />
      </div>
    );
  }
  return <TypographicCover title={title} authors={authors} className={className} />;
}

function TypographicCover({ title, authors, className }: { title: string; authors: readonly string[]; className: string }) {
  const hue = hueOf(title);
  const titleRef = useRef<HTMLSpanElement>(null);
  // The estimate is in the cover's own width units, so it holds at every size; when the browser's font still
  // sets the longest word wider than the cover, shrink by what overflows (measured once, also in those units).
  const [scale, setScale] = useState(1);
  useLayoutEffect(() => {
    const el = titleRef.current;
    if (!el || !el.clientWidth || el.scrollWidth <= el.clientWidth || scale < 0.2) return;
    setScale((s) => s * (el.clientWidth / el.scrollWidth) * 0.98);
  }, [title, scale]);
  return (
    <div
      className={`${className} cover--typographic`}
      style={
        {
          '--cover-hue': String(hue),
          '--cover-title-size': `${Math.round(coverTitleSize(title) * scale * 100) / 100}cqi`,
          // a readable floor for ordinary titles; none once a long word needs the title smaller
          ...(scale < 1 || coverTitleSize(title) < 12.5 ? { '--cover-title-min': '0px' } : {}),
        } as CSSProperties
      }
      role="img"
      aria-label={title}
    >
      <span className="cover__rule" aria-hidden="true" />
      <span className="cover__title" aria-hidden="true" ref={titleRef}>
        {title}
      </span>
      {authors.length ? (
        <span className="cover__author" aria-hidden="true">
          {authors.join(', ')}
        </span>
      ) : null}
    </div>
  );
}
