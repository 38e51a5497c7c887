// JSON Schemas of the waiting-room and rate-limit routes.
import { GUARDED_ROUTE_CLASSES, ROUTE_CLASSES } from "../route-classes.ts";
import { TIMESTAMP_PATTERN } from "./coupon-schemas.ts";
import { USER_ID_PATTERN } from "./operation-schemas.ts";

export const ROOM_ID_PATTERN = "^[A-Za-z0-9_-]{1,64}$";
export const TICKET_ID_SCHEMA_PATTERN = "^tkt_[0-9A-HJKMNP-TV-Z]{26}$";
export const MAX_ADMIT_PER_SECOND = 100_000;

export const roomIdParamsSchema = {
  type: "object",
  required: ["roomId"],
  properties: { roomId: { type: "string", pattern: ROOM_ID_PATTERN } },
} as const;

export const ticketParamsSchema = {
  type: "object",
  required: ["roomId", "ticketId"],
  properties: {
    roomId: { type: "string", pattern: ROOM_ID_PATTERN },
    ticketId: { type: "string", pattern: TICKET_ID_SCHEMA_PATTERN },
  },
} as const;

export const roomDefinitionRequestSchema = {
  type: "object",
  additionalProperties: false,
  required: ["mode", "admitPerSecond", "sessionSeconds", "guards"],
  properties: {
    mode: { type: "string", enum: ["off", "auto", "on"] },
    admitPerSecond: { type: "integer", minimum: 1, maximum: MAX_ADMIT_PER_SECOND },
    sessionSeconds: { type: "integer", minimum: 10, maximum: 86_400 },
    abandonSeconds: { type: "integer", minimum: 1, maximum: 3600 },
    startsAt: { anyOf: [{ type: "string", pattern: TIMESTAMP_PATTERN }, { type: "null" }] },
    guards: {
      type: "array",
      uniqueItems: true,
      maxItems: GUARDED_ROUTE_CLASSES.length,
      items: { type: "string", enum: GUARDED_ROUTE_CLASSES },
    },
  },
} as const;

export const roomResponseSchema = {
  type: "object",
  required: [
    "roomId",
    "mode",
    "queueing",
    "waiting",
    "admittedLastMinute",
    "abandoned",
    "measuredAdmitRate",
    "admitPerSecond",
    "sessionSeconds",
    "abandonSeconds",
    "startsAt",
    "guards",
    "updatedAt",
  ],
  properties: {
    roomId: { type: "string" },
    mode: { type: "string" },
    queueing: { type: "boolean" },
    waiting: { type: "integer" },
    admittedLastMinute: { type: "integer" },
    abandoned: { type: "integer" },
    measuredAdmitRate: { type: "number" },
    admitPerSecond: { type: "integer" },
    sessionSeconds: { type: "integer" },
    abandonSeconds: { type: "integer" },
    startsAt: { type: ["string", "null"] },
    guards: { type: "array", items: { type: "string" } },
    updatedAt: { type: "string" },
  },
} as const;

export const ticketJoinRequestSchema = {
  type: "object",
  additionalProperties: false,
  // Optional: a shopper's user comes from the token; a server key names it (the route requires it then).
  properties: { userId: { type: "string", pattern: USER_ID_PATTERN } },
} as const;

export const ticketResponseSchema = {
  type: "object",
  required: ["ticketId", "roomId", "status"],
  properties: {
    ticketId: { type: "string" },
    roomId: { type: "string" },
    status: { type: "string" },
    position: { type: "integer" },
    etaSeconds: { type: "integer" },
    admissionToken: { type: "string" },
    expiresAt: { type: "string" },
    startsAt: { type: "string" },
  },
} as const;

const bucket = {
  anyOf: [
    {
      type: "object",
      additionalProperties: false,
      required: ["rate", "burst"],
      properties: {
        rate: { type: "number", exclusiveMinimum: 0, maximum: 1_000_000 },
        burst: { type: "integer", minimum: 1, maximum: 10_000_000 },
      },
    },
    { type: "null" },
  ],
} as const;

export const routeClassParamsSchema = {
  type: "object",
  required: ["routeClass"],
  properties: { routeClass: { type: "string", enum: ROUTE_CLASSES } },
} as const;

export const rateLimitChangeRequestSchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: { user: bucket, ip: bucket },
} as const;

const bucketView = {
  type: ["object", "null"],
  required: ["rate", "burst"],
  properties: { rate: { type: "number" }, burst: { type: "integer" } },
} as const;

export const rateLimitPolicyResponseSchema = {
  type: "object",
  required: ["routeClass", "user", "ip"],
  properties: { routeClass: { type: "string" }, user: bucketView, ip: bucketView },
} as const;

export const rateLimitsResponseSchema = {
  type: "object",
  required: ["policies"],
  properties: { policies: { type: "array", items: rateLimitPolicyResponseSchema } },
} as const;
