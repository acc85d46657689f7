import { useId, type InputHTMLAttributes } from 'react';
import './TextField.css';

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  name: string;
  /** Reasons shown under the field; the input is marked invalid and described by them. */
  errors?: readonly string[] | undefined;
  hint?: string;
}

export function TextField({ label, name, errors, hint, className, ...rest }: TextFieldProps) {
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
      {invalid ? (
        <p className="field__error" id={errorId}>
          {errors.join(' ')}
        </p>
      ) : null}
    </div>
  );
}
