import { useId, type ReactNode, type SelectHTMLAttributes } from 'react';

/**
 * A labelled select. The label is tied by id, not wrapped around the select: a wrapping label names the select
 * with its options' text too ("Discount Percent off Amount off").
 */
export function SelectField({ label, children, ...rest }: { label: string; children: ReactNode } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div className="admin-select">
      <label htmlFor={id}>{label}</label>
      <select id={id} {...rest}>
        {children}
      </select>
    </div>
  );
}
