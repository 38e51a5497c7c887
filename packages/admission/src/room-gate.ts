// The queueing mirror: whether a room queues, copied into every partition's slot so that a guarded request's
// script reads it beside the user's other keys (includes/admission-gate.lua). The room's state decides (the
// leader's tick, an admin's `on`/`off`); its writers copy it here afterwards, so a request is judged by the
// previous value until the copy lands: about one round trip of the writer. No expiry: a dead leader leaves a
// room as it was, as its state does.
import type { Cluster, Redis } from "ioredis";
import type { AdmissionKeys } from "./admission-keys.ts";

/** One SET per partition, sent together (one round trip per node on a cluster). */
export async function writeRoomGate(
  redis: Redis | Cluster,
  keys: AdmissionKeys,
  roomId: string,
  queueing: boolean,
): Promise<void> {
  const value = queueing ? "1" : "0";
  await Promise.all(keys.roomGates(roomId).map((key) => redis.set(key, value)));
}
