/**
 * Sign-in page. Works as a plain HTML form post when JavaScript is off (method="post" action="/login/" with the
 * csrftoken cookie in `csrfmiddlewaretoken`); with JavaScript the submit is intercepted and sent as JSON.
 */
import { useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { loginRequestSchema, safeNextPath } from '@lectern/core';
import { Button } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { TextField } from '../../components/TextField.tsx';
import { csrfToken } from '../../api/cookies.ts';
import { isApiError, type FieldErrors } from '../../api/client.ts';
import { appPaths } from '../../shared/links.ts';
import { useLogin, useSession } from '../../shared/useSession.ts';
import { forgetCarriedEmail, useCarriedEmail } from './carriedEmail.ts';
import './LoginPage.css';

export function LoginPage() {
  const [params] = useSearchParams();
  const rawNext = params.get('next');
  const next = safeNextPath(rawNext, appPaths.home);
  const navigate = useNavigate();
  const location = useLocation();
  /** A message from the page that sent the visitor here ('Please log in to continue.'). */
  const arrivalNotice = (location.state as { notice?: unknown } | null)?.notice;
  const { profile } = useSession();
  const login = useLogin();
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});
  const [detail, setDetail] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const alertRef = useRef<HTMLDivElement>(null);
  const carriedEmail = useCarriedEmail();

  const focusFirstInvalid = (errors: FieldErrors) => {
    requestAnimationFrame(() => {
      const form = formRef.current;
      if (!form) return;
      for (const name of ['email', 'password']) {
        if (errors[name]?.length) {
          (form.elements.namedItem(name) as HTMLInputElement | null)?.focus();
          return;
        }
      }
      alertRef.current?.focus();
    });
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (login.isPending) return;
    const data = new FormData(event.currentTarget);
    const parsed = loginRequestSchema.safeParse({
      email: String(data.get('email') ?? ''),
      password: String(data.get('password') ?? ''),
    });
    if (!parsed.success) {
      const errors: FieldErrors = {};
      for (const issue of parsed.error.issues) {
        const key = String(issue.path[0] ?? 'form');
        // one reason per field at a time: "required" says all there is to say about an empty email
        if (!errors[key]) errors[key] = [issue.message];
      }
      setFieldErrors(errors);
      setDetail(null);
      focusFirstInvalid(errors);
      return;
    }
    setFieldErrors({});
    setDetail(null);
    login.mutate(
      { email: parsed.data.email, password: parsed.data.password },
      {
        onSuccess: () => {
          forgetCarriedEmail();
          void navigate(next, { replace: true });
        },
        onError: (error) => {
          const errors = isApiError(error) ? error.errors : {};
          setFieldErrors(errors);
          setDetail(error.message);
          focusFirstInvalid(errors);
        },
      },
    );
  };

  const formLevelErrors = Object.entries(fieldErrors)
    .filter(([k]) => k !== 'email' && k !== 'password')
    .flatMap(([, v]) => v);

  return (
    <div className="login">
      <title>Sign in · Lectern</title>
      <div className="login__panel">
        <h1 className="login__heading">Sign in</h1>
        <p className="login__lede">Welcome back. Sign in to keep reading where you left off.</p>

        {typeof arrivalNotice === 'string' && !profile ? (
          <Notice tone="info" role="alert" className="login__notice">
            {arrivalNotice}
          </Notice>
        ) : null}

        {profile ? (
          <Notice tone="success" role="status" className="login__notice" dismissible={false}>
            You are signed in as {profile.username}. <Link to={next}>Continue</Link>
          </Notice>
        ) : null}

        {detail || formLevelErrors.length ? (
          <div ref={alertRef} tabIndex={-1} className="login__notice">
            <Notice tone="error">{[detail, ...formLevelErrors].filter(Boolean).join(' ')}</Notice>
          </div>
        ) : null}

        <form ref={formRef} className="login__form" method="post" action="/login/" noValidate onSubmit={onSubmit}>
          <input type="hidden" name="csrfmiddlewaretoken" value={csrfToken() ?? ''} />
          {rawNext ? <input type="hidden" name="next" value={next} /> : null}
          <TextField
            label="Email"
            name="email"
            type="email"
            autoComplete="email"
            inputMode="email"
            required
            spellCheck={false}
            errors={fieldErrors.email}
            {...carriedEmail}
          />
          <TextField
            label="Password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            errors={fieldErrors.password}
          />
          <Button type="submit" size="lg" className="login__submit" busy={login.isPending}>
            {login.isPending ? 'Signing in…' : 'Sign in'}
          </Button>
        </form>
        <p className="login__forgot">
          <Link to={appPaths.forgotPassword}>Forgot your password?</Link>
        </p>
        <p className="login__footer">
          New here? <Link to={appPaths.register}>Start a free trial</Link> · <Link to={appPaths.library}>Browse the library</Link>
        </p>
      </div>
    </div>
  );
}

export default LoginPage;
