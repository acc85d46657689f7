/**
 * Catches what a page throws while rendering (or a lazy chunk that fails to load) and shows a recovery screen
 * inside the shell. It resets when the address changes, so navigating away always leaves the error behind.
 */
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Button, ButtonLink } from '../components/Button.tsx';
import { appPaths } from '../shared/links.ts';
import './RouteError.css';

interface Props {
  /** The current location; a change clears the error. */
  resetKey: string;
  children: ReactNode;
}
interface State {
  error: unknown;
  key: string;
}

export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, key: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey !== state.key ? { error: null, key: props.resetKey } : null;
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('Page failed to render', error, info.componentStack);
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return <PageError />;
  }
}

export function PageError() {
  return (
    <div className="page route-error" role="alert">
      <title>Something went wrong · Lectern</title>
      <h1 className="page-heading">Something went wrong</h1>
      <p className="route-error__text">This page could not be shown. Reloading usually helps.</p>
      <div className="route-error__actions">
        <Button size="lg" onClick={() => window.location.reload()}>
          Retry
        </Button>
        <ButtonLink to={appPaths.library} variant="secondary" size="lg" reloadDocument>
          Go to the library
        </ButtonLink>
      </div>
    </div>
  );
}
