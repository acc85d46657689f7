import type { HTMLAttributes, ReactNode } from 'react';
import './Card.css';

type DivProps = HTMLAttributes<HTMLDivElement> & { children?: ReactNode };
const cx = (...parts: (string | undefined | false)[]) => parts.filter(Boolean).join(' ');

/** A surface with a subtle shadow and an 8 px radius. Rendered as <article> since cards stand alone. */
export function Card({ className, children, ...rest }: HTMLAttributes<HTMLElement> & { children?: ReactNode }) {
  return (
    <article className={cx('card', className)} {...rest}>
      {children}
    </article>
  );
}
export const CardMedia = ({ className, ...rest }: DivProps) => <div className={cx('card__media', className)} {...rest} />;
export const CardBody = ({ className, ...rest }: DivProps) => <div className={cx('card__body', className)} {...rest} />;
export const CardFooter = ({ className, ...rest }: DivProps) => <div className={cx('card__footer', className)} {...rest} />;
export const CardEyebrow = ({ className, ...rest }: HTMLAttributes<HTMLParagraphElement>) => (
  <p className={cx('card__eyebrow', className)} {...rest} />
);
