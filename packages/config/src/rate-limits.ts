// RATE_LIMITS: changes to the default rate-limit policies, as comma-separated entries
//   <class>.<scope>=<rate>/s:<burst>   (or /m for per minute; the rate may be a fraction: 0.5/s)
//   <class>.<scope>=off                no limit in that scope
// <class> is a route class or * (every class), <scope> is user or ip; later entries win. The whole value `off`
// turns every limit off. Example: RATE_LIMITS="payments.user=5/s:10,*.ip=off".
import {
  DEFAULT_RATE_LIMITS,
  hasUserLimit,
  ipOnlyReason,
  type RateLimitPolicies,
  ROUTE_CLASSES,
  type RouteClass,
  type TokenBucketPolicy,
} from "@floodgate/domain";
import { ConfigError } from "./env-reader.ts";

const ENTRY = /^([a-z*-]+)\.(user|ip)=(?:off|(\d+(?:\.\d+)?)\/(s|m):(\d+))$/;
const MAX_RATE = 1_000_000;
const MAX_BURST = 10_000_000;

export function parseRateLimits(value: string | undefined, name = "RATE_LIMITS"): RateLimitPolicies {
  const policies = structuredClone(DEFAULT_RATE_LIMITS);
  if (value === undefined) return policies;
  if (value === "off") {
    for (const routeClass of ROUTE_CLASSES) policies[routeClass] = { user: null, ip: null };
    return policies;
  }
  for (const entry of value.split(",").map((part) => part.trim())) {
    const match = ENTRY.exec(entry);
    if (!match) {
      throw new ConfigError(
        name,
        `has an entry ${JSON.stringify(entry)}: expected <class>.<user|ip>=<rate>/s:<burst> or <class>.<user|ip>=off`,
      );
    }
    const [, routeClass, scope, rate, unit, burst] = match as unknown as [
      string,
      string,
      "user" | "ip",
      string | undefined,
      string | undefined,
      string | undefined,
    ];
    const classes = routeClass === "*" ? ROUTE_CLASSES : ROUTE_CLASSES.filter((c) => c === routeClass);
    if (classes.length === 0) {
      throw new ConfigError(
        name,
        `names an unknown route class ${JSON.stringify(routeClass)} (known: ${ROUTE_CLASSES.join(", ")}, *)`,
      );
    }
    let bucket: TokenBucketPolicy | null = null;
    if (rate !== undefined) {
      const perSecond = Number(rate) / (unit === "m" ? 60 : 1);
      const tokens = Number(burst);
      if (!(perSecond > 0 && perSecond <= MAX_RATE) || !(tokens >= 1 && tokens <= MAX_BURST)) {
        throw new ConfigError(
          name,
          `has an entry ${JSON.stringify(entry)}: the rate must be above 0 and at most ${MAX_RATE}/s, the burst 1 to ${MAX_BURST}`,
        );
      }
      bucket = { rate: perSecond, burst: tokens };
    }
    if (
      scope === "user" &&
      bucket !== null &&
      routeClass !== "*" &&
      !hasUserLimit(routeClass as RouteClass)
    ) {
      throw new ConfigError(
        name,
        `has an entry ${JSON.stringify(entry)}: ${ipOnlyReason(routeClass as RouteClass)}`,
      );
    }
    // `*.user` sets every class that takes a user limit.
    for (const target of classes) {
      if (scope === "ip" || hasUserLimit(target)) policies[target][scope] = bucket;
    }
  }
  return policies;
}
