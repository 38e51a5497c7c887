// Room definitions are checked against each other (a route class is guarded by one active room at most) and then
// written. Two admins defining conflicting rooms at once, on two intake processes, must not both pass the check:
// a short Redis lease makes the check and the write one step. Released at once (the leader's way: a 1 ms lease),
// and it expires by itself if its holder dies in between.
import { randomUUID } from "node:crypto";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { holdLease } from "@floodgate/redis-scripts";
import type { AdmissionKeys } from "./admission-keys.ts";

const LOCK_MS = 5_000;
const WAIT_MS = 3_000;
const POLL_MS = 20;

/** Another definition held the lock for longer than WAIT_MS. */
export class RoomDefinitionBusyError extends Error {
  constructor() {
    super(`another room definition is being written; retry in a moment`);
    this.name = "RoomDefinitionBusyError";
  }
}

export async function withRoomDefinitionLock<T>(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  step: () => Promise<T>,
): Promise<T> {
  const lock = { leaseKey: keys.roomDefinitionLock(), holderId: randomUUID() };
  const deadline = Date.now() + WAIT_MS;
  while (!(await holdLease.run(redis, { ...lock, leaseMs: LOCK_MS })).held) {
    if (Date.now() >= deadline) throw new RoomDefinitionBusyError();
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  try {
    return await step();
  } finally {
    await holdLease.run(redis, { ...lock, leaseMs: 1 }).catch(() => undefined);
  }
}
