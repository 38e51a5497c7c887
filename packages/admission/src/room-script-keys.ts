// A room's keys (admission-keys.ts) under the names the room scripts' wrappers take (@floodgate/redis-scripts
// RoomKeys): each wrapper picks the ones its script reads, in its order.
import type { RoomKeys } from "@floodgate/redis-scripts";
import type { RoomKeySet } from "./admission-keys.ts";

export function roomScriptKeys(room: RoomKeySet): RoomKeys {
  return {
    configKey: room.config,
    stateKey: room.state,
    queueKey: room.queue,
    earlyKey: room.early,
    ticketsKey: room.tickets,
    usersKey: room.users,
    seenKey: room.seen,
    sessionsKey: room.sessions,
    admitsKey: room.admits,
    endedKey: room.ended,
    orderKey: room.order,
    proofKey: room.proof,
    proofTicketsKey: room.proofTickets,
    unreservedKey: room.unreserved,
    eventsKey: room.events,
  };
}
