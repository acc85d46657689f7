import { useId, type Ref, type TextareaHTMLAttributes } from 'react';
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
 * A multi-line field. Tab and Shift+Tab move focus as everywhere else: a field that eats Tab traps keyboard users
 * (WCAG 2.1.2), which overrides library-playlists-account.md §5's "Tab in text areas inserts tab characters"
 * (docs/decisions.md, "Tab leaves a text area").
 */
export function TextArea({ label, labelNote, name, errors, hint, counter, className, ...rest }: TextAreaProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const invalid = !!errors && errors.length > 0;
  const describedBy = [hint ? hintId : null, invalid ? errorId : null].filter(Boolean).join(' ') || undefined;

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
        {...rest}
      />
      <FieldMeta errors={invalid ? errors : []} errorId={errorId} counter={counter} />
    </div>
  );
}
