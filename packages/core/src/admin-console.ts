/**
 * What the older admin routes answer, as the operators' console reads them (docs/decisions.md "The operators' console,
 * web side"; the newer routes' shapes are in admin.ts): the promotion codes with their redemptions, the announcements
 * with their window, the editors' picks, and what the console sends to create a promotion code (the same rules as the
 * service's own check).
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { PLANS } from './account-entry.ts';

/** GET /api/v2/admin/promotion-codes/ (`is_sale` is a 0/1 flag on SQLite) */
export const adminPromotionCodeSchema = lazySchema(() => z.object({
  code: z.string(),
  kind: z.enum(['percent', 'fixed']),
  amount: z.number(),
  plan: z.enum(PLANS).nullable(),
  expires_at: z.string().nullable(),
  usage_limit: z.number().nullable(),
  /** how many times it was redeemed */
  used_count: z.coerce.number(),
  is_sale: z.union([z.boolean(), z.number()]).transform(Boolean),
  created_at: z.string(),
}));
export type AdminPromotionCode = z.infer<typeof adminPromotionCodeSchema>;
export const adminPromotionCodeListSchema = lazySchema(() => z.object({ results: z.array(adminPromotionCodeSchema) }));

/** POST /api/v2/admin/promotion-codes/ */
export interface AdminPromotionCodeInput {
  code: string;
  kind: 'percent' | 'fixed';
  amount: number;
  plan: (typeof PLANS)[number] | null;
  expires_at: string | null;
  usage_limit: number | null;
  is_sale: boolean;
}

/** GET /api/v2/admin/announcements/ */
export const adminAnnouncementSchema = lazySchema(() => z.object({
  id: z.string(),
  message: z.string(),
  url: z.string().nullable(),
  starts_at: z.string(),
  ends_at: z.string().nullable(),
  created_at: z.string(),
}));
export type AdminAnnouncement = z.infer<typeof adminAnnouncementSchema>;
export const adminAnnouncementListSchema = lazySchema(() => z.object({ results: z.array(adminAnnouncementSchema) }));

/** GET and PUT /api/v2/admin/editors-picks/ */
export const adminEditorsPicksSchema = lazySchema(() => z.object({ book_ids: z.array(z.string()) }));
