import { useId, type InputHTMLAttributes, type ReactNode, type Ref } from 'react';
import './TextField.css';

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  name: string;
  /** Reasons shown under the field; the input is marked invalid and described by them. */
  errors?: readonly string[] | undefined;
  hint?: string;
  /** Shown under the field on the right, e.g. '12 / 65'. */
  counter?: string;
  ref?: Ref<HTMLInputElement>;
}

export function TextField({ label, name, errors, hint, counter, className, ...rest }: TextFieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const invalid = !!errors && errors.length > 0;
  const describedBy = [hint ? hintId : null, invalid ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={['field', invalid ? 'field--invalid' : null, className].filter(Boolean).join(' ')}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {hint ? (
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      <input id={id} name={name} className="field__input" aria-invalid={invalid || undefined} aria-describedby={describedBy} {...rest} />
      <FieldMeta errors={invalid ? errors : []} errorId={errorId} counter={counter} />
    </div>
  );
}

/** The line under a field: its error (announced through aria-describedby) and a character counter. */
export function FieldMeta({ errors, errorId, counter }: { errors: readonly string[]; errorId: string; counter?: ReactNode }) {
  if (!errors.length && !counter) return null;
  return (
    <div className="field__meta">
      {errors.length ? (
        <p className="field__error" id={errorId}>
          {errors.join(' ')}
        </p>
      ) : (
        <span />
      )}
      {counter ? (
        <span className="field__counter" aria-hidden="true">
          {counter}
        </span>
      ) : null}
    </div>
  );
}
