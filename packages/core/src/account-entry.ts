/**
 * Joining (docs/decisions.md "Joining", library-playlists-account.md §1-§5): registration, the email check, the
 * password check and the topics chosen after signing up. The spec gives these calls no paths; ours are below and in
 * docs/decisions.md.
 */
import { z } from 'zod';
import { lazySchema } from './lazy-schema.ts';
import { PASSWORD_MAX_LENGTH } from './constants.ts';
import { ACCOUNT_ENTRY_MESSAGES, FIRST_OPERATOR_MESSAGES, SUBSCRIPTION_MESSAGES } from './messages.ts';
import { topicSchema } from './schemas.ts';

export const PLANS = ['basic', 'pro'] as const;
export type Plan = (typeof PLANS)[number];
/** §5: choosing the basic plan sets this promotion code; pro clears it. */
export const BASIC_PLAN_PROMOTION_CODE = 'price24';
/** §5: the password check is asked of the server 300 ms after the last key. */
export const PASSWORD_CHECK_DEBOUNCE_MS = 300;
/** §4: notices close on click; success and info ones fade after 15 s (error and alert stay until closed). */
export const NOTICE_FADE_MS = 15_000;
/** §4: the welcome message slides away after 25 s. */
export const WELCOME_MESSAGE_MS = 25_000;
/** At most this many topics are kept from the onboarding form. */
export const ONBOARDING_TOPICS_MAX = 20;

/**
 * §5: "an email-shape pattern exists (local part, domain, ending of 2 to 4 letters)": the browser's live hint, with
 * the ending widened to 2 or more letters (docs/decisions.md "Joining": .local, .online, .museum are real endings
 * that 2 to 4 would refuse). The server's own check (zod's email) is the one that decides.
 */
export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[A-Za-z]{2,}$/;

const emailField = lazySchema(() => z
  .string({ message: ACCOUNT_ENTRY_MESSAGES.required })
  .trim()
  .min(1, ACCOUNT_ENTRY_MESSAGES.required)
  .max(254, ACCOUNT_ENTRY_MESSAGES.emailShape)
  .toLowerCase());

export const registrationSchema = lazySchema(() => z.object({
  email: emailField,
  password: z.string({ message: ACCOUNT_ENTRY_MESSAGES.required }).min(1, ACCOUNT_ENTRY_MESSAGES.required).max(PASSWORD_MAX_LENGTH),
  plan: z.enum(PLANS, { message: ACCOUNT_ENTRY_MESSAGES.planChoice }).default('basic'),
  /** §3: the form carries the recently viewed bits (ignored beyond their shape) */
  recently_viewed: z.string().max(2000).optional(),
  csrfmiddlewaretoken: z.string().max(200).optional(),
}));
export type RegistrationRequest = z.input<typeof registrationSchema>;

/** §3 "Registration response". */
export const registrationResponseSchema = lazySchema(() => z.object({
  userId: z.string(),
  onboardingLocation: z.string().nullable(),
  /** ours: when the trial ends (ISO), for the welcome message */
  trial_ends_at: z.string().nullable(),
}));
export type RegistrationResponse = z.infer<typeof registrationResponseSchema>;
/** §3: a failed registration answers `{errors: {field: [messages]}}`. */
export const registrationErrorsSchema = lazySchema(() => z.object({ errors: z.record(z.string(), z.array(z.string())) }));

export const emailCheckQuerySchema = lazySchema(() => z.object({ email: z.string().max(10_000).default('') }));
/** §3 "Email check response". */
export const emailCheckResponseSchema = lazySchema(() => z.object({ success: z.boolean(), message: z.string() }));

export const passwordValidationSchema = lazySchema(() => z.object({
  password: z.string().max(10_000).default(''),
  email: z.string().max(254).optional(),
  field_name: z.string().max(100).optional(),
  csrfmiddlewaretoken: z.string().max(200).optional(),
}));
/** §3 "Password check response". */
export const passwordValidationResponseSchema = lazySchema(() => z.object({ valid: z.boolean(), msg: z.string() }));

