// The admission leader's lease and its epoch (hold-leader-lease-2.lua, in @floodgate/redis-scripts). The epoch
// grows with every new holder; each room's tick carries it, and a room refuses an epoch below the highest it has
// seen, which fences a deposed leader out of every room its successor has ticked without the tick reading the
// lease (another slot).
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { holdLeaderLease as holdLeaderLeaseScript } from "@floodgate/redis-scripts";
import type { AdmissionKeys } from "./admission-keys.ts";

/**
 * Takes or keeps the lease for leaseMs from now. Returns our epoch (>= 1) while we hold it, 0 when another
 * process does. `aboveEpoch`: an epoch a room refused us with; a holder's epoch goes past it (it can only be
 * ahead of the counter when a failover lost the counter's last write).
 */
export async function holdLeaderLease(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  holderId: string,
  leaseMs: number,
  aboveEpoch = 0,
): Promise<number> {
  const { epoch } = await holdLeaderLeaseScript.run(redis, {
    leaseKey: keys.leaderLease(),
    epochKey: keys.leaderEpoch(),
    holderId,
    leaseMs,
    aboveEpoch,
  });
  return epoch;
}
