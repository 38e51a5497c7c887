// How a delivery is signed, per endpoint. `standard-webhooks` (https://www.standardwebhooks.com): the headers
// webhook-id, webhook-timestamp and webhook-signature, verified by a maintained library in most languages; new
// endpoints get it. `floodgate-signature`: Floodgate-Signature `t=,v1=`, which endpoints made before it keep
// until the shop switches them (PATCH), so no running receiver breaks. The global migration that added the
// column writes these two values as literals; a test holds them together.
export const WEBHOOK_SIGNATURE_SCHEMES = ["standard-webhooks", "floodgate-signature"] as const;
export type WebhookSignatureScheme = (typeof WEBHOOK_SIGNATURE_SCHEMES)[number];

/** What a new endpoint gets. */
export const DEFAULT_WEBHOOK_SIGNATURE_SCHEME: WebhookSignatureScheme = "standard-webhooks";

/** After POST /v1/webhook-endpoints/:id/rotate-secret, how long the previous secret signs beside the new one. */
export const SECRET_ROTATION_OVERLAP_HOURS = 24;

/** The event POST /v1/webhook-endpoints/:id/test sends, whatever the endpoint subscribes to. */
export const PING_EVENT_TYPE = "ping";
