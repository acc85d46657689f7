import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import './Menu.css';

export interface MenuItem {
  label: string;
  onSelect: () => void;
  disabled?: boolean;
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
}

/**
 * A menu button (WAI-ARIA menu button pattern): Enter, Space or ArrowDown opens it and focuses the first item,
 * ArrowUp/ArrowDown/Home/End move between items, Escape closes and returns focus to the button, Tab or a click
 * outside closes it.
 */
export function Menu({ trigger, triggerLabel, header, items, align = 'end', footer }: MenuProps) {
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const itemRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const focusOnOpen = useRef<'first' | 'last' | null>(null);
  const id = useId();
  const buttonId = `${id}-button`;
  const menuId = `${id}-menu`;
  const headerId = `${id}-header`;

  const close = useCallback((returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) buttonRef.current?.focus();
  }, []);

  const focusItem = (index: number) => {
    const enabled = itemRefs.current.filter((el): el is HTMLButtonElement => !!el && !el.disabled);
    if (!enabled.length) return;
    const i = ((index % enabled.length) + enabled.length) % enabled.length;
    enabled[i]?.focus();
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

  return (
    <div className={`menu menu--${align}`} ref={rootRef}>
      <button
        ref={buttonRef}
        id={buttonId}
        type="button"
        className="menu__button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        aria-label={triggerLabel}
        onClick={() => (open ? close(false) : openWith('first'))}
        onKeyDown={onButtonKeyDown}
      >
        {trigger}
      </button>
      {open ? (
        <div className="menu__popover">
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
            onKeyDown={onMenuKeyDown}
          >
            {items.map((item, i) => (
              <button
                key={item.label}
                ref={(el) => {
                  itemRefs.current[i] = el;
                }}
                type="button"
                role="menuitem"
                tabIndex={-1}
                className="menu__item"
                disabled={item.disabled}
                onClick={() => {
                  item.onSelect();
                }}
              >
                {item.label}
              </button>
            ))}
          </div>
          {footer ? <div className="menu__footer">{footer}</div> : null}
        </div>
      ) : null}
    </div>
  );
}
