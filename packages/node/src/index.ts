export {
  byShuffleKey,
  type ShuffleProof,
  ShuffleProofError,
  type ShuffleProofErrorCode,
  shuffleCommitment,
  shuffleKeyer,
  shuffleListHash,
  shuffleOrder,
  verifyShuffleProof,
} from "./shuffle-proof.ts";
export {
  signStandardWebhook,
  standardWebhookKey,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from "./standard-webhooks.ts";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookRequestHeaders,
} from "./verify-webhook.ts";
export { EVENT_ID_HEADER, SIGNATURE_HEADER, signWebhook } from "./webhook-signature.ts";
export { type WebhookErrorCode, WebhookVerificationError } from "./webhook-verification-error.ts";
