// Room events (room.queueing_started, room.queueing_stopped, room.sold_out, ticket.admitted, room.closed)
// into the events feed and the webhook outbox. A room's script appends each one to the room's stream in the
// call that makes the transition (includes/room-events.lua), whichever process leads; here a worker reads each
// room's stream, records its entries on shard 0 (one statement per room: the feed's insert and the outbox's,
// event-recording.ts), then deletes them from the stream. Each event's id is derived from
// the room's entry (a ticket.admitted: from its ticket), and shard 0 holds every room event, so a drain
// repeated (a worker killed between its commit and the delete, two workers draining at once) records nothing
// twice: each transition is one event. Opt-in types (ticket.admitted) are recorded only while an enabled
// endpoint subscribes to them, else deleted unread by anyone. Off the hot path: the relay's loop, its pool.
import type { AdmissionKeys } from "@floodgate/admission";
import type { ShardDatabase } from "@floodgate/db";
import { OPT_IN_EVENT_TYPES, ROOM_EVENT_TYPES } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { type Kysely, sql } from "kysely";
import {
  type EventRow,
  eventRow,
  recordEventsCtes,
  type SubscribedTypes,
} from "../webhooks/event-recording.ts";

/** Entries per room per pass. */
export const ROOM_EVENTS_PER_PASS = 500;

type StreamEntry = [id: string, fields: string[]];

const KNOWN = new Set<string>(ROOM_EVENT_TYPES);
const iso = (ms: string | undefined) => new Date(Number(ms)).toISOString();

/** The feed's row of one stream entry, or null for an entry nobody records (an opt-in type unsubscribed). */
export function roomEventRow(
  roomId: string,
  [entryId, list]: StreamEntry,
  subscribed: SubscribedTypes,
): EventRow | null {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) fields[list[i]!] = list[i + 1]!;
  const type = fields.type ?? "";
  if (!KNOWN.has(type)) return null;
  if (OPT_IN_EVENT_TYPES.has(type as never) && !subscribed.has(type)) return null;
  if (type === "ticket.admitted") {
    const ticketId = fields.ticketId ?? entryId;
    return eventRow(ticketId, type, {
      roomId,
      ticketId,
      userId: fields.userId ?? "",
      admittedAt: iso(fields.at),
      expiresAt: iso(fields.expiresAt),
    });
  }
  // A room's transition: the room and the entry's id (unique in its stream, and time-ordered) name it.
  const operationId = `${roomId}:${entryId}`;
  return eventRow(operationId, type, { roomId, at: iso(fields.at) });
}

/** One pass over every room's stream; returns the entries it took (recorded or not). */
export async function drainRoomEvents(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  shard: Kysely<ShardDatabase>,
  subscribed: SubscribedTypes,
): Promise<number> {
  let taken = 0;
  for (const roomId of await redis.smembers(keys.rooms())) {
    const stream = keys.room(roomId).events;
    const entries = (await redis.xrange(stream, "-", "+", "COUNT", ROOM_EVENTS_PER_PASS)) as StreamEntry[];
    if (entries.length === 0) continue;
    const rows = entries.flatMap((entry) => roomEventRow(roomId, entry, subscribed) ?? []);
    if (rows.length > 0) await recordRoomEvents(shard, rows, subscribed);
    // Only after the commit: an entry deleted is recorded (or was not wanted). The read took the stream's
    // oldest entries, so those up to the last one read are exactly the ones below its successor (a later entry's id is
    // higher): one trim, not an XDEL naming each (about 3 us of Redis per id in a profiled flash sale).
    await redis.xtrim(stream, "MINID", successorId(entries.at(-1)![0]));
    taken += entries.length;
  }
  return taken;
}

/** The stream id right after `id` ("<ms>-<seq>"): MINID keeps it and everything above. */
export function successorId(id: string): string {
  const [ms, seq] = id.split("-");
  return `${ms}-${Number(seq) + 1}`;
}

async function recordRoomEvents(
  shard: Kysely<ShardDatabase>,
  rows: EventRow[],
  subscribed: SubscribedTypes,
): Promise<void> {
  await sql`with ${recordEventsCtes(rows, subscribed)} select 1`.execute(shard);
}
