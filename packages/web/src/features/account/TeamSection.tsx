/**
 * The account page's team part (docs/decisions.md "Teams"). The owner sees the seats used and
 * bought, the members and the pending invitations; invites by email, revokes, removes, changes the seats and
 * cancels or reactivates the team's subscription. A member sees the team, its owner and whether it is live, and
 * may leave. Someone in no team is offered the team sign-up page.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type Team, TEAM_SEATS_MAX } from '@lectern/core';
import { useRef, useState, type FormEvent } from 'react';
import { api, isApiError, type FieldErrors } from '../../api/client.ts';
import { queryKeys } from '../../api/queryKeys.ts';
import { Button, ButtonLink } from '../../components/Button.tsx';
import { Notice } from '../../components/Notice.tsx';
import { TextField } from '../../components/TextField.tsx';
import { appPaths } from '../../shared/links.ts';
import { usePlanName } from '../../shared/plans.ts';
import { RelativeTime } from '../../components/RelativeTime.tsx';
import { formatDate } from './money.ts';
import './TeamPages.css';

const TEAM_STATUS_LABEL: Record<NonNullable<Team['status']>, string> = { active: 'Active', cancelled: 'Cancelled', expired: 'Expired' };

function useTeamAction() {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<{ text: string; errors: FieldErrors } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = async (key: string, act: () => Promise<Team | null>, message?: string): Promise<boolean> => {
    setBusy(key);
    setError(null);
    setDone(null);
    try {
      const team = await act();
      queryClient.setQueryData(queryKeys.team, team);
      // the reader's own rights may have changed (joined, left): the navigation and the nag read the profile
      void queryClient.invalidateQueries({ queryKey: queryKeys.profile });
      void queryClient.invalidateQueries({ queryKey: ['subscription'] });
      if (message) setDone(message);
      return true;
    } catch (e) {
      setError({ text: e instanceof Error ? e.message : String(e), errors: isApiError(e) ? e.errors : {} });
      return false;
    } finally {
      setBusy(null);
    }
  };
  return { busy, error, done, run };
}

function OwnerView({ team }: { team: Team }) {
  const { busy, error, done, run } = useTeamAction();
  const planName = usePlanName();
  const [email, setEmail] = useState('');
  const [seats, setSeats] = useState(String(team.seats));
  const [removing, setRemoving] = useState<string | null>(null);
  const free = team.seats - team.seats_used;
  const members = useRef<HTMLUListElement>(null);
  /** The keyboard focus on the field a refusal names, once it shows (a screen reader reads its reason there). */
  const focusInvalid = (form: HTMLFormElement) => requestAnimationFrame(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
  /** Back to a member's Remove button when the confirmation closes without removing (it replaced the button). */
  const keep = (uuid: string) => {
    setRemoving(null);
    requestAnimationFrame(() => members.current?.querySelector<HTMLElement>(`[data-remove="${uuid}"]`)?.focus());
  };

  const invite = async (e: FormEvent) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const address = email.trim();
    if (!address) return;
    if (await run('invite', () => api.inviteToTeam(team.id, [address]), `An invitation is on its way to ${address}.`)) setEmail('');
    else focusInvalid(form);
  };
  const changeSeats = async (e: FormEvent) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const wanted = Number(seats);
    if (!(await run('seats', () => api.setTeamSeats(team.id, wanted), `The team has ${wanted} seats now.`))) focusInvalid(form);
  };
  const inviteError = error && (error.errors.emails ?? error.errors['emails.0']);

  return (
    <>
      <dl className="account__facts">
        <dt>Team</dt>
        <dd>{team.name}</dd>
        <dt>Status</dt>
        <dd>
          <span className={`account__status account__status--${team.live ? 'subscriber' : 'expired'}`}>{team.status ? TEAM_STATUS_LABEL[team.status] : '—'}</span>
        </dd>
        <dt>Plan</dt>
        <dd>{planName(team.plan)}</dd>
        <dt>Seats</dt>
        <dd>
          <span className="team__seats">
            {team.seats_used} of {team.seats} used
          </span>
          <meter className="team__meter" min={0} max={team.seats} value={team.seats_used} aria-label={`${team.seats_used} of ${team.seats} seats used`} />
        </dd>
        {team.subscription_ends_at ? (
          <>
            <dt>{team.status === 'active' ? 'Renews on' : team.status === 'cancelled' ? 'Reading until' : 'Ended on'}</dt>
            <dd>{formatDate(team.subscription_ends_at)}</dd>
          </>
        ) : null}
      </dl>
      {error && !inviteError && !error.errors.seats ? <Notice tone="error">{error.text}</Notice> : null}
      {done ? <Notice tone="success">{done}</Notice> : null}

      <h3 id="team-members">Members</h3>
      <ul ref={members} className="team__list" aria-labelledby="team-members">
        {team.members.map((m) => (
          <li key={m.uuid} className="team__row">
            <span className="team__who">
              <span className="team__email">{m.email}</span>
              <span className="account__muted team__note">{m.is_owner ? 'Owner' : m.joined_at ? <>Joined <RelativeTime at={m.joined_at} /></> : 'Member'}</span>
            </span>
            {m.is_owner ? null : removing === m.uuid ? (
              <span className="team__confirm" role="group" aria-label={`Remove ${m.email}`}>
                <Button variant="danger" size="sm" busy={busy === `remove-${m.uuid}`} onClick={() => void run(`remove-${m.uuid}`, () => api.removeTeamMember(team.id, m.uuid), `${m.email} is no longer a member.`).then(() => setRemoving(null))}>
                  Yes, remove
                </Button>
                {/* the confirmation replaces the Remove button: the focus goes to its safe answer */}
                <Button variant="secondary" size="sm" autoFocus onClick={() => keep(m.uuid)}>
                  Keep
                </Button>
              </span>
            ) : (
              <Button variant="secondary" size="sm" aria-label={`Remove ${m.email}`} data-remove={m.uuid} onClick={() => setRemoving(m.uuid)}>
                Remove
              </Button>
            )}
          </li>
        ))}
      </ul>

      <h3 id="team-invitations">Pending invitations</h3>
      {team.invitations.length ? (
        <ul className="team__list" aria-labelledby="team-invitations">
          {team.invitations.map((i) => (
            <li key={i.id} className="team__row">
              <span className="team__who">
                <span className="team__email">{i.email}</span>
                <span className="account__muted team__note">Link works until {formatDate(i.expires_at)} (<RelativeTime at={i.expires_at} />)</span>
              </span>
              <Button variant="secondary" size="sm" aria-label={`Revoke the invitation of ${i.email}`} busy={busy === `revoke-${i.id}`} onClick={() => void run(`revoke-${i.id}`, () => api.revokeTeamInvitation(team.id, i.id), `The invitation of ${i.email} is revoked.`)}>
                Revoke
              </Button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="account__muted">No invitation is waiting for an answer.</p>
      )}

      <form className="team__inline-form" onSubmit={(e) => void invite(e)} noValidate>
        <TextField
          label="Invite a member by email"
          name="email"
          type="email"
          autoComplete="off"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          hint={free > 0 ? `${free} seat${free === 1 ? '' : 's'} free.` : 'Every seat is taken: add seats to invite more people.'}
          errors={inviteError ?? undefined}
        />
        <Button type="submit" busy={busy === 'invite'} disabled={!team.live}>
          Invite
        </Button>
      </form>

      <form className="team__inline-form" onSubmit={(e) => void changeSeats(e)} noValidate>
        <TextField
          label="Seats"
          name="seats"
          type="number"
          inputMode="numeric"
          min={Math.max(1, team.seats_used)}
          max={TEAM_SEATS_MAX}
          value={seats}
          onChange={(e) => setSeats(e.currentTarget.value)}
          hint="More seats are invoiced for the rest of the paid period."
          errors={error?.errors.seats}
        />
        <Button type="submit" variant="secondary" busy={busy === 'seats'}>
          Change seats
        </Button>
      </form>

      <div className="account__actions">
        {team.status === 'active' ? (
          <Button variant="secondary" busy={busy === 'cancel'} onClick={() => void run('cancel', () => api.cancelTeam(team.id), 'The team reads until the end of its paid period.')}>
            Cancel the team's subscription
          </Button>
        ) : (
          <Button busy={busy === 'reactivate'} onClick={() => void run('reactivate', () => api.reactivateTeam(team.id), 'The team reads again.')}>
            Reactivate the team
          </Button>
        )}
      </div>
    </>
  );
}

function MemberView({ team, userUuid }: { team: Team; userUuid: string }) {
  const { busy, error, run } = useTeamAction();
  const [leaving, setLeaving] = useState(false);
  return (
    <>
      <p>
        You are a member of <strong>{team.name}</strong>
        {team.owner ? (
          <>
            , owned by <span className="team__email">{team.owner.email}</span>
          </>
        ) : null}
        .{' '}
        {team.live
          ? 'While the team subscribes, you read everything in the library.'
          : "The team's subscription has ended: your playlists, notes and progress wait for you."}
      </p>
      {error ? <Notice tone="error">{error.text}</Notice> : null}
      <div className="account__actions">
        {leaving ? (
          <span className="team__confirm" role="group" aria-label="Leave the team">
            <Button variant="danger" busy={busy === 'leave'} onClick={() => void run('leave', () => api.removeTeamMember(team.id, userUuid))}>
              Yes, leave {team.name}
            </Button>
            <Button variant="secondary" autoFocus onClick={() => setLeaving(false)}>
              Stay
            </Button>
          </span>
        ) : (
          <Button variant="secondary" onClick={() => setLeaving(true)}>
            Leave the team
          </Button>
        )}
      </div>
    </>
  );
}

export function TeamSection({ userUuid }: { userUuid: string }) {
  const team = useQuery({ queryKey: queryKeys.team, queryFn: ({ signal }) => api.getMyTeam(signal) });
  return (
    <section className="account__section" aria-labelledby="team">
      <h2 id="team">Team</h2>
      {team.isPending ? (
        <p className="account__muted">Loading your team…</p>
      ) : team.isError ? (
        <Notice tone="error">Your team could not be loaded.</Notice>
      ) : !team.data ? (
        <>
          <p className="account__muted">Reading together? Buy seats for your team: each member reads the whole library while the team subscribes.</p>
          <div className="account__actions">
            <ButtonLink to={appPaths.teamSignUp} variant="secondary">
              Start a team
            </ButtonLink>
          </div>
        </>
      ) : team.data.role === 'member' ? (
        <MemberView team={team.data} userUuid={userUuid} />
      ) : (
        <OwnerView team={team.data} />
      )}
    </section>
  );
}
