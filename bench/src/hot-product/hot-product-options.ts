// Options of `./floodgate bench hot-product`. Defaults replay issue 4: 500 connections order one product with
// 50,000 in stock at 4,000 orders/s (the seed's 500 users with 100 ms think time and 25 ms per order) until it
// is gone, then pay every order.
import type { OptionSpec, OptionValues } from "../bench-options.ts";
import {
  type RedisTopology,
  redisTopologyOption,
  toRedisTopology,
} from "../redis-topology/redis-topology-option.ts";

export const HOT_PRODUCT_OPTION_SPECS: readonly OptionSpec[] = [
  {
    name: "stock",
    kind: "int",
    help: "units of the product on sale",
    default: 50_000,
    min: 1,
    max: 2_000_000,
  },
  {
    name: "rate",
    kind: "int",
    help: "offered orders/s across all connections",
    default: 4000,
    min: 1,
    max: 100_000,
  },
  {
    name: "connections",
    kind: "int",
    help: "HTTP connections of the load generator",
    default: 500,
    min: 1,
    max: 10_000,
  },
  {
    name: "slices",
    kind: "int",
    help: "staggered autocannon instances that spread the rate over each second (1 = plain autocannon)",
    default: 50,
    min: 1,
    max: 100,
  },
  {
    name: "users",
    kind: "int",
    help: "buyers funded before the sale; order i comes from user i mod users",
    default: 50_000,
    min: 1,
    max: 2_000_000,
  },
  { name: "workers", kind: "int", help: "Floodgate worker processes (WORKERS)", default: 2, min: 1, max: 64 },
  {
    name: "warmup",
    kind: "int",
    help: "orders for a separate warm-up product first (not measured; JIT and connections)",
    default: 5000,
    min: 0,
    max: 100_000,
  },
  {
    name: "max",
    kind: "flag",
    help: "search the highest accepted order rate with p99 < 50 ms instead of the sale and its payments",
  },
  {
    name: "stage-duration",
    kind: "int",
    help: "seconds of stock per --max stage (stock = rate x seconds)",
    default: 10,
    min: 3,
    max: 120,
  },
  redisTopologyOption("the run (a warm-up, then the sale and its payments, or --max)", "an order"),
];

export interface HotProductOptions {
  stock: number;
  rate: number;
  connections: number;
  slices: number;
  users: number;
  workers: number;
  warmup: number;
  max: boolean;
  stageDuration: number;
  /** cluster: the run again on a Floodgate on a private Redis Cluster, after the one on the bench Redis. */
  redis: RedisTopology;
}

export function toHotProductOptions(values: OptionValues): HotProductOptions {
  const int = (name: string) => values[name] as number;
  return {
    stock: int("stock"),
    rate: int("rate"),
    connections: int("connections"),
    slices: int("slices"),
    users: int("users"),
    workers: int("workers"),
    warmup: int("warmup"),
    max: values.max === true,
    stageDuration: int("stage-duration"),
    redis: toRedisTopology(values),
  };
}