export const chosenTopicsSchema = lazySchema(() => z.object({
  topics: z.array(z.string().min(1).max(200)).max(ONBOARDING_TOPICS_MAX, `Choose at most ${ONBOARDING_TOPICS_MAX} topics.`),
}));
/** GET/PUT of the chosen topics answers the topics now chosen. */
export const chosenTopicListSchema = lazySchema(() => z.object({ topics: z.array(topicSchema) }));

export const PLAN_PERIODS = ['month', 'year'] as const;
export const planSchema = lazySchema(() => z.object({
  slug: z.enum(PLANS),
  name: z.string(),
  price_cents: z.number().int(),
  currency: z.string(),
  period: z.enum(PLAN_PERIODS),
}));
export type PlanInfo = z.infer<typeof planSchema>;
export const planListSchema = lazySchema(() => z.object({ results: z.array(planSchema) }));

export const promotionQuerySchema = lazySchema(() => z.object({
  code: z.string().max(100).default(''),
  plan: z.enum(PLANS, { message: ACCOUNT_ENTRY_MESSAGES.planChoice }).default('basic'),
}));
/** §3 "Promotion response": success, promotion_code, message, currency_costs, period, is_sale. */
export const promotionResponseSchema = lazySchema(() => z.object({
  success: z.boolean(),
  promotion_code: z.string(),
  message: z.string(),
  /** the plan's price after the code, by currency, as a decimal string ("19.20") */
  currency_costs: z.record(z.string(), z.string()),
  period: z.string(),
  is_sale: z.boolean(),
}));
export type PromotionResponse = z.infer<typeof promotionResponseSchema>;

/** The member states of the European Union (ISO 3166-1 alpha-2), whose consumers' agreement §4 asks for. */
export const EU_COUNTRIES = [
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL',
  'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE',
] as const;
export const isEuCountry = (code: string | undefined | null): boolean => !!code && (EU_COUNTRIES as readonly string[]).includes(code.toUpperCase());

/** Every country a subscriber can name (ISO 3166-1 alpha-2); the browser's Intl.DisplayNames gives the names. */
export const COUNTRY_CODES = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC ' +
  'CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD ' +
  'GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH ' +
  'KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW ' +
  'MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC ' +
  'SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY ' +
  'UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');

/** Where the chosen country is remembered in the browser (§4: "remembered locally"). */
export const COUNTRY_STORAGE_KEY = 'lectern.country';

/** The fields both calls share, made with the schema that uses them (built on first use). */
const subscribeFields = () => ({
  plan: z.enum(PLANS, { message: ACCOUNT_ENTRY_MESSAGES.planChoice }),
  promotion_code: z.string().max(100).optional(),
  /** ISO 3166-1 alpha-2; in the EU the subscriber must accept the agreement below */
  country: z
    .string()
    .transform((c) => c.toUpperCase())
    .refine((c) => COUNTRY_CODES.includes(c), { message: SUBSCRIPTION_MESSAGES.countryUnknown })
    .optional(),
  /** EU consumers: reading starts at once, so the 14-day right of withdrawal ends when it does */
  eu_agreement: z.boolean().optional(),
  csrfmiddlewaretoken: z.string().max(200).optional(),
});

/** An EU subscriber must accept the agreement: a 400 that names the field otherwise. */
const needsEuAgreement = (body: { country?: string; eu_agreement?: boolean }, ctx: z.RefinementCtx) => {
  if (isEuCountry(body.country) && body.eu_agreement !== true) {
    ctx.addIssue({ code: 'custom', path: ['eu_agreement'], message: SUBSCRIPTION_MESSAGES.agreementRequired });
  }
};

