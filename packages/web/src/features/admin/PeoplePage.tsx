/**
 * People (docs/decisions.md "The operators' console, web side"): search accounts; one account's status, roles, trial
 * end, team and sessions; change roles and status, send a password reset, end every session; create an account. Each
 * change lands in the audit log.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ACCOUNT_STATUSES, CONSOLE_MESSAGES as M, ROLES, type AdminUserDetail } from '@lectern/core';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { isApiError } from '../../api/client.ts';
import { Button } from '../../components/Button.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { TextField } from '../../components/TextField.tsx';
import { consolePaths } from './access.ts';
import { formatDate, formatDateTime } from './format.ts';
import { AdminListPage } from './AdminListPage.tsx';
import { ActionStatus, useAction } from './useAction.tsx';
import { usePaged } from './usePaged.ts';
import { SelectField } from './SelectField.tsx';

type Status = (typeof ACCOUNT_STATUSES)[number];
type Role = (typeof ROLES)[number];

export function PeoplePage() {
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const [status, setStatus] = useState<'' | Status>('');
  const paged = usePaged(adminKeys.users, { q: q || undefined, status: status || undefined }, (query, signal) => adminApi.users(query, signal));
  return (
    <AdminListPage
      title="People"
      onSearch={() => setQ(typed.trim())}
      filters={
        <>
          <TextField label="Search by email or name" name="q" type="search" value={typed} onChange={(e) => setTyped(e.target.value)} />
          <SelectField label="Status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
            <option value="">Any</option>
            {ACCOUNT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </SelectField>
        </>
      }
      paged={paged}
      label="People list"
      pagerLabel="People pages"
      rowKey={(u) => u.user_id}
      columns={[
        { header: 'Email', cell: (u) => <Link to={consolePaths.user(u.user_id)}>{u.email}</Link> },
        { header: 'Status', cell: (u) => u.effective_status },
        { header: 'Roles', cell: (u) => u.roles.join(', ') || 'reader' },
        { header: 'Trial ends', cell: (u) => formatDate(u.trial_ends_at) },
        { header: 'Joined', cell: (u) => formatDate(u.created_at) },
      ]}
    >
      <CreateAccount />
    </AdminListPage>
  );
}

function CreateAccount() {
  const navigate = useNavigate();
  const action = useAction();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [status, setStatus] = useState<Status>('trial');
  const [role, setRole] = useState<'' | Role>('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    let id = '';
    const made = await action.run(async () => {
      id = (await adminApi.createUser({ email, password, status, roles: role ? [role] : [] })).user_id;
    });
    if (made) navigate(consolePaths.user(id));
  };
  return (
    <section className="admin-panel admin-space" aria-labelledby="admin-create-account">
      <h2 id="admin-create-account">Create an account</h2>
      <form className="admin-form" onSubmit={(e) => void submit(e)} noValidate>
        <TextField label="Email" name="email" type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} errors={action.errors.email} />
        <TextField label="Password" name="password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} errors={action.errors.password} />
        <SelectField label="Status" value={status} onChange={(e) => setStatus(e.target.value as Status)}>
          {ACCOUNT_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </SelectField>
        <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as typeof role)}>
          <option value="">Reader</option>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </SelectField>
        <div className="admin-form__actions">
          <Button type="submit" busy={action.busy}>
            Create account
          </Button>
          <ActionStatus action={action} />
        </div>
      </form>
    </section>
  );
}

export function PersonPage() {
  const userId = useParams().userId ?? '';
  const user = useQuery({ queryKey: adminKeys.user(userId), queryFn: ({ signal }) => adminApi.user(userId, signal) });
  if (user.isPending) return <Spinner label="Loading…" />;
  if (user.isError) return <ErrorState message={isApiError(user.error) ? user.error.detail : M.loadFailed} onRetry={() => void user.refetch()} />;
  return <Person key={JSON.stringify([user.data.roles, user.data.status])} user={user.data} />;
}

function Person({ user }: { user: AdminUserDetail }) {
  const client = useQueryClient();
  const edit = useAction();
  const mail = useAction();
  const sessions = useAction();
  const [roles, setRoles] = useState<Role[]>(user.roles);
  const [status, setStatus] = useState<Status>(user.status);
  const refresh = () => void client.invalidateQueries({ queryKey: adminKeys.user(user.user_id) });
  const save = async (e: FormEvent) => {
    e.preventDefault();
    const done = await edit.run(async () => client.setQueryData(adminKeys.user(user.user_id), await adminApi.editUser(user.user_id, { roles, status })), () => M.saved);
    if (done) void client.invalidateQueries({ queryKey: ['admin', 'users'] });
  };
  return (
    <div>
      <div className="admin-head">
        <h1 className="page-heading">{user.email}</h1>
        <p>{user.username}</p>
      </div>
      <dl className="admin-facts">
        <div>
          <dt>Status</dt>
          <dd>{user.effective_status}</dd>
        </div>
        <div>
          <dt>Plan</dt>
          <dd>{user.plan ?? '—'}</dd>
        </div>
        <div>
          <dt>Trial ends</dt>
          <dd>{formatDate(user.trial_ends_at)}</dd>
        </div>
        <div>
          <dt>Team</dt>
          <dd>{user.team ? `${user.team.name} (${user.team.role})` : '—'}</dd>
        </div>
        <div>
          <dt>Joined</dt>
          <dd>{formatDate(user.created_at)}</dd>
        </div>
      </dl>
      <section className="admin-panel" aria-labelledby="admin-person-access">
        <h2 id="admin-person-access">Role and status</h2>
        <form className="admin-form" onSubmit={(e) => void save(e)} noValidate>
          <fieldset className="admin-form__wide admin-fieldset">
            <legend>Roles</legend>
            {ROLES.map((r) => (
              <label key={r} className="admin-check">
                <input type="checkbox" checked={roles.includes(r)} onChange={(e) => setRoles(e.target.checked ? [...roles, r] : roles.filter((x) => x !== r))} /> {r}
              </label>
            ))}
          </fieldset>
          <SelectField label="Status" value={status} onChange={(e) => setStatus(e.target.value as Status)}>
            {ACCOUNT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </SelectField>
          <div className="admin-form__actions">
            <Button type="submit" busy={edit.busy}>
              Save
            </Button>
            <ActionStatus action={edit} />
          </div>
        </form>
      </section>
      <section className="admin-panel" aria-labelledby="admin-person-sessions">
        <h2 id="admin-person-sessions">Sign-in</h2>
        <div className="admin-form__actions">
          <Button variant="secondary" busy={mail.busy} onClick={() => void mail.run(() => adminApi.sendPasswordReset(user.user_id), () => `A password reset link was sent to ${user.email}.`)}>
            Send a password reset
          </Button>
          <Button
            variant="danger"
            busy={sessions.busy}
            disabled={!user.sessions.length}
            onClick={() => void sessions.run(() => adminApi.endSessions(user.user_id), (r) => `${r.ended} ${r.ended === 1 ? 'session' : 'sessions'} ended.`).then(refresh)}
          >
            End all sessions
          </Button>
        </div>
        <ActionStatus action={mail} />
        <ActionStatus action={sessions} />
        {user.sessions.length ? (
          <ul className="admin-list admin-space" aria-label="Sessions">
            {user.sessions.map((s) => (
              <li key={s.session_id}>
                <div>
                  <p className="admin-strong">{s.user_agent ?? 'Unknown browser'}</p>
                  <p className="admin-muted admin-small">
                    Signed in {formatDateTime(s.created_at)}, until {formatDateTime(s.expires_at)}
                  </p>
                </div>
              </li>
            ))}
          </ul>
        ) : (
          <p className="admin-muted admin-space">No sessions.</p>
        )}
      </section>
    </div>
  );
}
