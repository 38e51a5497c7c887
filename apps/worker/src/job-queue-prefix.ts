// Where BullMQ keeps a queue's keys: `<prefix>:<queue>:<type>`, and its scripts touch many of one queue's keys
// at once, so on a Redis Cluster all of a queue's keys must share a slot. The prefix carries the hash tag, one
// tag per queue so the queues land on different masters (BullMQ's advice: docs.bullmq.io/patterns/redis-cluster).
// REDIS_PREFIX never holds a brace (load-config.ts), so it cannot steal the tag. Every Queue and Worker of a
// queue takes its prefix from here.
import type { Config } from "@floodgate/config";

type PrefixConfig = Pick<Config, "redisPrefix">;

/** `fg:{bull-order-expiry}` → keys `fg:{bull-order-expiry}:order-expiry:…`. */
export const bullPrefix = (config: PrefixConfig, queue: string): string =>
  `${config.redisPrefix}{bull-${queue}}`;

/**
 * The untagged prefix every queue used before (`fg:bull`): releases up to this one left delayed jobs there,
 * which legacy-job-drain.ts still runs. Remove it with the drain, one release later.
 */
export const legacyBullPrefix = (config: PrefixConfig): string => `${config.redisPrefix}bull`;
