import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Spinner } from './Spinner.tsx';
import { Tooltip } from './Tooltip.tsx';
import './Menu.css';

export interface MenuItem {
  label: string;
  onSelect: () => void;
  disabled?: boolean;
  /** React key when the label is not unique or changes. */
  key?: string;
  /** A toggle (role menuitemcheckbox): checked or not. */
  checked?: boolean;
  /** A request for this item is in flight (spinner, aria-busy) or has failed (warning, error style). */
  status?: 'busy' | 'error' | null;
  /** Words added for screen readers after the label, e.g. the failure. */
  srNote?: string;
  /** Icon before the label (checkbox items draw their own check). */
  icon?: ReactNode;
  /** Close the menu after selecting, focus going back to the button (for items that open a dialog). */
  closeOnSelect?: boolean;
  /** Draw a separator above this item. */
  separated?: boolean;
}

export interface MenuProps {
  /** Content of the trigger button. */
  trigger: ReactNode;
  /** Accessible name of the trigger when its content is not enough. */
  triggerLabel?: string;
  /** Information shown above the items (not focusable); it also describes the menu for screen readers. */
  header?: ReactNode;
  items: readonly MenuItem[];
  align?: 'start' | 'end';
  /** Extra content under the items (e.g. an error). */
  footer?: ReactNode;
  /** Tooltip over the button while the menu is closed (same words as triggerLabel). */
  tooltip?: string;
  disabled?: boolean;
  triggerClassName?: string;
  /** Id of what describes the button (e.g. the card's title). */
  triggerDescribedBy?: string;
  onOpenChange?: (open: boolean) => void;
  /** Content shown instead of the items (e.g. while they load). */
  placeholder?: ReactNode;
  className?: string;
  /**
   * A navigation menu (the account menu) folds this long after the mouse leaves it (§9 "Nav collapse delay 200 ms":
   * a pointer crossing the gap between the button and the menu does not close it); unset: it stays open.
   */
  collapseAfterLeaveMs?: number;
}

/** The Popover API (top layer); without it (older browsers, jsdom) the popover is an ordinary absolute box. */
const SUPPORTS_POPOVER = typeof HTMLElement !== 'undefined' && 'showPopover' in HTMLElement.prototype;

/**
 * A menu button (WAI-ARIA menu button pattern): Enter, Space or ArrowDown opens it and focuses the first item,
 * ArrowUp/ArrowDown/Home/End move between items, Escape closes and returns focus to the button, Tab or a click
 * outside closes it.
 */
