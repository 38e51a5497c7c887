// Schemas of the identity routes: the shop server's secret API keys (admin) and the customer sessions a shop
// server mints for its shoppers' browsers.
import Type, { type Static } from "typebox";
import { nullableStringSchema, PRINTABLE_TEXT_PATTERN } from "./coupon-schemas.ts";
import { userIdSchema } from "./operation-schemas.ts";

/** POST /v1/api-keys: a name that says which server holds the key (printable, as product names are). */
export const apiKeyCreateRequestSchema = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, pattern: PRINTABLE_TEXT_PATTERN }) },
  { additionalProperties: false },
);
export type ApiKeyCreateRequest = Static<typeof apiKeyCreateRequestSchema>;

/** DELETE /v1/api-keys/:id: the 12-character id a key carries after `fg_sk_`. */
export const apiKeyIdParamsSchema = Type.Object({ id: Type.String({ pattern: "^[a-z2-9]{12}$" }) });
export type ApiKeyIdParams = Static<typeof apiKeyIdParamsSchema>;

/** An API key as listed; `key` only in the answer that creates it (it is stored as a hash, never again shown). */
export const apiKeyResponseSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: Type.String(),
  revokedAt: nullableStringSchema,
  key: Type.Optional(Type.String()),
});
export type ApiKeyResponse = Static<typeof apiKeyResponseSchema>;

export const apiKeyListResponseSchema = Type.Object({ data: Type.Array(apiKeyResponseSchema) });
export type ApiKeyListResponse = Static<typeof apiKeyListResponseSchema>;

export const MIN_CUSTOMER_SESSION_SECONDS = 60;
export const MAX_CUSTOMER_SESSION_SECONDS = 86_400;

/** POST /v1/customer-sessions (server key): a short-lived token whose subject is `userId`. */
export const customerSessionRequestSchema = Type.Object(
  {
    userId: userIdSchema,
    ttlSeconds: Type.Optional(
      Type.Integer({ minimum: MIN_CUSTOMER_SESSION_SECONDS, maximum: MAX_CUSTOMER_SESSION_SECONDS }),
    ),
  },
  { additionalProperties: false },
);
export type CustomerSessionRequest = Static<typeof customerSessionRequestSchema>;

export const customerSessionResponseSchema = Type.Object({
  token: Type.String(),
  userId: Type.String(),
  expiresAt: Type.String(),
});
export type CustomerSessionResponse = Static<typeof customerSessionResponseSchema>;
