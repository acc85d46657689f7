/**
 * Teams (docs/decisions.md "The console's selling"): search teams by name or owner; one team's seats (never below those
 * in use), its members with when they joined, a member made the owner, a member removed. The rules are the owner's own
 * (services/teams.ts); each change is written to the audit log.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { CONSOLE_MESSAGES as M, type AdminTeamDetail } from '@lectern/core';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { adminApi, adminKeys } from '../../api/admin.ts';
import { isApiError } from '../../api/client.ts';
import { Button } from '../../components/Button.tsx';
import { ErrorState } from '../../components/ErrorState.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { TextField } from '../../components/TextField.tsx';
import { consolePaths } from './access.ts';
import { AdminListPage } from './AdminListPage.tsx';
import { formatDate } from './format.ts';
import { ActionStatus, useAction } from './useAction.tsx';
import { usePaged } from './usePaged.ts';

const stateOf = (t: Pick<AdminTeamDetail, 'status' | 'plan'>) => (t.status ? `${t.plan ?? ''} ${t.status}`.trim() : 'no subscription');

export function TeamsPage() {
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const paged = usePaged(adminKeys.teams, { q: q || undefined }, (query, signal) => adminApi.teams(query, signal));
  return (
    <AdminListPage
      title="Teams"
      onSearch={() => setQ(typed.trim())}
      filters={<TextField label="Search by team name or owner's email" name="q" type="search" value={typed} onChange={(e) => setTyped(e.target.value)} />}
      paged={paged}
      label="Teams list"
      pagerLabel="Teams pages"
      rowKey={(t) => t.team_id}
      columns={[
        { header: 'Team', cell: (t) => <Link to={consolePaths.team(t.team_id)}>{t.name}</Link> },
        { header: 'Owner', cell: (t) => t.owner?.email ?? '—' },
        { header: 'Seats used', cell: (t) => `${t.seats_used} of ${t.seats}`, className: 'num admin-nowrap' },
        { header: 'Members', cell: (t) => t.members, className: 'num' },
        { header: 'Subscription', cell: (t) => stateOf(t) },
      ]}
    />
  );
}

export function TeamPage() {
  const teamId = useParams().teamId ?? '';
  const team = useQuery({ queryKey: adminKeys.team(teamId), queryFn: ({ signal }) => adminApi.team(teamId, signal) });
  if (team.isPending) return <Spinner label="Loading…" />;
  if (team.isError) return <ErrorState message={isApiError(team.error) ? team.error.detail : M.loadFailed} onRetry={() => void team.refetch()} />;
  return <Team team={team.data} />;
}

function Team({ team }: { team: AdminTeamDetail }) {
  const client = useQueryClient();
  const seatsAction = useAction();
  const members = useAction();
  const [seats, setSeats] = useState(String(team.seats));
  const [removing, setRemoving] = useState<string | null>(null);
  /** the team as the server answered, everywhere it is shown */
  const show = (next: AdminTeamDetail) => {
    client.setQueryData(adminKeys.team(team.team_id), next);
    void client.invalidateQueries({ queryKey: ['admin', 'teams'] });
    void client.invalidateQueries({ queryKey: ['admin', 'invoices'] });
  };
  const saveSeats = async (e: FormEvent) => {
    e.preventDefault();
    const n = Number(seats.trim());
    let saved: AdminTeamDetail | null = null;
    await seatsAction.run(
      async () => (saved = await adminApi.setTeamSeats(team.team_id, seats.trim() && Number.isInteger(n) ? n : -1)),
      (t) => M.seatsSaved(t.seats),
    );
    if (saved) show(saved);
  };
  const act = async (work: () => Promise<AdminTeamDetail>, message: (t: AdminTeamDetail) => string) => {
    let after: AdminTeamDetail | null = null;
    await members.run(async () => (after = await work()), message);
    setRemoving(null);
    if (after) show(after);
  };
  return (
    <div>
      <div className="admin-head">
        <h1 className="page-heading">{team.name}</h1>
        <p>
          <Link to={consolePaths.section('teams')}>All teams</Link>
        </p>
      </div>
      <dl className="admin-facts">
        <div>
          <dt>Owner</dt>
          <dd>{team.owner ? <Link to={consolePaths.user(team.owner.user_id)}>{team.owner.email}</Link> : '—'}</dd>
        </div>
        <div>
          <dt>Subscription</dt>
          <dd>
            {stateOf(team)}
            {team.subscription_ends_at ? `, until ${formatDate(team.subscription_ends_at)}` : ''}
          </dd>
        </div>
        <div>
          <dt>Seats used</dt>
          <dd>
            {team.seats_used} of {team.seats}
          </dd>
        </div>
        <div>
          <dt>Members read</dt>
          <dd>{team.live ? 'yes' : 'no'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDate(team.created_at)}</dd>
        </div>
      </dl>
      <section className="admin-panel" aria-labelledby="admin-team-seats">
        <h2 id="admin-team-seats">Seats</h2>
        <p className="admin-hint">
          Never fewer than the {team.seats_used} in use by members and pending invitations. Added seats of a team whose subscription runs are invoiced to its
          owner for the rest of the paid period.
        </p>
        <form className="admin-form" onSubmit={(e) => void saveSeats(e)} aria-label="Change the seats" noValidate>
          <TextField label="Seats" name="seats" inputMode="numeric" value={seats} onChange={(e) => setSeats(e.target.value)} errors={seatsAction.errors.seats} />
          <div className="admin-form__actions">
            <Button type="submit" busy={seatsAction.busy}>
              Save seats
            </Button>
            <ActionStatus action={seatsAction} />
          </div>
        </form>
      </section>
      <section className="admin-panel" aria-labelledby="admin-team-members">
        <h2 id="admin-team-members">Members</h2>
        <ActionStatus action={members} />
        <div className="admin-table-wrap" tabIndex={0} role="region" aria-label="Members list">
          <table className="admin-table">
            <thead>
              <tr>
                <th>Email</th>
                <th>Joined</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {team.member_list.map((m) => (
                <tr key={m.user_id} data-member={m.email}>
                  <td>
                    <Link to={consolePaths.user(m.user_id)}>{m.email}</Link> {m.is_owner ? <span className="admin-badge admin-badge--ok">owner</span> : null}
                  </td>
                  <td className="admin-nowrap">{formatDate(m.joined_at)}</td>
                  <td>
                    {m.is_owner ? null : removing === m.user_id ? (
                      <div className="admin-row-action">
                        <span>{M.confirmRemoveMember(m.email)}</span>
                        <Button variant="danger" size="sm" busy={members.busy} onClick={() => void act(() => adminApi.removeTeamMember(team.team_id, m.user_id), () => M.memberRemoved(m.email))}>
                          Remove
                        </Button>
                        <Button variant="secondary" size="sm" onClick={() => setRemoving(null)}>
                          Keep
                        </Button>
                      </div>
                    ) : (
                      <div className="admin-row-action">
                        <Button variant="secondary" size="sm" busy={members.busy} aria-label={`Make ${m.email} the owner`} onClick={() => void act(() => adminApi.setTeamOwner(team.team_id, m.user_id), () => M.ownerChanged(m.email))}>
                          Make owner
                        </Button>
                        <Button variant="ghost" size="sm" aria-label={`Remove ${m.email} from the team`} onClick={() => setRemoving(m.user_id)}>
                          Remove
                        </Button>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {team.invitations.length ? (
          <>
            <h3 className="admin-subhead">Pending invitations</h3>
            <ul className="admin-list" aria-label="Pending invitations">
              {team.invitations.map((i) => (
                <li key={i.id}>
                  <span>{i.email}</span> <span className="admin-muted admin-small">until {formatDate(i.expires_at)}</span>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
    </div>
  );
}
