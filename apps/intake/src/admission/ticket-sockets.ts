// The waiting-room WebSockets this process holds. A socket gets its ticket's state when it opens, then:
//   {type: "position", position, etaSeconds}       when its place changes (checked once a second)
//   {type: "admitted", admissionToken, expiresAt, admittedAt}   as soon as the leader admits it
//   {type: "expired", reason}                     when its session ends, it is abandoned or revoked (then closes)
// Admissions reach every intake on the room event channel, whichever process made them. Places are read for
// all of a room's sockets in one pipeline a second; an open socket is a heartbeat, sent for all of a room's
// sockets in one ZADD every few seconds. Nothing here is per-socket traffic to Redis.
import {
  type AdmissionKeys,
  type AdmissionTokens,
  readTicket,
  ThrottledWarning,
  type TicketState,
} from "@floodgate/admission";
import type { AdmissionMetrics } from "@floodgate/metrics";
import type { ScriptedRedis } from "@floodgate/queue";
import type { FastifyBaseLogger } from "fastify";
import type { WebSocket } from "ws";
import type { RoomDirectory } from "./room-directory.ts";
import { ticketView, waitingEta } from "./ticket-view.ts";

const POSITION_EVERY_MS = 1000;
/** Sockets per slice of a position round: between slices the event loop serves requests. */
const POSITION_SLICE = 500;
const HEARTBEAT_CHECK_MS = 500;
const MAX_HEARTBEAT_MS = 5000;
const PING_EVERY_MS = 30_000;
const ZADD_CHUNK = 1000;

interface Watcher {
  socket: WebSocket;
  roomId: string;
  ticketId: string;
  userId: string;
  status: "early" | "waiting" | "admitted";
  position: number | null;
  alive: boolean;
}

export interface RoomEvent {
  room: string;
  /** [ticketId, userId, expiresAt]; cjson encodes an empty list as {}. */
  admitted: [string, string, number][] | Record<string, never>;
  ended: [string, string][] | Record<string, never>;
  admittedAt?: number;
}

export class TicketSockets {
  readonly #redis: ScriptedRedis;
  readonly #keys: AdmissionKeys;
  readonly #tokens: AdmissionTokens;
  readonly #directory: RoomDirectory;
  readonly #metrics: AdmissionMetrics;
  readonly #log: FastifyBaseLogger;
  readonly #byTicket = new Map<string, Set<Watcher>>();
  readonly #byRoom = new Map<string, Set<Watcher>>();
  readonly #lastHeartbeat = new Map<string, number>();
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #warnings = new ThrottledWarning();
  #positionsRunning = false;

  constructor(deps: {
    redis: ScriptedRedis;
    keys: AdmissionKeys;
    tokens: AdmissionTokens;
    directory: RoomDirectory;
    metrics: AdmissionMetrics;
    log: FastifyBaseLogger;
  }) {
    this.#redis = deps.redis;
    this.#keys = deps.keys;
    this.#tokens = deps.tokens;
    this.#directory = deps.directory;
    this.#metrics = deps.metrics;
    this.#log = deps.log;
  }

