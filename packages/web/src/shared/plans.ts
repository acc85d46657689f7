/**
 * The plans as the operator named and priced them (admin SellingPage renames them): every screen that shows a plan
 * says the operator's name, the one the subscribe page's panels show, never a name of its own.
 */
import { useQuery } from '@tanstack/react-query';
import type { Plan } from '@lectern/core';
import { api } from '../api/client.ts';
import { queryKeys } from '../api/queryKeys.ts';

/** What a plan is called until the operator's names have answered (and should they not answer). */
const DEFAULT_PLAN_NAMES: Record<Plan, string> = { basic: 'Basic', pro: 'Pro' };

export const usePlans = () => useQuery({ queryKey: queryKeys.plans, queryFn: ({ signal }) => api.getPlans(signal) });

/** A plan's name as the operator set it; none recorded is '—'. */
export function usePlanName(): (plan: string | null | undefined) => string {
  const plans = usePlans();
  return (plan) => {
    if (!plan) return '—';
    return plans.data?.find((p) => p.slug === plan)?.name ?? DEFAULT_PLAN_NAMES[plan as Plan] ?? plan;
  };
}

/** A plan's line under its name on the sign-up and subscribe pages; Pro's names Basic as the operator calls it. */
export function planSummary(plan: Plan, planName: (plan: string) => string): string {
  return plan === 'pro' ? `Everything in ${planName('basic')}, and live online training.` : 'The whole library, for one reader.';
}
