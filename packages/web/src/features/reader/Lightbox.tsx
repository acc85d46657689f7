/** An image from the chapter, large (reader.md §5 and §9: fades, removed after 300 ms). Escape or a click closes. */
import { READER_CONSTANTS } from '@lectern/core';
import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { ReaderIcon } from '../../shared/reading/ReaderIcon.tsx';

export function Lightbox({ src, alt, onClose }: { src: string; alt: string; onClose: () => void }) {
  const [closing, setClosing] = useState(false);
  const closeRef = useRef<HTMLButtonElement>(null);
  const close = () => {
    if (closing) return;
    setClosing(true);
    window.setTimeout(onClose, READER_CONSTANTS.imagePopupFadeMs);
  };
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    return () => previous?.focus?.();
  }, []);
  // In <body>, outside the reader's stacking context: the image covers the whole screen, top bar included.
  return createPortal(
    <div
      className={`reader-lightbox${closing ? ' reader-lightbox--closing' : ''}`}
      role="dialog"
      aria-modal="true"
      aria-label={alt ? `Image: ${alt}` : 'Image'}
      onClick={close}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          close();
        }
        if (e.key === 'Tab') {
          e.preventDefault(); // one control: focus stays on it
        }
      }}
    >
      <img src={src} alt={alt} className="reader-lightbox__img" onClick={(e) => e.stopPropagation()} />
      <button ref={closeRef} type="button" className="reader-lightbox__close" aria-label="Close image" onClick={close}>
        <ReaderIcon name="close" />
      </button>
    </div>,
    document.body,
  );
}
