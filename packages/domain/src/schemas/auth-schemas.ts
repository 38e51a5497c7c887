// Bodies of the identity routes: server keys (admin) and customer sessions (the shop's server).
import { USER_ID_PATTERN } from "./operation-schemas.ts";

export const apiKeyCreateRequestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: { type: "string", minLength: 1, maxLength: 100, pattern: "^[^\\u0000-\\u001F\\u007F]+$" },
  },
} as const;

export const apiKeyIdParamsSchema = {
  type: "object",
  required: ["id"],
  properties: { id: { type: "string", pattern: "^[a-z2-9]{12}$" } },
} as const;

const apiKeyListItem = {
  type: "object",
  required: ["id", "name", "createdAt", "revokedAt"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    createdAt: { type: "string" },
    revokedAt: { type: ["string", "null"] },
  },
} as const;

/** A key as listed; the answer that creates it also carries `key`, the one time the key is shown. */
export const apiKeyResponseSchema = {
  ...apiKeyListItem,
  properties: { ...apiKeyListItem.properties, key: { type: "string" } },
} as const;

export const apiKeyListResponseSchema = {
  type: "object",
  required: ["data"],
  properties: { data: { type: "array", items: apiKeyListItem } },
} as const;

export const customerSessionRequestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["userId"],
  properties: {
    userId: { type: "string", pattern: USER_ID_PATTERN },
    ttlSeconds: { type: "integer", minimum: 60, maximum: 86_400 },
  },
} as const;

export const customerSessionResponseSchema = {
  type: "object",
  required: ["token", "userId", "expiresAt"],
  properties: { token: { type: "string" }, userId: { type: "string" }, expiresAt: { type: "string" } },
} as const;
