/**
 * The operators' console, selling (docs/decisions.md "The console's selling"; contract in core/admin-selling.ts,
 * addresses in core/admin.ts): invoices listed, teams (list, detail, seats, owner, removing a member), a promotion
 * code's limit and end and its redemptions. Admins only. Every change sets `request.audit` (plugins/admin-audit.ts
 * writes it). Creating codes, plans and marking an invoice paid are the older routes in routes/subscriptions.ts.
 */
import {
  adminInvoicesQuerySchema,
  adminPageQuerySchema,
  adminPaths,
  adminPromotionCodePatchSchema,
  adminTeamOwnerSchema,
  adminTeamsQuerySchema,
  APP_MESSAGES,
} from '@lectern/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { assertAdmin } from '../policies/admin.ts';
import { currentUser } from '../plugins/auth-context.ts';
import { type AdminSellingService, teamIdOf } from '../services/admin-selling.ts';

const teamParams = z.object({ teamId: z.string().min(1).max(20) });
const memberParams = z.object({ teamId: z.string().min(1).max(20), userId: z.string().min(1).max(100) });
const codeParams = z.object({ code: z.string().min(1).max(60) });

export function adminSellingRoutes(app: FastifyInstance, deps: { selling: AdminSellingService }): void {
  const admin = async (request: FastifyRequest) => {
    assertAdmin(await currentUser(request), APP_MESSAGES.adminOnly);
  };
  const noCache = { 'cache-control': 'private, no-cache' };

  app.get(adminPaths.invoices(), async (request, reply) => {
    await admin(request);
    reply.headers(noCache);
    return deps.selling.invoices(adminInvoicesQuerySchema.parse(request.query ?? {}));
  });

  // ---- promotion codes (GET list and POST create: routes/subscriptions.ts)
  app.patch('/api/v2/admin/promotion-codes/:code/', async (request) => {
    await admin(request);
    const { code } = codeParams.parse(request.params);
    const { code: after, changed } = await deps.selling.editPromotionCode(code, adminPromotionCodePatchSchema.parse(request.body ?? {}));
    request.audit = { action: 'promotion-code.edit', target_kind: 'promotion-code', target_id: after.code, detail: { changed } };
    return after;
  });

  app.get('/api/v2/admin/promotion-codes/:code/redemptions/', async (request, reply) => {
    await admin(request);
    reply.headers(noCache);
    return deps.selling.redemptions(codeParams.parse(request.params).code, adminPageQuerySchema.parse(request.query ?? {}));
  });

  // ---- teams
  app.get(adminPaths.teams(), async (request, reply) => {
    await admin(request);
    reply.headers(noCache);
    return deps.selling.teamList(adminTeamsQuerySchema.parse(request.query ?? {}));
  });

  app.get('/api/v1/admin/teams/:teamId/', async (request, reply) => {
    await admin(request);
    reply.headers(noCache);
    return deps.selling.team(teamIdOf(teamParams.parse(request.params).teamId));
  });

  app.put('/api/v1/admin/teams/:teamId/seats/', async (request) => {
    await admin(request);
    const teamId = teamIdOf(teamParams.parse(request.params).teamId);
    const { team, changed } = await deps.selling.setSeats(teamId, request.body);
    request.audit = { action: 'team.seats', target_kind: 'team', target_id: team.team_id, detail: { name: team.name, changed } };
    return team;
  });

  app.put('/api/v1/admin/teams/:teamId/owner/', async (request) => {
    await admin(request);
    const teamId = teamIdOf(teamParams.parse(request.params).teamId);
    const { user_id } = adminTeamOwnerSchema.parse(request.body ?? {});
    const { team, changed } = await deps.selling.setOwner(teamId, user_id);
    request.audit = { action: 'team.owner', target_kind: 'team', target_id: team.team_id, detail: { name: team.name, changed } };
    return team;
  });

  app.delete('/api/v1/admin/teams/:teamId/members/:userId/', async (request) => {
    await admin(request);
    const { teamId: raw, userId } = memberParams.parse(request.params);
    const { team, email } = await deps.selling.removeMember(teamIdOf(raw), userId);
    request.audit = { action: 'team.remove-member', target_kind: 'team', target_id: team.team_id, detail: { name: team.name, member: email } };
    return team;
  });
}