export function Menu({
  trigger,
  triggerLabel,
  header,
  items,
  align = 'end',
  footer,
  tooltip,
  disabled = false,
  triggerClassName,
  triggerDescribedBy,
  onOpenChange,
  placeholder,
  className,
  collapseAfterLeaveMs,
}: MenuProps) {
  const [open, setOpenState] = useState(false);
  const onOpenChangeRef = useRef(onOpenChange);
  onOpenChangeRef.current = onOpenChange;
  const setOpen = useCallback((next: boolean) => {
    setOpenState(next);
    onOpenChangeRef.current?.(next);
  }, []);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const itemRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const popoverRef = useRef<HTMLDivElement>(null);
  /** The side the popover is aligned to: the requested one, unless that would push it off the screen. */
  const [side, setSide] = useState(align);
  const focusOnOpen = useRef<'first' | 'last' | null>(null);
  const id = useId();
  const buttonId = `${id}-button`;
  const menuId = `${id}-menu`;
  const headerId = `${id}-header`;

  const close = useCallback(
    (returnFocus: boolean) => {
      setOpen(false);
      if (returnFocus) buttonRef.current?.focus();
    },
    [setOpen],
  );

  useEffect(() => {
    if (disabled && open) close(false);
  }, [disabled, open, close]);

  const collapseTimer = useRef<number | undefined>(undefined);
  const cancelCollapse = () => window.clearTimeout(collapseTimer.current);
  useEffect(() => {
    if (!open) cancelCollapse();
    return cancelCollapse;
  }, [open]);
  const onPointerLeave = (e: { pointerType: string }) => {
    if (!open || collapseAfterLeaveMs === undefined || e.pointerType !== 'mouse') return;
    cancelCollapse();
    collapseTimer.current = window.setTimeout(() => {
      // focus inside the menu goes back to its button rather than to the page's start
      close(!!rootRef.current?.contains(document.activeElement));
    }, collapseAfterLeaveMs);
  };

  // The open popover goes into the browser's top layer (the Popover API), so no card, transform, opacity or
  // z-index around the button can paint over it; it is placed under the button (above it when there is no room
  // below) and kept inside the screen. Where the API is missing it stays absolutely positioned, as before.
  const place = useCallback(() => {
    const popover = popoverRef.current;
    const anchor = buttonRef.current;
    if (!popover || !anchor || !popover.matches(':popover-open')) return;
    const b = anchor.getBoundingClientRect();
    const { offsetWidth: w, offsetHeight: h } = popover;
    const margin = 8;
    const gap = 8;
    let left = align === 'end' ? b.right - w : b.left;
    left = Math.max(margin, Math.min(left, window.innerWidth - w - margin));
    let top = b.bottom + gap;
    if (top + h > window.innerHeight - margin && b.top - gap - h >= margin) top = b.top - gap - h;
    popover.style.left = `${Math.round(left)}px`;
    popover.style.top = `${Math.round(top)}px`;
  }, [align]);

  useLayoutEffect(() => {
    if (!open) {
      setSide(align);
      return;
    }
    const popover = popoverRef.current;
    if (popover && SUPPORTS_POPOVER) {
      if (!popover.matches(':popover-open')) popover.showPopover();
      place();
      window.addEventListener('scroll', place, { capture: true, passive: true });
      window.addEventListener('resize', place);
      return () => {
        window.removeEventListener('scroll', place, { capture: true });
        window.removeEventListener('resize', place);
      };
    }
    // No Popover API: flip the side when the requested one would leave the screen.
    const rect = popover?.getBoundingClientRect();
    if (!rect || !rect.width) return;
    const margin = 8;
    if (align === 'end' && rect.left < margin) setSide('start');
    else if (align === 'start' && rect.right > window.innerWidth - margin) setSide('end');
    return undefined;
  }, [open, align, place]);

  const focusItem = (index: number) => {
    const enabled = itemRefs.current.filter((el): el is HTMLButtonElement => !!el && !el.disabled);
    if (!enabled.length) return;
    const i = ((index % enabled.length) + enabled.length) % enabled.length;
    // The popover is placed inside the screen already; a focus that scrolled the page would move the card (and the
    // button the popover is placed against) away under the reader's pointer.
    enabled[i]?.focus({ preventScroll: true });
  };

  useEffect(() => {
    if (!open) return;
    if (focusOnOpen.current) focusItem(focusOnOpen.current === 'first' ? 0 : -1);
    focusOnOpen.current = null;
    const onPointerDown = (e: PointerEvent) => {
      if (rootRef.current && !rootRef.current.contains(e.target as Node)) close(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
    // focusItem only reads refs
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, close]);

  const openWith = (focus: 'first' | 'last') => {
    focusOnOpen.current = focus;
    setOpen(true);
  };

  const onButtonKeyDown = (e: KeyboardEvent<HTMLButtonElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      openWith('first');
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      openWith('last');
    }
  };

  const onMenuKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const enabled = itemRefs.current.filter((el): el is HTMLButtonElement => !!el && !el.disabled);
    const current = enabled.indexOf(document.activeElement as HTMLButtonElement);
    switch (e.key) {
      case 'ArrowDown':
        e.preventDefault();
        focusItem(current + 1);
        break;
      case 'ArrowUp':
        e.preventDefault();
        focusItem(current - 1);
        break;
      case 'Home':
        e.preventDefault();
        focusItem(0);
        break;
      case 'End':
        e.preventDefault();
        focusItem(-1);
        break;
      case 'Escape':
        e.preventDefault();
        close(true);
        break;
      case 'Tab':
        close(false);
        break;
    }
  };

  const button = (
    <button
      ref={buttonRef}
      id={buttonId}
      type="button"
      className={triggerClassName ?? 'menu__button'}
      aria-haspopup="menu"
      aria-expanded={open}
      aria-controls={open ? menuId : undefined}
      aria-label={triggerLabel}
      aria-describedby={triggerDescribedBy}
      disabled={disabled}
      onClick={() => (open ? close(false) : openWith('first'))}
      onKeyDown={onButtonKeyDown}
    >
      {trigger}
    </button>
  );

  return (
    <div
      className={['menu', `menu--${side}`, className].filter(Boolean).join(' ')}
      ref={rootRef}
      onPointerLeave={collapseAfterLeaveMs === undefined ? undefined : onPointerLeave}
      onPointerEnter={collapseAfterLeaveMs === undefined ? undefined : cancelCollapse}
    >
      {tooltip ? (
        <Tooltip label={tooltip} hidden={open}>
          {button}
        </Tooltip>
      ) : (
        button
      )}
      {open ? (
        <div className="menu__popover" ref={popoverRef} popover={SUPPORTS_POPOVER ? 'manual' : undefined}>
          {header ? (
            <div className="menu__header" id={headerId}>
              {header}
            </div>
          ) : null}
          <div
            className="menu__list"
            role="menu"
            id={menuId}
            aria-labelledby={buttonId}
            aria-describedby={header ? headerId : undefined}
            aria-busy={placeholder ? true : undefined}
            onKeyDown={onMenuKeyDown}
          >
            {placeholder
              ? placeholder
              : items.map((item, i) => {
                  const toggle = item.checked !== undefined;
                  return (
                    <button
                      key={item.key ?? item.label}
                      ref={(el) => {
                        itemRefs.current[i] = el;
                      }}
                      type="button"
                      role={toggle ? 'menuitemcheckbox' : 'menuitem'}
                      aria-checked={toggle ? item.checked : undefined}
                      aria-busy={item.status === 'busy' || undefined}
                      tabIndex={-1}
                      className={[
                        'menu__item',
                        toggle ? 'menu__item--toggle' : null,
                        item.status ? `menu__item--${item.status}` : null,
                        item.separated ? 'menu__item--separated' : null,
                      ]
                        .filter(Boolean)
                        .join(' ')}
                      disabled={item.disabled}
                      onClick={() => {
                        if (item.closeOnSelect) close(true);
                        item.onSelect();
                      }}
                    >
                      {toggle ? (
                        <span className={`menu__check${item.checked ? ' menu__check--on' : ''}`} aria-hidden="true">
                          <svg width="12" height="12" viewBox="0 0 24 24" focusable="false">
                            <path d="M5 12.5l4.5 4.5L19 7.5" fill="none" stroke="currentColor" strokeWidth="3" strokeLinecap="round" strokeLinejoin="round" />
                          </svg>
                        </span>
                      ) : item.icon ? (
                        <span className="menu__icon" aria-hidden="true">
                          {item.icon}
                        </span>
                      ) : null}
                      <span className="menu__label">{item.label}</span>
                      {item.srNote ? <span className="visually-hidden">{`, ${item.srNote}`}</span> : null}
                      {item.status === 'busy' ? <Spinner size="sm" /> : null}
                      {item.status === 'error' ? (
                        <span className="menu__status-error" aria-hidden="true">
                          !
                        </span>
                      ) : null}
                    </button>
                  );
                })}
          </div>
          {footer ? <div className="menu__footer">{footer}</div> : null}
        </div>
      ) : null}
    </div>
  );
}