export const subscribeRequestSchema = lazySchema(() => z.object(subscribeFields()).superRefine(needsEuAgreement));
export type SubscribeRequest = z.input<typeof subscribeRequestSchema>;
/** Reactivating: the plan may be left as it was. */
export const reactivateRequestSchema = lazySchema(() => {
  const fields = subscribeFields();
  return z.object({ ...fields, plan: fields.plan.optional() }).superRefine(needsEuAgreement);
});

export const invoiceSchema = lazySchema(() => z.object({
  id: z.number().int(),
  plan: z.string(),
  amount_cents: z.number().int(),
  currency: z.string(),
  promotion_code: z.string().nullable(),
  status: z.enum(['open', 'paid', 'void']),
  period_start: z.string(),
  period_end: z.string(),
  created_at: z.string(),
  paid_at: z.string().nullable(),
  /** the seats a team invoice pays for (docs/decisions.md "Teams"); null for an account's own subscription */
  seats: z.number().int().nullable().optional(),
}));
export type Invoice = z.infer<typeof invoiceSchema>;

/** The account page's subscription part. */
export const subscriptionSchema = lazySchema(() => z.object({
  status: z.enum(['trial', 'subscriber', 'expired', 'cancelled']),
  plan: z.string().nullable(),
  trial_ends_at: z.string().nullable(),
  subscription_ends_at: z.string().nullable(),
  /** what the reader may do next: the forms the page offers */
  can: z.object({ subscribe: z.boolean(), upgrade: z.boolean(), cancel: z.boolean(), reactivate: z.boolean() }),
  invoices: z.array(invoiceSchema),
}));
export type Subscription = z.infer<typeof subscriptionSchema>;

export const passwordChangeSchema = lazySchema(() => z.object({
  current_password: z.string({ message: ACCOUNT_ENTRY_MESSAGES.required }).min(1, ACCOUNT_ENTRY_MESSAGES.required).max(PASSWORD_MAX_LENGTH),
  new_password: z.string({ message: ACCOUNT_ENTRY_MESSAGES.required }).min(1, ACCOUNT_ENTRY_MESSAGES.required).max(PASSWORD_MAX_LENGTH),
}));
export const emailChangeSchema = lazySchema(() => z.object({
  current_password: z.string({ message: ACCOUNT_ENTRY_MESSAGES.required }).min(1, ACCOUNT_ENTRY_MESSAGES.required).max(PASSWORD_MAX_LENGTH),
  email: emailField,
}));
export const signedOutSchema = lazySchema(() => z.object({ signed_out: z.number().int() }));

/** How long a "forgot password" link works. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
export const passwordResetRequestSchema = lazySchema(() => z.object({ email: z.string().max(10_000).default('') }));
export const passwordResetConfirmSchema = lazySchema(() => z.object({
  token: z.string().min(1, ACCOUNT_ENTRY_MESSAGES.resetLinkDead).max(200, ACCOUNT_ENTRY_MESSAGES.resetLinkDead),
  new_password: z.string({ message: ACCOUNT_ENTRY_MESSAGES.required }).min(1, ACCOUNT_ENTRY_MESSAGES.required).max(PASSWORD_MAX_LENGTH),
}));
/**
 * The first operator's set-up form (docs/decisions.md "The first operator, from the browser"): the printed link's
 * token, and the admin's email and password.
 */
export const firstOperatorSchema = lazySchema(() => z.object({
  token: z.string({ message: FIRST_OPERATOR_MESSAGES.linkDead }).min(1, FIRST_OPERATOR_MESSAGES.linkDead).max(200, FIRST_OPERATOR_MESSAGES.linkDead),
  email: emailField,
  password: z.string({ message: ACCOUNT_ENTRY_MESSAGES.required }).min(1, ACCOUNT_ENTRY_MESSAGES.required).max(PASSWORD_MAX_LENGTH),
  csrfmiddlewaretoken: z.string().max(200).optional(),
}));
export type FirstOperatorRequest = z.input<typeof firstOperatorSchema>;
export const resetLinkStateSchema = lazySchema(() => z.object({ live: z.boolean() }));
