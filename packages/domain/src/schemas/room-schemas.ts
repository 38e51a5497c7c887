// Schemas of the waiting-room and rate-limit routes.
import Type, { type Static, type TUnsafe } from "typebox";
import { COUPON_ID_PATTERN } from "../coupon-id.ts";
import { ROOM_ADMISSIONS, ROOM_JOINS, ROOM_METHODS, ROOM_MODES } from "../room-modes.ts";
import { GUARDED_ROUTE_CLASSES, ROUTE_CLASSES, type TokenBucketPolicy } from "../route-classes.ts";
import { nullableStringSchema, PRINTABLE_TEXT_PATTERN, timestampSchema } from "./coupon-schemas.ts";
import { requestUserIdSchema, stringEnum, userIdSchema } from "./operation-schemas.ts";
import { productIdSchema } from "./order-schemas.ts";

export const ROOM_ID_PATTERN = "^[A-Za-z0-9_-]{1,64}$";
export const TICKET_ID_SCHEMA_PATTERN = "^tkt_[0-9A-HJKMNP-TV-Z]{26}$";
export const MAX_ADMIT_PER_SECOND = 100_000;
/** Products (or coupons) one room may guard: a sale's, not a catalogue's. */
export const MAX_ROOM_SALE_ITEMS = 100;
/** Lanes one room may have beside its default queue (each a score band of the queue: room-lanes.lua). */
export const MAX_ROOM_LANES = 8;
/** A lane's name: what a join pass names ("bypass" is not one: the route refuses it). */
export const LANE_NAME_PATTERN = "^[A-Za-z0-9_-]{1,32}$";
/** A room's message to the joins it refuses (method reject). */
export const MAX_ROOM_MESSAGE_LENGTH = 500;

const roomId = Type.String({ pattern: ROOM_ID_PATTERN });

export const roomIdParamsSchema = Type.Object({ roomId });
export type RoomIdParams = Static<typeof roomIdParamsSchema>;

export const ticketParamsSchema = Type.Object({
  roomId,
  ticketId: Type.String({ pattern: TICKET_ID_SCHEMA_PATTERN }),
});
export type TicketParams = Static<typeof ticketParamsSchema>;

export const roomDefinitionRequestSchema = Type.Object(
  {
    mode: stringEnum(ROOM_MODES),
    /** "auto": the leader follows the workers' apply rate and lag (docs/api.md, waiting rooms). */
    admitPerSecond: Type.Union([
      Type.Integer({ minimum: 1, maximum: MAX_ADMIT_PER_SECOND }),
      Type.Literal("auto"),
    ]),
    sessionSeconds: Type.Integer({ minimum: 10, maximum: 86_400 }),
    abandonSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
    startsAt: Type.Optional(Type.Union([timestampSchema, Type.Null()])),
    /** Route classes the room guards whole; must be empty (or absent) when it names products or coupons. */
    guards: Type.Optional(
      Type.Array(stringEnum(GUARDED_ROUTE_CLASSES), {
        uniqueItems: true,
        maxItems: GUARDED_ROUTE_CLASSES.length,
      }),
    ),
    /** A sale's room: it guards only the orders naming one of these products. */
    products: Type.Optional(
      Type.Array(productIdSchema, { uniqueItems: true, maxItems: MAX_ROOM_SALE_ITEMS }),
    ),
    /** A sale's room: it guards only the issues of these coupons. */
    coupons: Type.Optional(
      Type.Array(Type.String({ pattern: COUPON_ID_PATTERN }), {
        uniqueItems: true,
        maxItems: MAX_ROOM_SALE_ITEMS,
      }),
    ),
    /** A room with products admits at most the units left plus this many sessions holding no reservation. */
    admitBeyondStock: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    /** session (default): a token serves until its session ends; one-shot: the one request accepted with it. */
    admission: Type.Optional(stringEnum(ROOM_ADMISSIONS)),
    /** After it, joins are refused (room_closed) and nobody is admitted; a time past closes the room at once. */
    endsAt: Type.Optional(Type.Union([timestampSchema, Type.Null()])),
    /** fifo (default), random (any waiting ticket, each equally likely) or reject (an incident switch). */
    method: Type.Optional(stringEnum(ROOM_METHODS)),
    /** What a refused join is told while the method is reject. */
    message: Type.Optional(
      Type.Union([
        Type.String({ minLength: 1, maxLength: MAX_ROOM_MESSAGE_LENGTH, pattern: PRINTABLE_TEXT_PATTERN }),
        Type.Null(),
      ]),
    ),
    /** Admission waits while this many of the room's sessions are live; null or absent: no cap. */
    maxActiveSessions: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 10_000_000 }), Type.Null()]),
    ),
    /**
     * A session with no guarded request using its token this long ends (leaves the live count, its token stops
     * admitting); null or absent: sessions end only at their expiry or on their order.
     */
    sessionIdleSeconds: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 86_400 }), Type.Null()]),
    ),
    /** anyone (default): shoppers join with their customer token; server: only the shop's server key joins. */
    joins: Type.Optional(stringEnum(ROOM_JOINS)),
    /**
     * Lanes a join pass may name: each takes its share of the admissions while someone waits in it; the
     * default queue has 1 minus their sum. Names unique, shares summing to at most 1, method fifo.
     */
    lanes: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ pattern: LANE_NAME_PATTERN }),
            share: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
          },
          { additionalProperties: false },
        ),
        { maxItems: MAX_ROOM_LANES },
      ),
    ),
  },
  { additionalProperties: false },
);
export type RoomDefinitionRequest = Static<typeof roomDefinitionRequestSchema>;

