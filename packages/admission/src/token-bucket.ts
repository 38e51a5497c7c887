// Token buckets as the gate script takes them, and as the IETF RateLimit draft advertises them: policy
// "<class>-<scope>" with q (the burst) and w (seconds for an empty bucket to fill), and the current r
// (remaining) and t (seconds until full again).
import type { RateLimitPolicy, RouteClass, TokenBucketPolicy } from "@floodgate/domain";
import type { AdmissionInfo } from "@floodgate/queue";

/** [ms between tokens, burst]; [0, 0] for no limit. */
export function bucketArgs(bucket: TokenBucketPolicy | null): [number, number] {
  return bucket === null ? [0, 0] : [1000 / bucket.rate, bucket.burst];
}

const windowSeconds = (bucket: TokenBucketPolicy) => Math.max(1, Math.ceil(bucket.burst / bucket.rate));

/** RateLimit-Policy: every limit of the class; null when it has none. */
export function rateLimitPolicyHeader(routeClass: RouteClass, policy: RateLimitPolicy): string | null {
  const items: string[] = [];
  for (const scope of ["user", "ip"] as const) {
    const bucket = policy[scope];
    if (bucket) items.push(`"${routeClass}-${scope}";q=${bucket.burst};w=${windowSeconds(bucket)}`);
  }
  return items.length === 0 ? null : items.join(", ");
}

/** RateLimit after an accepted request took its tokens. */
export function rateLimitHeader(routeClass: RouteClass, info: AdmissionInfo): string | null {
  // Written out, not gathered in an array and joined: every accepted request builds one (issue 30).
  const { user, ip } = info;
  const userItem =
    user === null ? null : `"${routeClass}-user";r=${user.remaining};t=${Math.ceil(user.resetMs / 1000)}`;
  if (ip === null) return userItem;
  const ipItem = `"${routeClass}-ip";r=${ip.remaining};t=${Math.ceil(ip.resetMs / 1000)}`;
  return userItem === null ? ipItem : `${userItem}, ${ipItem}`;
}

/** RateLimit on a refusal: the scope that refused is empty until a token comes back. */
export function exhaustedRateLimitHeader(
  routeClass: RouteClass,
  scope: "user" | "ip",
  retryAfterMs: number,
): string {
  return `"${routeClass}-${scope}";r=0;t=${Math.ceil(retryAfterMs / 1000)}`;
}
