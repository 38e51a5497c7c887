// The periodic work for the waiting-room sockets this process holds, all of it batched per room:
//   positions  once a second, every waiting socket's place in a pipeline per slice; a changed place is pushed
//   heartbeats every few seconds, one ZADD (XX) per 1,000 open sockets keeps their tickets' places
// Nothing here is per-socket traffic to Redis.
import { type AdmissionKeys, readTicket, ThrottledWarning } from "@floodgate/admission";
import { MAX_ROOM_LANES } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import { LANE_BAND, laneBand } from "@floodgate/redis-scripts";
import type { FastifyBaseLogger } from "fastify";
import type { RoomDirectory } from "./room-directory.ts";
import type { SocketWatchers, Watcher } from "./socket-watchers.ts";
import type { TicketMessages } from "./ticket-messages.ts";

/** Sockets per slice of a position round: between slices the event loop serves requests. */
const POSITION_SLICE = 500;
const MAX_HEARTBEAT_MS = 5000;
const ZADD_CHUNK = 1000;

export class PositionRounds {
  readonly #redis: ScriptedRedis;
  readonly #keys: AdmissionKeys;
  readonly #directory: RoomDirectory;
  readonly #watchers: SocketWatchers;
  readonly #messages: TicketMessages;
  readonly #log: FastifyBaseLogger;
  readonly #lastHeartbeat = new Map<string, number>();
  readonly #warnings = new ThrottledWarning();
  #positionsRunning = false;

  constructor(deps: {
    redis: ScriptedRedis;
    keys: AdmissionKeys;
    directory: RoomDirectory;
    watchers: SocketWatchers;
    messages: TicketMessages;
    log: FastifyBaseLogger;
  }) {
    this.#redis = deps.redis;
    this.#keys = deps.keys;
    this.#directory = deps.directory;
    this.#watchers = deps.watchers;
    this.#messages = deps.messages;
    this.#log = deps.log;
  }

