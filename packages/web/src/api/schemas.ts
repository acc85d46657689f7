/**
 * The core zod schemas the client parses answers with, gathered in one module that the client loads on its
 * first request. Keeping zod out of the entry chunk lets the shell and the loading skeletons paint before the
 * validation code has arrived (DESIGN.md: entry chunk ≤ 120 KB gzip); the import runs alongside the first fetch.
 */
import { contentMetadataSchema, lazySchema, pagedSchema } from '@lectern/core';

export {
  accountProfileSchema,
  chosenTopicListSchema,
  planListSchema,
  resetLinkStateSchema,
  promotionResponseSchema,
  signedOutSchema,
  subscriptionSchema,
  teamSchema,
  myTeamSchema,
  invitationInfoSchema,
  emailCheckResponseSchema,
  passwordValidationResponseSchema,
  registrationResponseSchema,
  bookDetailSchema,
  chapterContentSchema,
  collectionListSchema,
  collectionSchema,
  collectionSummaryListSchema,
  collectionHoldingSchema,
  errorBodySchema,
  inBookSearchResponseSchema,
  catalogSearchResponseSchema,
  suggestResponseSchema,
  homeResponseSchema,
  homeModulesSchema,
  newsletterSubscriptionSchema,
  newsletterSampleSchema,
  unsubscribeStateSchema,
  transformationPlaylistListSchema,
  currentEventResponseSchema,
  courseStatusesResponseSchema,
  annotationSchema,
  annotationSearchResponseSchema,
  metadataListSchema,
  positionResponseSchema,
  progressListSchema,
  queueListSchema,
  topicListSchema,
  topicSchema,
  shortcutSettingSchema,
  blockResponseSchema,
} from '@lectern/core';

export const bookPageSchema = lazySchema(() => pagedSchema(contentMetadataSchema));
