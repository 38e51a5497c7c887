// Schemas of the webhook endpoint routes (a shop's server configures where its events go).
import Type, { type Static } from "typebox";
import { WEBHOOK_EVENT_TYPES } from "../webhook-events.ts";
import { WEBHOOK_SIGNATURE_SCHEMES } from "../webhook-signature-schemes.ts";
import { nullableStringSchema } from "./coupon-schemas.ts";
import { stringEnum } from "./operation-schemas.ts";

export const WEBHOOK_ENDPOINT_ID_PATTERN = "^whe_[0-9a-f]{24}$";
export const WEBHOOK_DELIVERY_ID_PATTERN = "^whd_[0-9a-f]{32}$";

const urlSchema = Type.String({ minLength: 8, maxLength: 2048 });
const signatureSchemeSchema = stringEnum(WEBHOOK_SIGNATURE_SCHEMES);
const eventsSchema = Type.Array(stringEnum(WEBHOOK_EVENT_TYPES), {
  minItems: 1,
  maxItems: 32,
  uniqueItems: true,
});

export const webhookEndpointCreateRequestSchema = Type.Object(
  { url: urlSchema, events: eventsSchema },
  { additionalProperties: false },
);
export type WebhookEndpointCreateRequest = Static<typeof webhookEndpointCreateRequestSchema>;

export const webhookEndpointUpdateRequestSchema = Type.Object(
  {
    url: Type.Optional(urlSchema),
    events: Type.Optional(eventsSchema),
    enabled: Type.Optional(Type.Boolean()),
    /** How deliveries are signed from the next attempt on (an endpoint keeps its scheme until this changes it). */
    signatureScheme: Type.Optional(signatureSchemeSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type WebhookEndpointUpdateRequest = Static<typeof webhookEndpointUpdateRequestSchema>;

export const webhookEndpointIdParamsSchema = Type.Object({
  id: Type.String({ pattern: WEBHOOK_ENDPOINT_ID_PATTERN }),
});
export type WebhookEndpointIdParams = Static<typeof webhookEndpointIdParamsSchema>;

export const webhookDeliveryIdParamsSchema = Type.Object({
  id: Type.String({ pattern: WEBHOOK_DELIVERY_ID_PATTERN }),
});
export type WebhookDeliveryIdParams = Static<typeof webhookDeliveryIdParamsSchema>;

export const webhookEndpointResponseSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  signatureScheme: signatureSchemeSchema,
  /** Until when the secret replaced by the last rotation still signs beside the new one; null when none does. */
  previousSecretExpiresAt: nullableStringSchema,
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** The creation's answer: the signing secret, shown this once. */
export const webhookEndpointCreatedResponseSchema = Type.Object({
  ...webhookEndpointResponseSchema.properties,
  secret: Type.String(),
});

/** rotate-secret's answer: the new secret, shown this once (the previous one signs too until the time given). */
export const webhookSecretRotatedResponseSchema = Type.Object({
  ...webhookEndpointResponseSchema.properties,
  secret: Type.String(),
});

export const webhookEndpointListResponseSchema = Type.Object({
  data: Type.Array(webhookEndpointResponseSchema),
});

const nullableInteger = Type.Unsafe<number | null>({ type: ["integer", "null"] });

export const webhookDeliveryResponseSchema = Type.Object({
  id: Type.String(),
  endpointId: Type.String(),
  eventId: Type.String(),
  eventType: Type.String(),
  attempts: Type.Integer(),
  lastStatusCode: nullableInteger,
  lastError: nullableStringSchema,
  nextAttemptAt: nullableStringSchema,
  deliveredAt: nullableStringSchema,
  gaveUpAt: nullableStringSchema,
  createdAt: Type.String(),
});

export const webhookDeliveryListResponseSchema = Type.Object({
  data: Type.Array(webhookDeliveryResponseSchema),
});
