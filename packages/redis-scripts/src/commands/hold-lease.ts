import { luaScript } from "../lua-script.ts";

export interface HoldLeaseInput {
  /** The lease; its value is the holder's id. */
  leaseKey: string;
  holderId: string;
  /** Lease length from now, ms (1 gives the lease up at once). */
  leaseMs: number;
}

export interface HoldLeaseResult {
  /** We hold the lease for leaseMs from now; false: someone else does. */
  held: boolean;
}

/** hold-lease-1.lua: takes a lease nobody holds, or extends ours (the room-definition lock's). */
export const holdLease = luaScript({
  file: "hold-lease-1.lua",
  keys: (input: HoldLeaseInput) => [input.leaseKey],
  args: (input: HoldLeaseInput) => [input.holderId, input.leaseMs],
  decode: (reply: number): HoldLeaseResult => ({ held: reply === 1 }),
});
