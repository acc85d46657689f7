/**
 * The modal dialog of library-playlists-account.md §4 and §5: opening puts an active class on <body> and
 * closing removes it; the dialog fades and rises in over 300 ms (and back out before it unmounts); Tab and
 * Shift+Tab cycle through the dialog's controls; Escape closes; focus goes back to what opened it. The rest of
 * the page is made inert while it is open, so neither pointer nor screen reader can reach behind it.
 * A dialog holding unsaved input (`unsaved`) asks before Escape, the backdrop or the close button throw it away:
 * a confirmation in the same modal pattern, whose Escape goes back to editing (docs/decisions.md).
 */
import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';
import { Button } from './Button.tsx';
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
  /** What was typed would be lost on close: Escape, the backdrop and the close button ask first. */
  unsaved?: boolean;
}

/** The words of the discard confirmation (ours: the spec has none, docs/decisions.md). */
export const DISCARD_PROMPT = {
  title: 'Discard what you typed?',
  message: 'What you typed in this dialog has not been saved and will be lost.',
  keep: 'Keep editing',
  discard: 'Discard',
} as const;

export function Modal({ open, onClose, title, children, footer, initialFocus, returnFocus, describedBy, size = 'md', role = 'dialog', onExited, unsaved = false }: ModalProps) {
  const [mounted, setMounted] = useState(open);
  const [asking, setAsking] = useState(false);
  const requestClose = () => {
    if (!open) return;
    if (unsaved) setAsking(true);
    else onClose();
  };
  if (asking && (!open || !unsaved)) setAsking(false);
  const [active, setActive] = useState(false);
  const dialogRef = useRef<HTMLDivElement>(null);
  const openerRef = useRef<HTMLElement | null>(null);
  const onExitedRef = useRef(onExited);
  onExitedRef.current = onExited;
  // The element to give focus back to is the one returnFocus holds when the dialog closes, not when it opened.
  const returnFocusRef = useRef(returnFocus);
  returnFocusRef.current = returnFocus;
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
      const target = returnFocusRef.current?.current ?? openerRef.current;
      if (target && target.isConnected) target.focus();
    };
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
      requestClose();
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

  const dialog = createPortal(
    <div className={`modal${active && open ? ' modal--active' : ''}`} onKeyDown={onKeyDown}>
      <div className="modal__backdrop" aria-hidden="true" onMouseDown={requestClose} />
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
          <button type="button" className="modal__close" aria-label="Close" onClick={requestClose}>
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
  if (!unsaved && !asking) return dialog;
  // The confirmation is a sibling, not a child: a child's keys would bubble (through React) to this dialog's Tab cycle.
  return (
    <>
      {dialog}
      <DiscardConfirm
        open={asking}
        onKeep={() => setAsking(false)}
        onDiscard={() => {
          setAsking(false);
          onClose();
        }}
      />
    </>
  );
}

/**
 * The discard confirmation on its own, for what holds unsaved input without being a Modal (the reader's note
 * editor): an alertdialog in the modal pattern; Escape, the backdrop and Keep editing go back to editing.
 * Render it as a sibling of the editor, not inside it, so its keys do not bubble (through React) into the editor.
 */
export function DiscardConfirm({ open, onKeep, onDiscard }: { open: boolean; onKeep: () => void; onDiscard: () => void }) {
  const messageId = useId();
  return (
    <Modal
      open={open}
      onClose={onKeep}
      title={DISCARD_PROMPT.title}
      role="alertdialog"
      size="sm"
      describedBy={messageId}
      footer={
        <>
          <Button variant="secondary" onClick={onKeep}>
            {DISCARD_PROMPT.keep}
          </Button>
          <Button variant="danger" onClick={onDiscard}>
            {DISCARD_PROMPT.discard}
          </Button>
        </>
      }
    >
      <p id={messageId}>{DISCARD_PROMPT.message}</p>
    </Modal>
  );
}
