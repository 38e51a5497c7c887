// Route classes: the groups of routes that admission control treats alike. Each has one rate-limit policy (a
// token bucket per user and one per client IP); a guarded class can also be guarded by one waiting room.
import type { Static } from "typebox";
import type { tokenBucketPolicySchema } from "./schemas/room-schemas.ts";

export const GUARDED_ROUTE_CLASSES = ["payments", "deposits", "coupon-issues", "orders"] as const;
export type GuardedRouteClass = (typeof GUARDED_ROUTE_CLASSES)[number];

/**
 * Joining a waiting room is limited too (per IP), but no room guards it; so is the public check of an admission
 * token (POST /v1/rooms/:roomId/admissions/verify), which asks for no credential and may verify a signature.
 */
export const ROUTE_CLASSES = [...GUARDED_ROUTE_CLASSES, "room-joins", "admission-checks"] as const;
export type RouteClass = (typeof ROUTE_CLASSES)[number];

/** Why a class is limited per IP only, for the error that refuses a user limit on it. */
const IP_ONLY: Partial<Record<RouteClass, string>> = {
  "room-joins": "a user holds one place per room whatever it sends",
  "admission-checks": "its caller is a shop's server holding a token, not a user",
};

/**
 * Whether a class takes a per-user limit. Room joins do not: a user holds one place per room whatever it sends,
 * so a user bucket there would limit nothing. Admission checks neither: they carry no user's credential. Both
 * are limited per IP.
 */
export const hasUserLimit = (routeClass: RouteClass): boolean => IP_ONLY[routeClass] === undefined;

/** The sentence that refuses a user limit on a class limited per IP only. */
export const ipOnlyReason = (routeClass: RouteClass): string =>
  `${routeClass} is limited per IP only: ${IP_ONLY[routeClass] ?? "it takes no user limit"}`;

export const isGuardedRouteClass = (name: string): name is GuardedRouteClass =>
  (GUARDED_ROUTE_CLASSES as readonly string[]).includes(name);

export const isRouteClass = (name: string): name is RouteClass =>
  (ROUTE_CLASSES as readonly string[]).includes(name);

/** A token bucket: `burst` tokens at most, one more every 1/`rate` seconds (the schema holds the bounds). */
export type TokenBucketPolicy = Static<typeof tokenBucketPolicySchema>;

/** null: no limit in that scope. */
export interface RateLimitPolicy {
  user: TokenBucketPolicy | null;
  ip: TokenBucketPolicy | null;
}

export type RateLimitPolicies = Record<RouteClass, RateLimitPolicy>;

/**
 * Defaults: generous per user (a person does not pay 10 times a second) and per IP (shoppers behind one NAT
 * share an address); joins, which cost a place in a queue, are tighter per IP. Admission checks come from a
 * shop's few servers (often one address behind NAT), one per page a shopper loads behind @floodgate/node's
 * online gate, so their address limit is five times a payment's: it bounds what one address can make the
 * intake do (a Redis read, and an ES256 check for a token it does not know), not a shop's sale.
 */
export const DEFAULT_RATE_LIMITS: RateLimitPolicies = {
  payments: { user: { rate: 10, burst: 20 }, ip: { rate: 1000, burst: 2000 } },
  deposits: { user: { rate: 10, burst: 20 }, ip: { rate: 1000, burst: 2000 } },
  "coupon-issues": { user: { rate: 5, burst: 10 }, ip: { rate: 1000, burst: 2000 } },
  orders: { user: { rate: 10, burst: 20 }, ip: { rate: 1000, burst: 2000 } },
  "room-joins": { user: null, ip: { rate: 20, burst: 50 } },
  "admission-checks": { user: null, ip: { rate: 5000, burst: 10_000 } },
};
