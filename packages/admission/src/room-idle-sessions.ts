// Idle sessions (a room's sessionIdleSeconds): a session with no guarded request using its token that long ends,
// leaving the room's live count, so the next shopper is admitted for it. The guarded request's own script
// records each use in the user's slot, beside the session's pass, and refuses a token idle that long itself
// (includes/session-idle.lua): no round trip of its own. The room's live count is in the room's slot, and on a
// Redis Cluster no script spans the two, so the room learns of uses lazily: before each tick the leader asks the
// room which sessions could be idle by now (idle-sessions-due-4.lua: admitted, or last seen used, an idle time
// ago), reads those sessions' last uses in their users' slots (one HGET each), and the room ends the ones still
// idle (end-idle-sessions-5.lua) and looks at the others again an idle time after their last use. A session
// costs about one look per idle time, whatever its traffic; the leader's reads never touch a request's path.
// An ended session's pass is then closed in its user's slot (end-session-pass-1.lua), so its token stops
// admitting even if it was never used (the gate had no use to judge it by).
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { endIdleSessions, endSessionPass, idleSessionsDue } from "@floodgate/redis-scripts";
import type { AdmissionKeys } from "./admission-keys.ts";
import { roomScriptKeys } from "./room-script-keys.ts";

/** Sessions looked at per room per tick at most: bounds a tick's extra time whatever the room's size. */
export const IDLE_LOOKS_PER_TICK = 500;

/** The field a session's uses are recorded in, beside its pass (includes/session-idle.lua). */
const useField = (ticketId: string) => `${ticketId}:used`;

/** Ends the room's idle sessions; answers how many ended. Nothing for a room without sessionIdleSeconds. */
export async function endRoomIdleSessions(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
  sessionIdleSeconds: number | null,
): Promise<number> {
  if (sessionIdleSeconds === null) return 0;
  const room = keys.room(roomId);
  const idleMs = sessionIdleSeconds * 1000;
  const due = await idleSessionsDue.run(redis, {
    ...roomScriptKeys(room),
    idleKey: room.idle,
    idleMs,
    limit: IDLE_LOOKS_PER_TICK,
  });
  if (due.length === 0) return 0;
  const uses = await Promise.all(
    due.map((session) => redis.hget(keys.roomPasses(roomId, session.userId), useField(session.ticketId))),
  );
  const ended = await endIdleSessions.run(redis, {
    ...roomScriptKeys(room),
    idleKey: room.idle,
    eventChannel: keys.roomEventsChannel(),
    roomId,
    idleMs,
    sessions: due.map((session, i) => ({
      ticketId: session.ticketId,
      lastUse: uses[i] ? Number(uses[i]!.split("|")[0]) : null,
    })),
  });
  await Promise.all(
    ended.map((session) =>
      endSessionPass.run(redis, {
        passesKey: keys.roomPasses(roomId, session.userId),
        ticketId: session.ticketId,
      }),
    ),
  );
  return ended.length;
}
