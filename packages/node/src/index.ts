export type { AdmissionClaims } from "./admission-claims.ts";
export {
  AdmissionGate,
  type AdmissionGateOptions,
  admissionGate,
  type GateDecision,
} from "./admission-gate.ts";
export { type AdmissionErrorCode, AdmissionVerificationError } from "./admission-verification-error.ts";
export {
  admissionOf,
  type ExpressMiddleware,
  type FastifyLikeReply,
  type FastifyLikeRequest,
  type FastifyOnRequestHook,
  type NodeRequestHandler,
} from "./gate-adapters.ts";
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
export { AdmissionVerifier, type VerifyAdmissionOptions, verifyAdmission } from "./verify-admission.ts";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookRequestHeaders,
} from "./verify-webhook.ts";
export { EVENT_ID_HEADER, SIGNATURE_HEADER, signWebhook } from "./webhook-signature.ts";
export { type WebhookErrorCode, WebhookVerificationError } from "./webhook-verification-error.ts";
