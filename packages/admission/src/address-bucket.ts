// A client address's token bucket: its own slot ({ip-<ip>}), so it is never a key of a route's script. The
// intake takes its token with this side command, sent beside the route's script in the same round trip
// (apps/intake/src/admission/address-buckets.ts decides when to send it and what its answer means).
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { takeToken } from "@floodgate/redis-scripts";

export interface AddressTokenAnswer {
  /** A token was there and is taken; false: the bucket was empty (the request is charged to it anyway). */
  ok: boolean;
  /** Tokens left. */
  remaining: number;
  /** ms until the bucket is full again (past an empty bucket's refill time while the address owes). */
  resetMs: number;
}

/** Takes one token (take-token-1.lua). `bucket` is [ms between tokens, burst] with a limit (ms > 0). */
export async function takeAddressToken(
  redis: ScriptedRedis,
  key: string,
  [intervalMs, burst]: readonly [number, number],
): Promise<AddressTokenAnswer> {
  const { taken, remaining, resetMs } = await takeToken.run(redis, { bucketKey: key, intervalMs, burst });
  return { ok: taken, remaining, resetMs };
}
