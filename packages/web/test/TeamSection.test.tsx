/**
 * The account page's team part for its owner (features/account/TeamSection.tsx), by keyboard: a refused invitation
 * or seat count puts the focus on its field (a screen reader reads the reason there); "Remove" opens a confirmation
 * with the focus on its safe answer, and "Keep" gives the focus back to the Remove button it replaced.
 */
import { TEAM_MESSAGES, teamPaths, type Team } from '@lectern/core';
import { fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TeamSection } from '../src/features/account/TeamSection.tsx';
import { flush, json, renderSignedIn, stubFetch } from './helpers.tsx';

const team: Team = {
  id: 7,
  name: 'Readers',
  role: 'owner',
  owner: { email: 'owner@example.com', username: 'owner' },
  plan: 'basic',
  status: 'active',
  subscription_ends_at: '2030-01-01T00:00:00.000Z',
  live: true,
  seats: 2,
  seats_used: 2,
  members: [
    { uuid: 'u-owner', email: 'owner@example.com', username: 'owner', is_owner: true, joined_at: '2026-01-01T00:00:00.000Z' },
    { uuid: 'u-member', email: 'member@example.com', username: 'member', is_owner: false, joined_at: '2026-01-02T00:00:00.000Z' },
  ],
  invitations: [],
};
const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));

describe('TeamSection, the owner', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('puts the focus on the invitation field a refusal names', async () => {
    const full = TEAM_MESSAGES.notEnoughSeats(0);
    stubFetch((call) =>
      call.url.includes(teamPaths.invitations(team.id)) ? json(400, { detail: full, errors: { emails: [full] } }) : call.url.includes(teamPaths.mine()) ? json(200, { team }) : json(404, { detail: 'no' }),
    );
    renderSignedIn(<TeamSection userUuid="u-owner" />, [], '/u');
    await flush(40);
    const field = await screen.findByLabelText('Invite a member by email');
    fireEvent.change(field, { target: { value: 'third@example.com' } });
    const invite = screen.getByRole('button', { name: 'Invite' });
    invite.focus();
    fireEvent.submit(invite.closest('form')!);
    await flush(60);
    await frame();
    expect(screen.getByText(full)).toBeTruthy();
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(field);
  });

  it("opens the removal's confirmation with the focus on Keep, and Keep gives it back to Remove", async () => {
    stubFetch((call) => (call.url.includes(teamPaths.mine()) ? json(200, { team }) : json(404, { detail: 'no' })));
    renderSignedIn(<TeamSection userUuid="u-owner" />, [], '/u');
    await flush(40);
    fireEvent.click(await screen.findByRole('button', { name: 'Remove member@example.com' }));
    await flush();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Keep' }));
    fireEvent.click(screen.getByRole('button', { name: 'Keep' }));
    await flush();
    await frame();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Remove member@example.com' }));
  });
});
