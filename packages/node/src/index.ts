export {
  EVENT_ID_HEADER,
  SIGNATURE_HEADER,
  signWebhook,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookErrorCode,
  type WebhookEvent,
  WebhookVerificationError,
} from "./webhook-signature.ts";