  /**
   * Every waiting socket's place, a pipeline per slice of POSITION_SLICE sockets; a changed place is pushed.
   * Thousands of pushes at once would hold the event loop for a tenth of a second and delay every request
   * behind them, so the round yields between slices. A round still running when the next is due skips it.
   */
  async pushPositions(): Promise<void> {
    if (this.#positionsRunning) return;
    this.#positionsRunning = true;
    try {
      for (const [roomId, watchers] of this.#watchers.rooms()) {
        const waiting = watchers.filter((w) => w.status !== "admitted");
        for (let start = 0; start < waiting.length; start += POSITION_SLICE) {
          await this.#pushSlice(roomId, waiting.slice(start, start + POSITION_SLICE));
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    } catch (error) {
      this.#warnings.warn("positions", (heldBack) =>
        this.#log.warn(
          { err: (error as Error).message, similarSinceLast: heldBack },
          "waiting-room positions not refreshed (sockets keep their last position)",
        ),
      );
    } finally {
      this.#positionsRunning = false;
    }
  }

  /** An open socket keeps its ticket's place: the room's heartbeats go in one ZADD (XX) per 1,000 sockets. */
  async sendHeartbeats(): Promise<void> {
    const now = Date.now();
    try {
      for (const [roomId, watchers] of this.#watchers.rooms()) {
        const abandonMs = (this.#directory.room(roomId)?.definition.abandonSeconds ?? 60) * 1000;
        const every = Math.min(MAX_HEARTBEAT_MS, abandonMs / 3);
        if (now - (this.#lastHeartbeat.get(roomId) ?? 0) < every) continue;
        this.#lastHeartbeat.set(roomId, now);
        const tickets = [...new Set(watchers.filter((w) => w.status !== "admitted").map((w) => w.ticketId))];
        const seen = this.#keys.room(roomId).seen;
        for (let i = 0; i < tickets.length; i += ZADD_CHUNK) {
          const pairs = tickets.slice(i, i + ZADD_CHUNK).flatMap((ticketId) => [now, ticketId]);
          await this.#redis.zadd(seen, "XX", ...pairs);
        }
      }
    } catch (error) {
      this.#warnings.warn("heartbeats", (heldBack) =>
        this.#log.warn(
          { err: (error as Error).message, similarSinceLast: heldBack },
          "waiting-room heartbeats not sent (places may be abandoned if this lasts abandonSeconds)",
        ),
      );
    }
  }

  async #pushSlice(roomId: string, waiting: Watcher[]) {
    const room = this.#keys.room(roomId);
    // One room's keys only: one slot, as a Redis Cluster requires of a pipeline (never mix rooms in one).
    const pipeline = this.#redis.pipeline();
    pipeline.zcard(room.early);
    // A room with lanes: a place is counted in the ticket's lane (as a poll counts it), so each ticket's score
    // (its band) and the queue below each band are read too (room-lanes.lua).
    const laned = (this.#directory.room(roomId)?.definition.lanes.length ?? 0) > 0;
    if (laned) {
      for (let band = 1; band <= MAX_ROOM_LANES; band++)
        pipeline.zcount(room.queue, "-inf", `(${band * LANE_BAND}`);
    }
    // A pre-queue socket also asks whether its ticket is still in the pre-queue. Without that, a pre-queue
    // ticket revoked or abandoned while its socket attached (the event went out before the watcher existed)
    // kept its socket waiting, told the pre-queue's size, until the page gave up.
    const replyIndex: { rank: number; score: number | null; early: number | null }[] = [];
    let next = laned ? 1 + MAX_ROOM_LANES : 1;
    for (const watcher of waiting) {
      pipeline.zrank(room.queue, watcher.ticketId);
      const score = laned ? next + 1 : null;
      if (score !== null) pipeline.zscore(room.queue, watcher.ticketId);
      const early = watcher.status === "early" ? next + (score === null ? 1 : 2) : null;
      if (early !== null) pipeline.zscore(room.early, watcher.ticketId);
      replyIndex.push({ rank: next, score, early });
      next += 1 + (score === null ? 0 : 1) + (early === null ? 0 : 1);
    }
    const results = (await pipeline.exec()) ?? [];
    const earlyCount = Number(results[0]?.[1] ?? 0);
    /** Tickets queued before lane `band` (the default queue and the lanes before it). */
    const queuedBefore = (band: number) => (band === 0 ? 0 : Number(results[band]?.[1] ?? 0));
    const lost: Watcher[] = [];
    waiting.forEach((watcher, i) => {
      if (watcher.status === "admitted") return; // admitted while the pipeline was out
      const replies = replyIndex[i]!;
      const rank = results[replies.rank]?.[1] as number | null | undefined;
      const score = replies.score === null ? null : results[replies.score]?.[1];
      const inPreQueue = replies.early !== null && results[replies.early]?.[1] != null;
      let position: number | null;
      if (typeof rank === "number") {
        watcher.status = "waiting";
        watcher.band = score == null ? 0 : laneBand(Number(score));
        position = rank + 1 - queuedBefore(watcher.band);
      } else if (watcher.status === "early" && inPreQueue) {
        position = earlyCount;
      } else {
        // Out of the queue (and the pre-queue): admitted or ended, and the event not seen here. A ticket moved
        // from the pre-queue to the queue between the two replies reads as waiting and is left to the next round.
        lost.push(watcher);
        return;
      }
      // A closed room (endsAt passed), then a sold-out one: told once; positions follow again when it reopens.
      if (this.#messages.roomClosed(roomId)) {
        watcher.position = position;
        this.#messages.closed(watcher);
        return;
      }
      if (this.#messages.roomSoldOut(roomId)) {
        watcher.position = position;
        watcher.closed = false;
        this.#messages.soldOut(watcher);
        return;
      }
      if (watcher.soldOut || watcher.closed) {
        watcher.soldOut = false;
        watcher.closed = false;
        watcher.position = position;
        this.#messages.position(watcher);
        return;
      }
      // A new place, or new units left of a room selling products: both are what a waiting shopper watches. In a
      // room with lanes, a new ETA too: a lane's pace follows the other lanes' counts while its place stands still
      // (a default queue of share 0 waits for every lane to empty).
      if (
        position !== watcher.position ||
        this.#messages.unitsLeft(roomId) !== watcher.unitsLeft ||
        (laned && this.#messages.eta(watcher, position) !== watcher.etaSeconds)
      ) {
        watcher.position = position;
        this.#messages.position(watcher);
      }
    });
    for (const watcher of lost) await this.#reread(watcher);
  }

  /** A socket whose ticket left the queue without an event reaching this process (it subscribed late). */
  async #reread(watcher: Watcher) {
    const ticket = await readTicket(this.#redis, this.#keys, watcher.roomId, watcher.ticketId);
    if (ticket?.status === "admitted" && watcher.status !== "admitted") {
      void this.#messages.admitted(watcher, ticket.admittedAt ?? Date.now(), ticket.expiresAt ?? Date.now());
    } else if (
      !ticket ||
      (ticket.status !== "waiting" && ticket.status !== "early" && ticket.status !== "admitted")
    ) {
      const reason = ticket?.status ?? "expired";
      this.#messages.expired(watcher.socket, reason);
      watcher.socket.close(1000, reason);
      this.#watchers.remove(watcher);
    }
  }
}
