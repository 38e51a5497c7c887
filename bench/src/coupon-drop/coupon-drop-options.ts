// Options of `./floodgate bench coupon-drop`. Defaults: 100,000 requests from 50,000 users (each asks twice)
// for 1,000 coupons, over 100 connections, as fast as the intake answers, on the bench Redis.
import type { OptionSpec, OptionValues } from "../bench-options.ts";
import {
  type RedisTopology,
  redisTopologyOption,
  toRedisTopology,
} from "../redis-topology/redis-topology-option.ts";

export const COUPON_DROP_OPTION_SPECS: readonly OptionSpec[] = [
  {
    name: "requests",
    kind: "int",
    help: "issue requests in the drop",
    default: 100_000,
    min: 2,
    max: 2_000_000,
  },
  {
    name: "users",
    kind: "int",
    help: "distinct users; the requests are spread evenly over them (requests/users attempts each)",
    default: 50_000,
    min: 1,
    max: 1_000_000,
  },
  { name: "quantity", kind: "int", help: "coupons to hand out", default: 1000, min: 1, max: 10_000_000 },
  {
    name: "connections",
    kind: "int",
    help: "HTTP connections of the load generator",
    default: 100,
    min: 1,
    max: 10_000,
  },
  { name: "workers", kind: "int", help: "Floodgate worker processes (WORKERS)", default: 2, min: 1, max: 64 },
  {
    name: "warmup",
    kind: "int",
    help: "issue requests for a separate warm-up coupon first (not measured; JIT and connections)",
    default: 5000,
    min: 0,
    max: 100_000,
  },
  redisTopologyOption("the drop (its warm-up included)", "a coupon issue"),
];

export interface CouponDropOptions {
  requests: number;
  users: number;
  quantity: number;
  connections: number;
  workers: number;
  warmup: number;
  /** cluster: the drop again on a Floodgate on a private Redis Cluster, after the one on the bench Redis. */
  redis: RedisTopology;
}

export function toCouponDropOptions(values: OptionValues): CouponDropOptions {
  const int = (name: string) => values[name] as number;
  return {
    requests: int("requests"),
    users: int("users"),
    quantity: int("quantity"),
    connections: int("connections"),
    workers: int("workers"),
    warmup: int("warmup"),
    redis: toRedisTopology(values),
  };
}
