/**
 * Teams (paths in core's teamPaths and docs/decisions.md "Teams"): the caller's team, buying
 * seats, inviting (limited per inviting account), revoking, removing and leaving, the team's subscription, and the
 * invitation link (what it offers; accepting it, which signs a visitor up and in).
 */
import { MESSAGES, myTeamSchema, teamPaths, invitationTokenQuerySchema } from '@lectern/core';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { currentUser, requireSignedIn, setSessionCookies } from '../plugins/auth-context.ts';
import { issueCsrfCookie } from '../plugins/csrf.ts';
import type { AuthService } from '../services/auth.ts';
import { type LimitedAction, type RequestLimits, TooManyRequests } from '../services/request-limits.ts';
import type { TeamsService } from '../services/teams.ts';
import type { CsrfTokens } from '../services/tokens.ts';

const id = z.coerce.number().int().min(1).max(2 ** 31 - 1);
const teamParams = z.object({ id });
const invitationParams = z.object({ id, invitationId: id });
const memberParams = z.object({ id, uuid: z.string().min(1).max(100) });

export function teamRoutes(app: FastifyInstance, deps: { teams: TeamsService; auth: AuthService; limits: RequestLimits; csrf: CsrfTokens }): void {
  const limit = async (action: LimitedAction, key: string, reply: FastifyReply) => {
    try {
      await deps.limits.count(action, key);
    } catch (err) {
      if (err instanceof TooManyRequests) reply.header('retry-after', String(err.retryAfterSeconds));
      throw err;
    }
  };
  const signedIn = async (request: Parameters<typeof requireSignedIn>[0], reply: FastifyReply) => {
    reply.header('cache-control', 'no-store');
    return (await requireSignedIn(request, MESSAGES.userNotLoggedIn)).user;
  };

  app.get(teamPaths.mine(), async (request, reply) => {
    const user = await signedIn(request, reply);
    return myTeamSchema.parse({ team: await deps.teams.mine(user) });
  });

  app.post(teamPaths.create(), async (request, reply) => {
    const user = await signedIn(request, reply);
    await limit('team-invite', `user:${user.id}`, reply);
    return reply.status(201).send(await deps.teams.create(user, request.body));
  });

  app.get(teamPaths.team(':id'), async (request, reply) => {
    const user = await signedIn(request, reply);
    return deps.teams.get(user, teamParams.parse(request.params).id);
  });

  app.put(teamPaths.seats(':id'), async (request, reply) => {
    const user = await signedIn(request, reply);
    return deps.teams.setSeats(user, teamParams.parse(request.params).id, request.body);
  });

  app.post(teamPaths.invitations(':id'), async (request, reply) => {
    const user = await signedIn(request, reply);
    await limit('team-invite', `user:${user.id}`, reply);
    return reply.status(201).send(await deps.teams.invite(user, teamParams.parse(request.params).id, request.body));
  });

  app.delete(teamPaths.invitation(':id', ':invitationId'), async (request, reply) => {
    const user = await signedIn(request, reply);
    const { id: teamId, invitationId } = invitationParams.parse(request.params);
    return deps.teams.revoke(user, teamId, invitationId);
  });

  app.delete('/api/v1/teams/:id/members/:uuid/', async (request, reply) => {
    const user = await signedIn(request, reply);
    const { id: teamId, uuid } = memberParams.parse(request.params);
    return { team: await deps.teams.removeMember(user, teamId, uuid) };
  });

  app.post(teamPaths.cancel(':id'), async (request, reply) => {
    const user = await signedIn(request, reply);
    return deps.teams.cancel(user, teamParams.parse(request.params).id);
  });

  app.post(teamPaths.reactivate(':id'), async (request, reply) => {
    const user = await signedIn(request, reply);
    return deps.teams.reactivate(user, teamParams.parse(request.params).id);
  });

  app.get(teamPaths.invitationByToken(), async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { token } = invitationTokenQuerySchema.parse(request.query);
    return deps.teams.invitationInfo(token);
  });

  // A visitor signs up here: limited per address as registration is.
  app.post(teamPaths.invitationByToken(), async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const user = await currentUser(request);
    if (!user) await limit('register', request.ip, reply);
    const { team, user: member, created } = await deps.teams.accept(user, request.body);
    if (created) {
      const session = await deps.auth.openSession(member, request.headers['user-agent'] ?? null);
      request.authOverride = session;
      setSessionCookies(request, reply, session.token);
      issueCsrfCookie(request, reply, deps.csrf, session.session.public_id);
    }
    return reply.status(created ? 201 : 200).send({ team });
  });
}
