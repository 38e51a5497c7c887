// Rate limits changed at run time (admin API) are kept in Redis, one field per class and scope, over the
// policies the configuration gives; every intake reloads them when told on the config channel.
import type { RateLimitPolicies, RateLimitPolicy, RouteClass, TokenBucketPolicy } from "@floodgate/domain";
import { ROUTE_CLASSES } from "@floodgate/domain";
import type { Cluster, Redis } from "ioredis";
import type { AdmissionKeys } from "./admission-keys.ts";

type Scope = keyof RateLimitPolicy;
const SCOPES: Scope[] = ["user", "ip"];

const encode = (bucket: TokenBucketPolicy | null) =>
  bucket === null ? "off" : `${bucket.rate}:${bucket.burst}`;

function decode(value: string): TokenBucketPolicy | null | undefined {
  if (value === "off") return null;
  const [rate, burst] = value.split(":").map(Number) as [number, number];
  return rate > 0 && burst >= 1 ? { rate, burst } : undefined;
}

/** The configured policies with the run-time changes applied. */
export async function readEffectiveRateLimits(
  redis: Redis | Cluster,
  keys: AdmissionKeys,
  configured: RateLimitPolicies,
): Promise<RateLimitPolicies> {
  const overrides = await redis.hgetall(keys.rateLimitOverrides());
  const policies = structuredClone(configured);
  for (const routeClass of ROUTE_CLASSES) {
    for (const scope of SCOPES) {
      const value = overrides[`${routeClass}.${scope}`];
      const bucket = value === undefined ? undefined : decode(value);
      if (bucket !== undefined) policies[routeClass][scope] = bucket;
    }
  }
  return policies;
}

/** Sets the scopes given (a scope left out keeps its policy); every intake reloads. */
export async function writeRateLimitOverride(
  redis: Redis | Cluster,
  keys: AdmissionKeys,
  routeClass: RouteClass,
  change: Partial<RateLimitPolicy>,
): Promise<void> {
  const fields: Record<string, string> = {};
  for (const scope of SCOPES) {
    const bucket = change[scope];
    if (bucket !== undefined) fields[`${routeClass}.${scope}`] = encode(bucket);
  }
  const multi = redis.multi();
  if (Object.keys(fields).length > 0) multi.hset(keys.rateLimitOverrides(), fields);
  multi.publish(keys.configChannel(), JSON.stringify({ rateLimits: routeClass }));
  await multi.exec();
}

/** Back to the configured policy; every intake reloads. */
export async function clearRateLimitOverride(
  redis: Redis | Cluster,
  keys: AdmissionKeys,
  routeClass: RouteClass,
) {
  await redis
    .multi()
    .hdel(keys.rateLimitOverrides(), ...SCOPES.map((scope) => `${routeClass}.${scope}`))
    .publish(keys.configChannel(), JSON.stringify({ rateLimits: routeClass }))
    .exec();
}
