// The waiting-room sockets this process holds, found by ticket (events name tickets) and by room (positions
// and heartbeats go a room at a time).
import type { AdmissionMetrics } from "@floodgate/metrics";
import type { WebSocket } from "ws";

export interface Watcher {
  socket: WebSocket;
  roomId: string;
  ticketId: string;
  userId: string;
  status: "early" | "waiting" | "admitted";
  position: number | null;
  /** Its lane's band once known waiting in a room with lanes (0 the default queue): its ETA's share. */
  band?: number;
  /** The etaSeconds last sent (a room with lanes: it moves with the other lanes' counts, not only its place). */
  etaSeconds?: number;
  /** The units left last sent (a room selling products), null before or for a room that sells none. */
  unitsLeft: number | null;
  /** Told its room is sold out (and not told since that it reopened). */
  soldOut: boolean;
  /** Told its room is closed (endsAt passed), and not told since that it reopened. */
  closed: boolean;
  /** Answered the last ping (a closed laptop sends no FIN). */
  alive: boolean;
}

export class SocketWatchers {
  readonly #byTicket = new Map<string, Set<Watcher>>();
  readonly #byRoom = new Map<string, Set<Watcher>>();
  readonly #metrics: AdmissionMetrics;

  constructor(metrics: AdmissionMetrics) {
    this.#metrics = metrics;
  }

  get open(): number {
    let count = 0;
    for (const watchers of this.#byTicket.values()) count += watchers.size;
    return count;
  }

  add(watcher: Watcher): void {
    const byTicket = this.#byTicket.get(watcher.ticketId) ?? new Set();
    this.#byTicket.set(watcher.ticketId, byTicket.add(watcher));
    const byRoom = this.#byRoom.get(watcher.roomId) ?? new Set();
    this.#byRoom.set(watcher.roomId, byRoom.add(watcher));
    this.#metrics.websockets.inc();
  }

  remove(watcher: Watcher): void {
    const byTicket = this.#byTicket.get(watcher.ticketId);
    if (!byTicket?.delete(watcher)) return;
    if (byTicket.size === 0) this.#byTicket.delete(watcher.ticketId);
    const byRoom = this.#byRoom.get(watcher.roomId);
    byRoom?.delete(watcher);
    if (byRoom?.size === 0) this.#byRoom.delete(watcher.roomId);
    this.#metrics.websockets.dec();
  }

  ofTicket(ticketId: string): Watcher[] {
    return [...(this.#byTicket.get(ticketId) ?? [])];
  }

  inRoom(roomId: string): Watcher[] {
    return [...(this.#byRoom.get(roomId) ?? [])];
  }

  /** [roomId, its watchers] for every room with a socket here. */
  rooms(): [string, Watcher[]][] {
    return [...this.#byRoom].map(([roomId, watchers]) => [roomId, [...watchers]]);
  }

  all(): Watcher[] {
    return [...this.#byTicket.values()].flatMap((watchers) => [...watchers]);
  }
}
