// The waiting-room WebSockets this process holds. A socket gets its ticket's state when it opens, then its
// place as it changes, its admission the moment the leader makes it, and "expired" when its session ends (see
// ticket-messages.ts). Admissions reach every intake on the room event channel, whichever process made them;
// places and heartbeats go a room at a time (position-rounds.ts). Nothing here is per-socket traffic to Redis.
import { type AdmissionKeys, readTicket, type TicketState } from "@floodgate/admission";
import type { AdmissionMetrics } from "@floodgate/metrics";
import type { ScriptedRedis } from "@floodgate/redis-connections";
import type { FastifyBaseLogger } from "fastify";
import type { WebSocket } from "ws";
import { ProblemError } from "../errors/error-catalogue.ts";
import { refusalMessage, socketRefusal } from "../operations/socket-problem.ts";
import type { PassGrants } from "./pass-grants.ts";
import { PositionRounds } from "./position-rounds.ts";
import type { RoomDirectory } from "./room-directory.ts";
import { SocketWatchers, type Watcher } from "./socket-watchers.ts";
import { TicketMessages } from "./ticket-messages.ts";

const POSITION_EVERY_MS = 1000;
const HEARTBEAT_CHECK_MS = 500;
const PING_EVERY_MS = 30_000;

export interface RoomEvent {
  room: string;
  /** [ticketId, userId, expiresAt]; cjson encodes an empty list as {}. */
  admitted: [string, string, number][] | Record<string, never>;
  ended: [string, string][] | Record<string, never>;
  admittedAt?: number;
  /** The tick found the room sold out (the first that did). */
  soldOut?: true;
  /** The tick found the room closed, its endsAt passed (the first that did). */
  closed?: true;
}

export class TicketSockets {
  readonly #redis: ScriptedRedis;
  readonly #keys: AdmissionKeys;
  readonly #log: FastifyBaseLogger;
  readonly #watchers: SocketWatchers;
  readonly #messages: TicketMessages;
  readonly #rounds: PositionRounds;
  readonly #directory: RoomDirectory;
  readonly #timers: NodeJS.Timeout[] = [];

  constructor(deps: {
    redis: ScriptedRedis;
    keys: AdmissionKeys;
    directory: RoomDirectory;
    metrics: AdmissionMetrics;
    passes: PassGrants;
    log: FastifyBaseLogger;
  }) {
    this.#redis = deps.redis;
    this.#keys = deps.keys;
    this.#log = deps.log;
    this.#directory = deps.directory;
    this.#watchers = new SocketWatchers(deps.metrics);
    this.#messages = new TicketMessages(deps);
    this.#rounds = new PositionRounds({ ...deps, watchers: this.#watchers, messages: this.#messages });
  }

  get open(): number {
    return this.#watchers.open;
  }

  start(): void {
    this.#timers.push(
      setInterval(() => void this.#rounds.pushPositions(), POSITION_EVERY_MS),
      setInterval(() => void this.#rounds.sendHeartbeats(), HEARTBEAT_CHECK_MS),
      setInterval(() => this.#ping(), PING_EVERY_MS),
    );
  }

  stop(): void {
    for (const timer of this.#timers) clearInterval(timer);
    for (const watcher of this.#watchers.all()) watcher.socket.close(1001, "intake shutting down");
  }

  /**
   * A socket for a ticket: it gets the ticket's state now, and stays if the ticket still waits or is admitted.
   * `ownerUserId` (a shopper's socket): another user's ticket answers as unknown. `upgrade`: the URL and request
   * id a refusal's problem names.
   */
  async attach(
    socket: WebSocket,
    roomId: string,
    ticketId: string,
    ownerUserId: string | undefined,
    upgrade: { instance: string; requestId: string },
  ): Promise<void> {
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
    // The client may have gone while the ticket was read: its close event has fired with nobody listening, so a
    // watcher added now would heartbeat the ticket (keep its place) until the next ping sweep, 30 s on.
    if (socket.readyState !== socket.OPEN) return;
    if (!ticket || (ownerUserId !== undefined && ticket.userId !== ownerUserId)) {
      // The problem GET /v1/rooms/:roomId/tickets/:ticketId answers for the same ticket.
      const unknown = new ProblemError("not_found", {
        field: "ticketId",
        detail: `room ${roomId} has no ticket ${ticketId}`,
      });
      const refusal = socketRefusal(unknown, upgrade.instance, upgrade.requestId)!;
      if (socket.readyState === socket.OPEN) socket.send(refusalMessage(refusal));
      socket.close(refusal.closeCode, "no such ticket");
      return;
    }
    if (ticket.status !== "early" && ticket.status !== "waiting" && ticket.status !== "admitted") {
      this.#messages.expired(socket, ticket.status);
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
      band: ticket.band,
      unitsLeft: null,
      soldOut: false,
      closed: false,
      alive: true,
    };
    this.#watchers.add(watcher);
    socket.on("close", () => this.#watchers.remove(watcher));
    socket.on("error", () => this.#watchers.remove(watcher));
    socket.on("pong", () => {
      watcher.alive = true;
    });
    if (ticket.status === "admitted")
      void this.#messages.admitted(watcher, ticket.admittedAt ?? Date.now(), ticket.expiresAt ?? Date.now());
    else if (this.#messages.roomClosed(roomId)) this.#messages.closed(watcher);
    else if (this.#messages.roomSoldOut(roomId)) this.#messages.soldOut(watcher);
    else this.#messages.position(watcher);
  }

  /** What the leader did in a tick, from the room event channel: push to the sockets this process holds. */
  onRoomEvent(event: RoomEvent): void {
    if (event.soldOut) {
      // At once, not at the next position round: the directory learns it here too, so joins and polls agree.
      this.#directory.markSoldOut(event.room);
      for (const [roomId, watchers] of this.#watchers.rooms()) {
        if (roomId !== event.room) continue;
        for (const watcher of watchers) if (watcher.status !== "admitted") this.#messages.soldOut(watcher);
      }
    }
    if (event.closed) {
      // At once too: every process judges closed by the room's endsAt, which the tick has just found passed.
      for (const watcher of this.#watchers.inRoom(event.room)) {
        if (watcher.status !== "admitted") this.#messages.closed(watcher);
      }
    }
    if (Array.isArray(event.admitted)) {
      const admittedAt = event.admittedAt ?? Date.now();
      for (const [ticketId, , expiresAt] of event.admitted) {
        for (const watcher of this.#watchers.ofTicket(ticketId)) {
          if (watcher.status !== "admitted") void this.#messages.admitted(watcher, admittedAt, expiresAt);
        }
      }
    }
    if (Array.isArray(event.ended)) {
      for (const [ticketId, reason] of event.ended) {
        for (const watcher of this.#watchers.ofTicket(ticketId)) {
          this.#messages.expired(watcher.socket, reason);
          watcher.socket.close(1000, reason);
          this.#watchers.remove(watcher);
        }
      }
    }
  }

  /** A socket that did not answer the last ping is gone (a closed laptop sends no FIN). */
  #ping() {
    for (const watcher of this.#watchers.all()) {
      if (!watcher.alive) {
        watcher.socket.terminate();
        this.#watchers.remove(watcher);
        continue;
      }
      watcher.alive = false;
      watcher.socket.ping();
    }
  }
}
