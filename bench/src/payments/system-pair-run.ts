// The measured part of a payments run that compares two Floodgates set up side by side (--auth compare: auth on
// and AUTH=off; --redis cluster: one Redis and a Redis Cluster), each with its own port, Redis prefix and
// databases, measured back to back on the same machine: their warm-ups, the fixed-rate run, the paired --max
// search, then each one's intake budget.
import type { FreshFloodgate } from "../harness/fresh-floodgate.ts";
import { redisFootprint } from "../redis-footprint/system-footprint.ts";
import { searchMaxRatePaired } from "./paired-max-search.ts";
import type { PaymentsOptions } from "./payments-options.ts";
import { fixedRateRun, intakeBudget, warmUp } from "./payments-phases.ts";
import type { TargetPhases } from "./payments-summary.ts";

export interface PairSide {
  floodgate: FreshFloodgate;
  into: TargetPhases;
  keyPrefix: string;
  /** Names the system in progress lines: both targets are "floodgate". */
  label: string;
  /** The key count of the Redis this side runs on (the rerun rule of key-table-doubling.ts), if one is read. */
  redisKeys?: () => Promise<number>;
}

export async function runSystemPair(
  first: PairSide,
  second: PairSide,
  options: PaymentsOptions,
): Promise<void> {
  const sides = [first, second] as const;
  for (const side of sides) {
    side.into.warmUp = await warmUp(side.floodgate.system.target, options, side.keyPrefix, side.label);
  }
  if (options.fixedRate) {
    // One run each, the first side first: a single pair cannot alternate; --max's pairs do.
    for (const side of sides) {
      side.into.rate = await fixedRateRun(
        side.floodgate.system.target,
        options,
        side.keyPrefix,
        side.label,
        redisFootprint(side.floodgate),
      );
    }
  }
  if (options.max) {
    const system = (side: PairSide) => ({
      target: side.floodgate.system.target,
      keyPrefix: `${side.keyPrefix}-max`,
      ...(side.redisKeys ? { redisKeys: side.redisKeys } : {}),
      label: side.label,
    });
    [first.into.max, second.into.max] = await searchMaxRatePaired({
      systems: [system(first), system(second)],
      stageDurationS: options.stageDuration,
      connections: options.connections,
      slices: options.slices,
      users: options.users,
    });
  }
  for (const side of sides) {
    side.into.intakeBudget = await intakeBudget(side.floodgate, options, side.keyPrefix);
  }
}
