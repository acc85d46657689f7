/**
 * The one slide-in side panel of the reader (contents, search, display settings, notes: reader.md §2 and §4): its
 * head (heading and close button), its name for assistive technology, `aria-hidden` and `inert` while closed
 * (usePanelInert), the focus moved in when it opens, and Escape. Each panel passes its CSS block ('toc',
 * 'reader-search', 'reader-settings'), whose `__head`, `__heading` and `--open` classes it styles.
 */
import { type ReactNode, type RefObject, useEffect, useRef } from 'react';
import { ReaderIcon } from './ReaderIcon.tsx';
import { usePanelInert } from './usePanelInert.ts';

export interface SidePanelProps {
  open: boolean;
  /** the panel's element: `aside` (default) or `section` (the display settings, a part of the reader's page) */
  as?: 'aside' | 'section';
  /** the panel's CSS block: the element gets it, `${block}--open` while open, and its head `${block}__head` */
  block: string;
  /** more classes on the panel */
  className?: string;
  /** its accessible name */
  label: string;
  heading: string;
  /** the close button's accessible name */
  closeLabel: string;
  onClose: () => void;
  /** what takes the focus when the panel opens (an input has its text selected); default the close button */
  initialFocus?: RefObject<HTMLElement | null>;
  /**
   * Always shown, without a head or a focus move (the video screen's contents tab, reader.md §2): not hidden from
   * assistive technology, and `open` stays true.
   */
  inline?: boolean;
  /** the body's wrapper around the panel's own content (the contents scroll it to the current chapter) */
  children: ReactNode;
}

export function SidePanel({ open, as: Element = 'aside', block, className, label, heading, closeLabel, onClose, initialFocus, inline = false, children }: SidePanelProps) {
  const panelRef = useRef<HTMLElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  usePanelInert(panelRef, open);

  useEffect(() => {
    if (!open || inline) return;
    const target = initialFocus?.current ?? closeRef.current;
    target?.focus();
    if (target instanceof HTMLInputElement) target.select();
  }, [open, inline, initialFocus]);

  return (
    <Element
      className={[block, className, open && !inline ? `${block}--open` : null].filter(Boolean).join(' ')}
      aria-label={label}
      ref={panelRef}
      aria-hidden={inline ? undefined : !open}
      onKeyDown={(e) => {
        // Only while open: a panel sliding out is still focusable until it is inert (usePanelInert), and an Escape
        // there is the reader's (leaving the immersive view), not swallowed by a panel already closed.
        if (e.key === 'Escape' && open) {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      {inline ? null : (
        <div className={`${block}__head`}>
          <h2 className={`${block}__heading`}>{heading}</h2>
          <button ref={closeRef} type="button" className="reader-iconbtn" aria-label={closeLabel} onClick={onClose}>
            <ReaderIcon name="close" />
          </button>
        </div>
      )}
      {children}
    </Element>
  );
}
