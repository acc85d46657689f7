import { useState, type CSSProperties } from 'react';
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

/**
 * A title's cover at a fixed 2:3 aspect ratio. Without an image (documents have none) or when the image fails,
 * a typographic cover: title and author set on a dark panel whose colour is derived from the title. White text
 * on these panels (lightness 26 %) keeps a contrast well above 4.5:1 whatever the hue.
 */
export function Cover({ title, authors, src, size = 'card', eager = false }: CoverProps) {
  const [failed, setFailed] = useState(false);
  const className = `cover cover--${size}`;
  if (src && !failed) {
    return (
      <div className={className}>
        <img
          className="cover__img"
          src={src}
          alt={title}
          loading={eager ? 'eager' : 'lazy'}
          decoding="async"
          onError={() => setFailed(true)}
        />
      </div>
    );
  }
  const hue = hueOf(title);
  return (
    <div
      className={`${className} cover--typographic`}
      style={{ '--cover-hue': String(hue) } as CSSProperties}
      role="img"
      aria-label={title}
    >
      <span className="cover__rule" aria-hidden="true" />
      <span className="cover__title" aria-hidden="true">
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
