// The rate-limit policies this process applies: the configured ones with the run-time changes from Redis,
// reloaded when the config channel says so (and every few seconds, in case a message was missed). The
// RateLimit-Policy header of each class is computed once per reload, not per request.
import {
  type AdmissionKeys,
  bucketArgs,
  rateLimitPolicyHeader,
  readEffectiveRateLimits,
} from "@floodgate/admission";
import type { RateLimitPolicies, RateLimitPolicy, RouteClass } from "@floodgate/domain";
import { ROUTE_CLASSES } from "@floodgate/domain";
import type { Cluster, Redis } from "ioredis";

interface ClassLimits {
  policy: RateLimitPolicy;
  header: string | null;
  user: [number, number];
  ip: [number, number];
}

export class RateLimitBook {
  readonly #configured: RateLimitPolicies;
  #limits = new Map<RouteClass, ClassLimits>();

  constructor(configured: RateLimitPolicies) {
    this.#configured = configured;
    this.#apply(configured);
  }

  limits(routeClass: RouteClass): ClassLimits {
    return this.#limits.get(routeClass)!;
  }

  configured(routeClass: RouteClass): RateLimitPolicy {
    return this.#configured[routeClass];
  }

  async reload(redis: Redis | Cluster, keys: AdmissionKeys): Promise<void> {
    this.#apply(await readEffectiveRateLimits(redis, keys, this.#configured));
  }

  #apply(policies: RateLimitPolicies) {
    const next = new Map<RouteClass, ClassLimits>();
    for (const routeClass of ROUTE_CLASSES) {
      const policy = policies[routeClass];
      next.set(routeClass, {
        policy,
        header: rateLimitPolicyHeader(routeClass, policy),
        user: bucketArgs(policy.user),
        ip: bucketArgs(policy.ip),
      });
    }
    this.#limits = next;
  }
}
