// What a waiting-room socket is sent:
//   {type: "position", position, etaSeconds, unitsLeft?}        its place (at most once a second), and the
//                                                               units left of a room selling products
//   {type: "admitted", admissionToken, expiresAt, admittedAt}   the admission, with the token its pass holds
//                                                               once granted (pass-grants.ts)
//   {type: "sold_out"}                                          its room has nothing left to sell (the socket
//                                                               stays: a restock reopens the room, and
//                                                               positions follow again)
//   {type: "closed"}                                            its room's endsAt has passed (the socket stays:
//                                                               a later endsAt reopens the room)
//   {type: "expired", reason}                                   its session ended, it was abandoned or revoked
import { isRoomClosed } from "@floodgate/admission";
import type { AdmissionMetrics } from "@floodgate/metrics";
import type { WebSocket } from "ws";
import type { PassGrants } from "./pass-grants.ts";
import type { RoomDirectory } from "./room-directory.ts";
import type { Watcher } from "./socket-watchers.ts";
import { waitingEta } from "./ticket-view.ts";

export class TicketMessages {
  readonly #directory: RoomDirectory;
  readonly #metrics: AdmissionMetrics;
  readonly #passes: PassGrants;

  constructor(deps: {
    directory: RoomDirectory;
    metrics: AdmissionMetrics;
    passes: PassGrants;
  }) {
    this.#directory = deps.directory;
    this.#metrics = deps.metrics;
    this.#passes = deps.passes;
  }

  send(socket: WebSocket, message: object): boolean {
    if (socket.readyState !== socket.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  position(watcher: Watcher): void {
    const position = watcher.position ?? 0;
    const message: { type: "position"; position: number; etaSeconds: number; unitsLeft?: number } = {
      type: "position",
      position,
      etaSeconds: this.eta(watcher, position),
    };
    watcher.etaSeconds = message.etaSeconds;
    const unitsLeft = this.unitsLeft(watcher.roomId);
    if (unitsLeft !== null) message.unitsLeft = unitsLeft;
    watcher.unitsLeft = unitsLeft;
    if (this.send(watcher.socket, message)) this.#metrics.pushes.inc({ type: "position" });
  }

  /** The ETA of a waiting socket's place, as a poll would answer it now. */
  eta(watcher: Watcher, position: number): number {
    return waitingEta(position, this.#directory.room(watcher.roomId), watcher.band ?? 0);
  }

  /** Tells a waiting socket its room is sold out, once (until the room reopens). */
  soldOut(watcher: Watcher): void {
    if (watcher.soldOut) return;
    watcher.soldOut = true;
    if (this.send(watcher.socket, { type: "sold_out" })) this.#metrics.pushes.inc({ type: "sold_out" });
  }

  /** Whether this process last read the room as sold out. */
  roomSoldOut(roomId: string): boolean {
    return this.#directory.room(roomId)?.stats.soldOut ?? false;
  }

  /** Tells a waiting socket its room is closed, once (until the room reopens). */
  closed(watcher: Watcher): void {
    if (watcher.closed) return;
    watcher.closed = true;
    if (this.send(watcher.socket, { type: "closed" })) this.#metrics.pushes.inc({ type: "closed" });
  }

  /** Whether the room's endsAt, as this process last read the room, has passed. */
  roomClosed(roomId: string): boolean {
    const room = this.#directory.room(roomId);
    return room !== undefined && isRoomClosed(room.definition);
  }

  /** The units left of a room selling products, as this process last read them; null for any other room. */
  unitsLeft(roomId: string): number | null {
    return this.#directory.room(roomId)?.stats.unitsLeft ?? null;
  }

  /**
   * Grants the ticket's pass, then sends the token. When the grant fails (Redis away) or finds the ticket
   * revoked, nothing is sent and the watcher keeps its status: the next position round reads the ticket again
   * and either retries or tells the socket how it ended.
   */
  async admitted(watcher: Watcher, admittedAt: number, expiresAt: number): Promise<void> {
    const before = watcher.status;
    watcher.status = "admitted"; // a second event or round meanwhile sends nothing twice
    const { roomId, ticketId, userId } = watcher;
    const token = await this.#passes
      .grant({ roomId, ticketId, userId, admittedAt, expiresAt })
      .catch(() => null);
    if (token === null) {
      // Not "admitted": the rounds skip admitted watchers, and this one must be read again.
      watcher.status = before === "admitted" ? "waiting" : before;
      return;
    }
    watcher.position = null;
    const message = {
      type: "admitted",
      admissionToken: token,
      expiresAt: new Date(expiresAt).toISOString(),
      admittedAt: new Date(admittedAt).toISOString(),
    };
    if (this.send(watcher.socket, message)) this.#metrics.pushes.inc({ type: "admitted" });
  }

  expired(socket: WebSocket, reason: string): void {
    if (this.send(socket, { type: "expired", reason })) this.#metrics.pushes.inc({ type: "expired" });
  }
}
