// Sessions that end on their order: when an order accepted with a room's admission token ends (paid: checkout
// done; cancelled, expired or failed: nothing bought), its session leaves the room's live count, so the room
// admits the next shopper for it (maxActiveSessions and the stock-aware cap read that one count). The order's
// stream message carries the session (room and ticket, from the intake's verified token), the shard keeps it
// with the order, and the worker ends the batch's sessions after its commit.
// Budget: one end-sessions-4.lua call per room per batch (all its tickets at once), never one per order; each
// call's keys are the room's, one slot, so it runs on a Redis Cluster as on one Redis.
import type { OrderSession } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { endSessions } from "@floodgate/redis-scripts";
import type { AdmissionKeys } from "./admission-keys.ts";
import { roomScriptKeys } from "./room-script-keys.ts";

/** Ends every admitted session named (a redelivered batch finds them ended and changes nothing). */
export async function endOrderSessions(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  sessions: readonly OrderSession[],
): Promise<void> {
  const byRoom = new Map<string, Set<string>>();
  for (const { roomId, ticketId } of sessions) {
    const tickets = byRoom.get(roomId) ?? new Set<string>();
    byRoom.set(roomId, tickets.add(ticketId));
  }
  await Promise.all(
    [...byRoom].map(([roomId, ticketIds]) =>
      endSessions.run(redis, {
        ...roomScriptKeys(keys.room(roomId)),
        eventChannel: keys.roomEventsChannel(),
        roomId,
        ticketIds: [...ticketIds],
      }),
    ),
  );
}