export const roomResponseSchema = Type.Object({
  roomId: Type.String(),
  mode: stringEnum(ROOM_MODES),
  queueing: Type.Boolean(),
  waiting: Type.Integer(),
  admittedLastMinute: Type.Integer(),
  abandoned: Type.Integer(),
  measuredAdmitRate: Type.Number(),
  admitPerSecond: Type.Union([Type.Integer(), Type.Literal("auto")]),
  /** A room whose admitPerSecond is "auto": the rate the leader last set; null otherwise (or before a tick). */
  autoAdmitPerSecond: Type.Union([Type.Number(), Type.Null()]),
  sessionSeconds: Type.Integer(),
  abandonSeconds: Type.Integer(),
  startsAt: nullableStringSchema,
  guards: Type.Array(Type.String()),
  products: Type.Array(Type.String()),
  coupons: Type.Array(Type.String()),
  admitBeyondStock: Type.Integer(),
  admission: stringEnum(ROOM_ADMISSIONS),
  endsAt: nullableStringSchema,
  /** endsAt has passed: joins are refused and nobody is admitted until endsAt moves later or is cleared. */
  closed: Type.Boolean(),
  method: stringEnum(ROOM_METHODS),
  message: nullableStringSchema,
  joins: stringEnum(ROOM_JOINS),
  maxActiveSessions: Type.Union([Type.Integer(), Type.Null()]),
  /** The room's lanes and their shares; the default queue has 1 minus their sum. */
  lanes: Type.Array(Type.Object({ name: Type.String(), share: Type.Number() })),
  /** A session idle this long ends; null: no idle end. */
  sessionIdleSeconds: Type.Union([Type.Integer(), Type.Null()]),
  /** A room with products: the units left as of the leader's last tick; null otherwise. */
  unitsLeft: Type.Union([Type.Integer(), Type.Null()]),
  /** A room with products: nothing left and nothing unpaid that could come back; joins answer 410 room_sold_out. */
  soldOut: Type.Boolean(),
  updatedAt: Type.String(),
  /** The pre-queue shuffle's commitment (GET .../shuffle-proof): of the start to come, else of the last. */
  shuffleCommitment: Type.Unsafe<string | null>({
    type: ["string", "null"],
    pattern: "^[0-9a-f]{64}$",
    description:
      "SHA-256 (hex) of the secret seed that orders the pre-queue at startsAt: published when the start is scheduled, the seed at the start (GET /v1/rooms/{roomId}/shuffle-proof). null for a room never scheduled.",
  }),
});

export const SHUFFLE_PROOF_STATUSES = ["scheduled", "closed", "published"] as const;
const hex64 = "^[0-9a-f]{64}$";