  get open(): number {
    let count = 0;
    for (const watchers of this.#byTicket.values()) count += watchers.size;
    return count;
  }

  start(): void {
    this.#timers.push(
      setInterval(() => void this.#pushPositions(), POSITION_EVERY_MS),
      setInterval(() => void this.#sendHeartbeats(), HEARTBEAT_CHECK_MS),
      setInterval(() => this.#ping(), PING_EVERY_MS),
    );
  }

  stop(): void {
    for (const timer of this.#timers) clearInterval(timer);
    for (const watchers of this.#byTicket.values()) {
      for (const watcher of watchers) watcher.socket.close(1001, "intake shutting down");
    }
  }

  /** A socket for a ticket: it gets the ticket's state now, and stays if the ticket still waits or is admitted. */
  async attach(socket: WebSocket, roomId: string, ticketId: string): Promise<void> {
    // Messages sent while the ticket is read would be lost; there are none to send yet, and the client sends none.
    let ticket: TicketState | null;
    try {
      ticket = await readTicket(this.#redis, this.#keys, roomId, ticketId);
    } catch (error) {
      this.#log.warn(
        { err: (error as Error).message, roomId },
        "waiting-room socket: cannot read the ticket",
      );
      socket.close(1011, "try again");
      return;
    }
    if (!ticket) {
      this.#send(socket, {
        type: "error",
        code: "not_found",
        detail: `room ${roomId} has no ticket ${ticketId}`,
      });
      socket.close(4404, "no such ticket");
      return;
    }
    if (ticket.status !== "early" && ticket.status !== "waiting" && ticket.status !== "admitted") {
      this.#sendExpired(socket, ticket.status);
      socket.close(1000, ticket.status);
      return;
    }
    const watcher: Watcher = {
      socket,
      roomId,
      ticketId,
      userId: ticket.userId,
      status: ticket.status,
      position: ticket.position,
      alive: true,
    };
    this.#add(watcher);
    socket.on("close", () => this.#remove(watcher));
    socket.on("error", () => this.#remove(watcher));
    socket.on("pong", () => {
      watcher.alive = true;
    });
    if (ticket.status === "admitted")
      this.#sendAdmitted(watcher, ticket.admittedAt ?? Date.now(), ticket.expiresAt ?? Date.now());
    else this.#sendPosition(watcher);
  }

  /** What the leader did in a tick, from the room event channel: push to the sockets this process holds. */
  onRoomEvent(event: RoomEvent): void {
    if (Array.isArray(event.admitted)) {
      const admittedAt = event.admittedAt ?? Date.now();
      for (const [ticketId, , expiresAt] of event.admitted) {
        for (const watcher of this.#byTicket.get(ticketId) ?? []) {
          if (watcher.status !== "admitted") this.#sendAdmitted(watcher, admittedAt, expiresAt);
        }
      }
    }
    if (Array.isArray(event.ended)) {
      for (const [ticketId, reason] of event.ended) {
        for (const watcher of [...(this.#byTicket.get(ticketId) ?? [])]) {
          this.#sendExpired(watcher.socket, reason);
          watcher.socket.close(1000, reason);
          this.#remove(watcher);
        }
      }
    }
  }

  #add(watcher: Watcher) {
    const byTicket = this.#byTicket.get(watcher.ticketId) ?? new Set();
    this.#byTicket.set(watcher.ticketId, byTicket.add(watcher));
    const byRoom = this.#byRoom.get(watcher.roomId) ?? new Set();
    this.#byRoom.set(watcher.roomId, byRoom.add(watcher));
    this.#metrics.websockets.inc();
  }

  #remove(watcher: Watcher) {
    const byTicket = this.#byTicket.get(watcher.ticketId);
    if (!byTicket?.delete(watcher)) return;
    if (byTicket.size === 0) this.#byTicket.delete(watcher.ticketId);
    const byRoom = this.#byRoom.get(watcher.roomId);
    byRoom?.delete(watcher);
    if (byRoom?.size === 0) this.#byRoom.delete(watcher.roomId);
    this.#metrics.websockets.dec();
  }

  #send(socket: WebSocket, message: object): boolean {
    if (socket.readyState !== socket.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  #sendPosition(watcher: Watcher) {
    const position = watcher.position ?? 0;
    const room = this.#directory.room(watcher.roomId);
    if (this.#send(watcher.socket, { type: "position", position, etaSeconds: waitingEta(position, room) })) {
      this.#metrics.pushes.inc({ type: "position" });
    }
  }

  #sendAdmitted(watcher: Watcher, admittedAt: number, expiresAt: number) {
    watcher.status = "admitted";
    watcher.position = null;
    const view = ticketView(
      {
        ticketId: watcher.ticketId,
        roomId: watcher.roomId,
        userId: watcher.userId,
        status: "admitted",
        position: null,
        joinedAt: null,
        admittedAt,
        expiresAt,
      },
      undefined,
      this.#tokens,
    );
    const message = {
      type: "admitted",
      admissionToken: view.admissionToken,
      expiresAt: view.expiresAt,
      admittedAt: new Date(admittedAt).toISOString(),
    };
    if (this.#send(watcher.socket, message)) this.#metrics.pushes.inc({ type: "admitted" });
  }

  #sendExpired(socket: WebSocket, reason: string) {
    if (this.#send(socket, { type: "expired", reason })) this.#metrics.pushes.inc({ type: "expired" });
  }

  /**
   * Once a second: every waiting socket's place, a pipeline per slice of POSITION_SLICE sockets; a changed place
   * is pushed. Thousands of pushes at once would hold the event loop for a tenth of a second and delay every
   * request behind them, so the round yields between slices.
   */
  async #pushPositions(): Promise<void> {
    if (this.#positionsRunning) return;
    this.#positionsRunning = true;
    try {
      for (const [roomId, watchers] of this.#byRoom) {
        const waiting = [...watchers].filter((w) => w.status !== "admitted");
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

  async #pushSlice(roomId: string, waiting: Watcher[]) {
    const room = this.#keys.room(roomId);
    const pipeline = this.#redis.pipeline();
    pipeline.zcard(room.early);
    for (const watcher of waiting) pipeline.zrank(room.queue, watcher.ticketId);
    const results = (await pipeline.exec()) ?? [];
    const earlyCount = Number(results[0]?.[1] ?? 0);
    const lost: Watcher[] = [];
    waiting.forEach((watcher, i) => {
      if (watcher.status === "admitted") return; // admitted while the pipeline was out
      const rank = results[i + 1]?.[1] as number | null | undefined;
      let position: number | null;
      if (typeof rank === "number") {
        watcher.status = "waiting";
        position = rank + 1;
      } else if (watcher.status === "early") {
        position = earlyCount;
      } else {
        lost.push(watcher); // out of the queue: admitted or ended, and the event not seen here yet
        return;
      }
      if (position !== watcher.position) {
        watcher.position = position;
        this.#sendPosition(watcher);
      }
    });
    for (const watcher of lost) await this.#reread(watcher);
  }

  /** A socket whose ticket left the queue without an event reaching this process (it subscribed late). */
  async #reread(watcher: Watcher) {
    const ticket = await readTicket(this.#redis, this.#keys, watcher.roomId, watcher.ticketId);
    if (ticket?.status === "admitted" && watcher.status !== "admitted") {
      this.#sendAdmitted(watcher, ticket.admittedAt ?? Date.now(), ticket.expiresAt ?? Date.now());
    } else if (
      !ticket ||
      (ticket.status !== "waiting" && ticket.status !== "early" && ticket.status !== "admitted")
    ) {
      this.#sendExpired(watcher.socket, ticket?.status ?? "expired");
      watcher.socket.close(1000, ticket?.status ?? "expired");
      this.#remove(watcher);
    }
  }

  /** An open socket keeps its ticket's place: the room's heartbeats go in one ZADD (XX) per 1,000 sockets. */
  async #sendHeartbeats(): Promise<void> {
    const now = Date.now();
    try {
      for (const [roomId, watchers] of this.#byRoom) {
        const abandonMs = (this.#directory.room(roomId)?.definition.abandonSeconds ?? 60) * 1000;
        const every = Math.min(MAX_HEARTBEAT_MS, abandonMs / 3);
        if (now - (this.#lastHeartbeat.get(roomId) ?? 0) < every) continue;
        this.#lastHeartbeat.set(roomId, now);
        const tickets = [
          ...new Set([...watchers].filter((w) => w.status !== "admitted").map((w) => w.ticketId)),
        ];
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

  /** A socket that did not answer the last ping is gone (a closed laptop sends no FIN). */
  #ping() {
    for (const watchers of this.#byTicket.values()) {
      for (const watcher of watchers) {
        if (!watcher.alive) {
          watcher.socket.terminate();
          this.#remove(watcher);
          continue;
        }
        watcher.alive = false;
        watcher.socket.ping();
      }
    }
  }
}
