/**
 * The modal dialog of library-playlists-account.md §4 and §5: opening puts an active class on <body> and
 * closing removes it; the dialog fades and rises in over 300 ms (and back out before it unmounts); Tab and
 * Shift+Tab cycle through the dialog's controls; Escape closes; focus goes back to what opened it. The rest of
 * the page is made inert while it is open, so neither pointer nor screen reader can reach behind it.
 */
import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import './Modal.css';

/** §9 "Modal transition": 300 ms. */
export const MODAL_TRANSITION_MS = 300;
/** The class the open modal puts on <body>. */
export const MODAL_BODY_CLASS = 'modal-active';

const FOCUSABLE =
  'a[href], area[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"]), [contenteditable="true"]';

export function focusableIn(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => !el.closest('[hidden], [inert], [aria-hidden="true"]') && el.getAttribute('aria-disabled') !== 'true',
  );
}

let openCount = 0;

export interface ModalProps {
  open: boolean;
  onClose: () => void;
  /** The dialog's title; it also names the dialog (aria-labelledby). */
  title: string;
  children: ReactNode;
  /** Buttons row at the bottom. */
  footer?: ReactNode;
  /** What gets focus on open; defaults to the first control in the body, else the dialog itself. */
  initialFocus?: RefObject<HTMLElement | null>;
  /** Where focus goes on close; defaults to the element that had focus when the dialog opened. */
  returnFocus?: RefObject<HTMLElement | null>;
  /** Id of an element inside that describes the dialog (aria-describedby). */
  describedBy?: string;
  size?: 'sm' | 'md';
  /** 'alertdialog' for confirmations. */
  role?: 'dialog' | 'alertdialog';
  /** Called once the closing transition has finished and the dialog is gone. */
  onExited?: () => void;
}

export function Modal({ open, onClose, title, children, footer, initialFocus, returnFocus, describedBy, size = 'md', role = 'dialog', onExited }: ModalProps) {
  const [mounted, setMounted] = useState(open);
  const [active, setActive] = useState(false);
  const dialogRef = useRef<HTMLDivElement>(null);
  const openerRef = useRef<HTMLElement | null>(null);
  const onExitedRef = useRef(onExited);
  onExitedRef.current = onExited;
  const titleId = useId();

  if (open && !mounted) setMounted(true);

  // Opening: remember the opener, mark <body>, make the page inert, then let the enter transition run.
  useLayoutEffect(() => {
    if (!open) return;
    openerRef.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    openCount++;
    document.body.classList.add(MODAL_BODY_CLASS);
    const root = document.getElementById('root');
    const wasInert = root?.hasAttribute('inert') ?? false;
    if (root && !wasInert) root.setAttribute('inert', '');
    const frame = requestAnimationFrame(() => setActive(true));
    return () => {
      cancelAnimationFrame(frame);
      openCount = Math.max(0, openCount - 1);
      if (openCount === 0) document.body.classList.remove(MODAL_BODY_CLASS);
      if (root && !wasInert) root.removeAttribute('inert');
      setActive(false);
    };
  }, [open]);

  // Closing gives focus back. A passive effect: React restores the focus it saw before a commit once the DOM is
  // updated, which would undo a focus() made in a layout effect's cleanup.
  useEffect(() => {
    if (!open) return;
    return () => {
      const target = returnFocus?.current ?? openerRef.current;
      if (target && target.isConnected) target.focus();
    };
    // returnFocus is a ref: reading it at close time is what we want
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  // Focus the first control once the dialog is in the document.
  useEffect(() => {
    if (!open || !mounted) return;
    const dialog = dialogRef.current;
    if (!dialog) return;
    const target = initialFocus?.current ?? focusableIn(dialog.querySelector<HTMLElement>('.modal__body') ?? dialog)[0] ?? focusableIn(dialog)[0] ?? dialog;
    target.focus();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, mounted]);

  // Closing: unmount after the exit transition.
  useEffect(() => {
    if (open || !mounted) return;
    const timer = setTimeout(() => {
      setMounted(false);
      onExitedRef.current?.();
    }, MODAL_TRANSITION_MS);
    return () => clearTimeout(timer);
  }, [open, mounted]);

  if (!mounted || typeof document === 'undefined') return null;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.defaultPrevented) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      if (open) onClose();
      return;
    }
    if (e.key !== 'Tab') return;
    const dialog = dialogRef.current;
    if (!dialog) return;
    const items = focusableIn(dialog);
    if (!items.length) {
      e.preventDefault();
      dialog.focus();
      return;
    }
    const first = items[0]!;
    const last = items[items.length - 1]!;
    const current = document.activeElement;
    const inside = current instanceof HTMLElement && dialog.contains(current) && current !== dialog;
    if (e.shiftKey && (current === first || !inside)) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (current === last || !inside)) {
      e.preventDefault();
      first.focus();
    }
  };

  return createPortal(
    <div className={`modal${active && open ? ' modal--active' : ''}`} onKeyDown={onKeyDown}>
      <div className="modal__backdrop" aria-hidden="true" onMouseDown={() => open && onClose()} />
      <div
        ref={dialogRef}
        className={`modal__dialog modal__dialog--${size}`}
        role={role}
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        tabIndex={-1}
      >
        <header className="modal__header">
          <h2 className="modal__title" id={titleId}>
            {title}
          </h2>
          <button type="button" className="modal__close" aria-label="Close" onClick={onClose}>
            <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
              <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            </svg>
          </button>
        </header>
        <div className="modal__body">{children}</div>
        {footer ? <footer className="modal__footer">{footer}</footer> : null}
      </div>
    </div>,
    document.body,
  );
}
