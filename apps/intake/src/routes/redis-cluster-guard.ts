// Coupon issues and orders reserve the coupon's or the products' units and record the user's request in one
// atomic script, over the coupon's or products' slot and the user's: a Redis Cluster refuses that (CROSSSLOT).
// Until those reservations move to per-partition allotments, the routes say so clearly on a cluster, before
// anything is sent, instead of answering 500 for every request.
import type { Config } from "@floodgate/config";
import { ProblemError } from "../errors/error-catalogue.ts";

export function refuseOnRedisCluster(config: Config, what: string): void {
  if (config.redisTarget.kind !== "cluster") return;
  throw new ProblemError("not_on_redis_cluster", {
    detail: `${what} do not run on a Redis Cluster yet (REDIS_URL is a redis+cluster:// URL): nothing was stored`,
  });
}