/** GET /v1/rooms/:roomId/shuffle-proof: what anyone needs to recompute a pre-queue's order (docs/api.md). */
export const shuffleProofResponseSchema = Type.Object({
  roomId: Type.String(),
  status: Type.Unsafe<(typeof SHUFFLE_PROOF_STATUSES)[number]>({
    type: "string",
    enum: [...SHUFFLE_PROOF_STATUSES],
    description:
      "scheduled: a start is to come, its commitment published, the list open. closed: the start closed the list, its order is being written (a tick). published: seed, listHash and tickets are given.",
  }),
  commitment: Type.String({
    pattern: hex64,
    description: "SHA-256 (hex) of the seed's 32 bytes, published when the start was scheduled.",
  }),
  committedAt: Type.String({
    description:
      "When the commitment was made (before the start, unless the start was scheduled by a release without commitments).",
  }),
  closedAt: Type.Unsafe<string | null>({
    type: ["string", "null"],
    description: "When the start closed the pre-queue's list; null while scheduled.",
  }),
  seed: Type.Unsafe<string | null>({
    type: ["string", "null"],
    pattern: hex64,
    description:
      "The secret seed (32 bytes, hex): null until the start has closed the list and its order is published.",
  }),
  listHash: Type.Unsafe<string | null>({
    type: ["string", "null"],
    pattern: hex64,
    description: "SHA-256 (hex) of the ticket ids sorted and joined by newlines; null until published.",
  }),
  tickets: Type.Unsafe<string[] | null>({
    type: ["array", "null"],
    items: { type: "string" },
    description: "The closed pre-queue's ticket ids, sorted; null until published.",
  }),
});
export type ShuffleProofResponse = Static<typeof shuffleProofResponseSchema>;

export const ticketJoinRequestSchema = Type.Object(
  {
    userId: requestUserIdSchema,
    /** A join pass (POST /v1/rooms/{roomId}/passes) for this user and room: a bypass or a lane. */
    pass: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  },
  { additionalProperties: false },
);
export type TicketJoinRequest = Static<typeof ticketJoinRequestSchema>;

export const ticketResponseSchema = Type.Object({
  ticketId: Type.String(),
  roomId: Type.String(),
  status: Type.String(),
  position: Type.Optional(Type.Integer()),
  etaSeconds: Type.Optional(Type.Integer()),
  /** A waiting ticket of a room selling products: the units left. */
  unitsLeft: Type.Optional(Type.Integer()),
  admissionToken: Type.Optional(Type.String()),
  expiresAt: Type.Optional(Type.String()),
  startsAt: Type.Optional(Type.String()),
});

/** POST /v1/rooms/:roomId/passes: a join pass for one shopper. */
export const joinPassRequestSchema = Type.Object(
  {
    /** The shopper the pass is for: only their join may carry it. */
    userId: userIdSchema,
    /** "bypass" (admitted at once, within the room's caps) or the name of one of the room's lanes. */
    kind: Type.String({ pattern: LANE_NAME_PATTERN }),
    /** How long the pass may be used to join (default 300). */
    expiresInSeconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 86_400 })),
  },
  { additionalProperties: false },
);
export type JoinPassRequest = Static<typeof joinPassRequestSchema>;

export const joinPassResponseSchema = Type.Object({
  pass: Type.String(),
  roomId: Type.String(),
  userId: Type.String(),
  kind: Type.String(),
  expiresAt: Type.String(),
});

/** A token bucket: `burst` tokens at most, one more every 1/`rate` seconds. */
export const tokenBucketPolicySchema = Type.Object(
  {
    /** Tokens per second (a fraction allows fewer than one a second). */
    rate: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 }),
    burst: Type.Integer({ minimum: 1, maximum: 10_000_000 }),
  },
  { additionalProperties: false },
);

/** null: no limit in that scope. */
const bucket = Type.Union([tokenBucketPolicySchema, Type.Null()]);

export const routeClassParamsSchema = Type.Object({ routeClass: stringEnum(ROUTE_CLASSES) });
export type RouteClassParams = Static<typeof routeClassParamsSchema>;

export const rateLimitChangeRequestSchema = Type.Object(
  { user: Type.Optional(bucket), ip: Type.Optional(bucket) },
  { additionalProperties: false, minProperties: 1 },
);
export type RateLimitChangeRequest = Static<typeof rateLimitChangeRequestSchema>;

const bucketViewShape = {
  type: ["object", "null"],
  required: ["rate", "burst"],
  properties: { rate: { type: "number" }, burst: { type: "integer" } },
} as const;
const bucketView = Type.Unsafe<TokenBucketPolicy | null>(
  bucketViewShape,
) as TUnsafe<TokenBucketPolicy | null> & typeof bucketViewShape;

export const rateLimitPolicyResponseSchema = Type.Object({
  routeClass: Type.String(),
  user: bucketView,
  ip: bucketView,
});

export const rateLimitsResponseSchema = Type.Object({ policies: Type.Array(rateLimitPolicyResponseSchema) });
