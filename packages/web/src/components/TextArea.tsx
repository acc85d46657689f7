import { useId, useRef, type KeyboardEvent, type Ref, type TextareaHTMLAttributes } from 'react';
import { FieldMeta } from './TextField.tsx';
import './TextField.css';

export interface TextAreaProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> {
  label: string;
  /** Extra words after the label, set lighter (e.g. '(optional)'). */
  labelNote?: string;
  name: string;
  errors?: readonly string[] | undefined;
  hint?: string;
  /** Shown under the field on the right, e.g. '12 / 160'. */
  counter?: string;
  ref?: Ref<HTMLTextAreaElement>;
}

/**
 * Puts text at the caret the way typing would, so React's onChange sees it and undo keeps working. execCommand
 * is deprecated but still the only way to keep the browser's undo stack; where it does nothing (jsdom, some
 * browsers) the value is set through the native setter and an input event.
 */
export function insertAtCaret(el: HTMLTextAreaElement | HTMLInputElement, text: string) {
  const done = typeof document.execCommand === 'function' && document.execCommand('insertText', false, text);
  if (done) return;
  const start = el.selectionStart ?? el.value.length;
  const end = el.selectionEnd ?? start;
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, el.value.slice(0, start) + text + el.value.slice(end));
  el.selectionStart = el.selectionEnd = start + text.length;
  el.dispatchEvent(new Event('input', { bubbles: true }));
}

/**
 * A multi-line field. Tab inserts a tab character (library-playlists-account.md §5); so that keyboard users are
 * never trapped, Shift+Tab moves back as usual and Escape followed by Tab moves on (the hint says so to screen
 * readers).
 */
export function TextArea({ label, labelNote, name, errors, hint, counter, className, onKeyDown, ...rest }: TextAreaProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const keysId = `${id}-keys`;
  const escaped = useRef(false);
  const invalid = !!errors && errors.length > 0;
  const describedBy = [hint ? hintId : null, invalid ? errorId : null, keysId].filter(Boolean).join(' ');

  const handleKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    onKeyDown?.(e);
    if (e.defaultPrevented) return;
    if (e.key === 'Escape') {
      escaped.current = true;
      return;
    }
    if (e.key === 'Tab' && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey && !escaped.current) {
      e.preventDefault();
      insertAtCaret(e.currentTarget, '\t');
    }
    escaped.current = false;
  };

  return (
    <div className={['field', invalid ? 'field--invalid' : null, className].filter(Boolean).join(' ')}>
      <label className="field__label" htmlFor={id}>
        {label}
        {labelNote ? <span className="field__label-note"> {labelNote}</span> : null}
      </label>
      {hint ? (
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      <textarea
        id={id}
        name={name}
        className="field__input field__input--multiline"
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        onKeyDown={handleKeyDown}
        {...rest}
      />
      <span id={keysId} className="visually-hidden">
        Tab inserts a tab character. Press Escape, then Tab, to move on.
      </span>
      <FieldMeta errors={invalid ? errors : []} errorId={errorId} counter={counter} />
    </div>
  );
}
