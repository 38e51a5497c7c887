import { luaScript } from "../lua-script.ts";

export interface HoldLeaderLeaseInput {
  /** The lease; its value is the holder's id (the same key and value as hold-lease-1.lua's). */
  leaseKey: string;
  /** The epoch counter, which only grows; same slot as the lease. */
  epochKey: string;
  holderId: string;
  /** Lease length from now, ms (1 gives the lease up at once). */
  leaseMs: number;
  /** An epoch a room has seen above ours (0 when none): while we hold the lease, our epoch goes past it. */
  aboveEpoch: number;
}

export interface HoldLeaderLeaseResult {
  /** Our epoch (>= 1) while we hold the lease for leaseMs from now; 0 when someone else holds it. */
  epoch: number;
}

/** hold-leader-lease-2.lua: takes or keeps the admission leader's lease and names the holder's epoch. */
export const holdLeaderLease = luaScript({
  file: "hold-leader-lease-2.lua",
  keys: (input: HoldLeaderLeaseInput) => [input.leaseKey, input.epochKey],
  args: (input: HoldLeaderLeaseInput) => [input.holderId, input.leaseMs, input.aboveEpoch],
  decode: (reply: number): HoldLeaderLeaseResult => ({ epoch: Number(reply) }),
});
