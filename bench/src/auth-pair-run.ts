// The measured part of payments --auth compare: two Floodgates already set up side by side (auth on with customer
// tokens, and AUTH=off; each with its own port, Redis prefix and databases), measured back to back on the same
// machine: their warm-ups, the fixed-rate run, the paired --max search, then each one's intake budget.
import type { FreshFloodgate } from "./fresh-floodgate.ts";
import { searchMaxRatePaired } from "./paired-max-search.ts";
import type { PaymentsOptions } from "./payments-options.ts";
import { fixedRateRun, intakeBudget, warmUp } from "./payments-phases.ts";
import type { TargetPhases } from "./payments-summary.ts";
import { keyspaceReader } from "./redis-keyspace.ts";

export interface AuthPairSide {
  floodgate: FreshFloodgate;
  into: TargetPhases;
  keyPrefix: string;
  /** Names the system in progress lines: both targets are "floodgate". */
  label: string;
}

export async function runAuthPair(
  authOn: AuthPairSide,
  authOff: AuthPairSide,
  options: PaymentsOptions,
): Promise<void> {
  const sides = [authOn, authOff] as const;
  for (const side of sides) {
    side.into.warmUp = await warmUp(side.floodgate.system.target, options, side.keyPrefix, side.label);
  }
  if (options.fixedRate) {
    // One run each, auth on first: a single pair cannot alternate; --max's pairs do.
    for (const side of sides) {
      side.into.rate = await fixedRateRun(side.floodgate.system.target, options, side.keyPrefix, side.label);
    }
  }
  if (options.max) {
    // Both systems share the Redis server: its key count is the same figure for either.
    const keyspace = keyspaceReader(authOn.floodgate.environment.redisUrl);
    try {
      const system = (side: AuthPairSide) => ({
        target: side.floodgate.system.target,
        keyPrefix: `${side.keyPrefix}-max`,
        redisKeys: keyspace.keys,
        label: side.label,
      });
      [authOn.into.max, authOff.into.max] = await searchMaxRatePaired({
        systems: [system(authOn), system(authOff)],
        stageDurationS: options.stageDuration,
        connections: options.connections,
        slices: options.slices,
        users: options.users,
      });
    } finally {
      keyspace.close();
    }
  }
  for (const side of sides) {
    side.into.intakeBudget = await intakeBudget(side.floodgate, options, side.keyPrefix);
  }
}
