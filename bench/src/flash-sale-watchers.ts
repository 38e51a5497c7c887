// What each shopper does once its join is answered: watch its place over a WebSocket (kept open to the end, as
// a checkout page would) or by polling its ticket, and pay once, with the admission token, as soon as it is
// admitted. This runs on a worker thread of its own (flash-sale-watcher-thread.ts): thousands of client
// sockets on the event loop that also paces and times the joins would add their own delays to the join
// latencies, which no shopper's browser has.
import WebSocket from "ws";
import { KeepAliveClient } from "./keep-alive-client.ts";
import { benchUserId } from "./payment-requests.ts";

export interface Shopper {
  userId: string;
  watch: "websocket" | "polling";
  /** Epoch ms: the join request built (an upper bound on its send) and its answer received. */
  joinBuiltAt: number;
  joinAnsweredAt: number;
  joinStatus: number;
  ticketId: string | null;
  /** Position messages (WebSocket) or polls (polling) while waiting. */
  updates: number;
  /** Epoch ms the shopper's WebSocket opened (null: never, or a polling shopper). */
  socketOpenedAt: number | null;
  /** Server time of the admission, and when this shopper learnt of it. */
  admittedAt: number | null;
  noticedAt: number | null;
  paymentStatus: number | null;
  paymentId: string | null;
  paymentLatencyMs: number | null;
}

/** What the watching thread fills in (the joining thread keeps the join fields). */
export const WATCH_FIELDS = [
  "ticketId",
  "updates",
  "socketOpenedAt",
  "admittedAt",
  "noticedAt",
  "paymentStatus",
  "paymentId",
  "paymentLatencyMs",
] as const satisfies readonly (keyof Shopper)[];

export interface SocketCounts {
  opened: number;
  failed: number;
  open: number;
  peakOpen: number;
  withPosition: number;
}

export interface WatcherOptions {
  baseUrl: string;
  roomId: string;
  users: number;
  websockets: number;
  /** Keep-alive connections of the polling pool and of the paying pool (separate: a payment must not queue
   * behind thousands of polls in the client; each shopper has a connection of its own in a browser). */
  connections: number;
  pollIntervalMs: number;
  sessionMs: number;
  /** Idempotency keys are `${keyPrefix}-${userId}`: a payment retried by the bench cannot be taken twice. */
  keyPrefix: string;
}

/** WebSocket watchers spread evenly over the joining order (every k-th shopper), not bunched at the front. */
export function watchesOverSocket(index: number, users: number, websockets: number): boolean {
  return (
    websockets > 0 &&
    Math.floor(((index + 1) * websockets) / users) > Math.floor((index * websockets) / users)
  );
}

export function newShoppers(users: number, websockets: number): Shopper[] {
  return Array.from({ length: users }, (_, i) => ({
    userId: benchUserId(i),
    watch: watchesOverSocket(i, users, websockets) ? "websocket" : "polling",
    joinBuiltAt: 0,
    joinAnsweredAt: 0,
    joinStatus: 0,
    ticketId: null,
    updates: 0,
    socketOpenedAt: null,
    admittedAt: null,
    noticedAt: null,
    paymentStatus: null,
    paymentId: null,
    paymentLatencyMs: null,
  }));
}

export class ShopperWatchers {
  readonly shoppers: Shopper[];
  readonly sockets: SocketCounts = { opened: 0, failed: 0, open: 0, peakOpen: 0, withPosition: 0 };
  readonly #options: WatcherOptions;
  readonly #held: WebSocket[] = [];
  readonly #pollClient: KeepAliveClient;
  readonly #payClient: KeepAliveClient;
  readonly #onToken: (token: string) => void;
  readonly #onSettled: () => void;
  #finished = 0;

  constructor(options: WatcherOptions, hooks: { onToken(token: string): void; onSettled(): void }) {
    this.#options = options;
    this.shoppers = newShoppers(options.users, options.websockets);
    this.#pollClient = new KeepAliveClient(options.baseUrl, options.connections);
    this.#payClient = new KeepAliveClient(options.baseUrl, options.connections);
    this.#onToken = hooks.onToken;
    this.#onSettled = hooks.onSettled;
  }

  /** The answer to shopper `index`'s join: from here it watches, or is done (its join was refused). */
  joined(index: number, status: number, body: string): void {
    const shopper = this.shoppers[index]!;
    if (status !== 201 && status !== 200) {
      this.#done();
      return;
    }
    const ticket = JSON.parse(body) as {
      ticketId: string;
      status: string;
      admissionToken?: string;
      expiresAt?: string;
    };
    shopper.ticketId = ticket.ticketId;
    if (ticket.status === "admitted") {
      this.#admitted(
        shopper,
        ticket.admissionToken!,
        Date.parse(ticket.expiresAt!) - this.#options.sessionMs,
      );
    } else if (shopper.watch === "websocket") {
      this.#watchSocket(shopper);
    } else {
      this.#watchByPolling(shopper);
    }
  }

  /** Closes the sockets still held (their pages stayed open to the end) and the client pools. */
  close(): void {
    for (const socket of this.#held) socket.terminate();
    this.#pollClient.close();
    this.#payClient.close();
  }

  #done() {
    this.#finished++;
    if (this.#finished === this.#options.users) this.#onSettled();
  }

  #admitted(shopper: Shopper, token: string, admittedAt: number) {
    if (shopper.noticedAt !== null) return;
    shopper.noticedAt = Date.now();
    shopper.admittedAt = admittedAt;
    this.#onToken(token);
    void this.#pay(shopper, token);
  }

  async #pay(shopper: Shopper, token: string) {
    const answer = await this.#payClient
      .send(
        "POST",
        "/v1/payments",
        { userId: shopper.userId, amount: 100 },
        { "admission-token": token, "idempotency-key": `${this.#options.keyPrefix}-${shopper.userId}` },
      )
      .catch(() => ({ status: -1, body: "", latencyMs: 0 }));
    shopper.paymentStatus = answer.status;
    shopper.paymentLatencyMs = answer.latencyMs;
    if (answer.status === 202) shopper.paymentId = (JSON.parse(answer.body) as { id: string }).id;
    this.#done();
  }

  #watchSocket(shopper: Shopper) {
    const { baseUrl, roomId } = this.#options;
    const url = `${baseUrl.replace(/^http/, "ws")}/v1/rooms/${roomId}/tickets/${shopper.ticketId}/ws`;
    const socket = new WebSocket(url, { perMessageDeflate: false });
    this.#held.push(socket);
    const sockets = this.sockets;
    let sawPosition = false;
    socket.on("open", () => {
      shopper.socketOpenedAt = Date.now();
      sockets.opened++;
      sockets.open++;
      sockets.peakOpen = Math.max(sockets.peakOpen, sockets.open);
    });
    socket.on("close", () => sockets.open--);
    socket.on("error", () => {
      sockets.failed++;
      if (shopper.noticedAt === null) this.#watchByPolling(shopper); // as a checkout page falls back
    });
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as {
        type: string;
        admissionToken?: string;
        admittedAt?: string;
      };
      if (message.type === "position") {
        shopper.updates++;
        if (!sawPosition) {
          sawPosition = true;
          sockets.withPosition++;
        }
      } else if (message.type === "admitted") {
        this.#admitted(shopper, message.admissionToken!, Date.parse(message.admittedAt!));
      } else if (message.type === "expired" && shopper.noticedAt === null) {
        this.#done();
      }
    });
  }

  #watchByPolling(shopper: Shopper) {
    const { roomId, pollIntervalMs, sessionMs } = this.#options;
    const poll = async () => {
      const answer = await this.#pollClient
        .send("GET", `/v1/rooms/${roomId}/tickets/${shopper.ticketId}`)
        .catch(() => null);
      const ticket = answer?.status === 200 ? (JSON.parse(answer.body) as Record<string, string>) : null;
      if (ticket?.status === "admitted") {
        this.#admitted(shopper, ticket.admissionToken!, Date.parse(ticket.expiresAt!) - sessionMs);
      } else if (ticket && ticket.status !== "waiting") {
        this.#done(); // expired or abandoned: it will not pay
      } else {
        shopper.updates++;
        setTimeout(() => void poll(), pollIntervalMs);
      }
    };
    setTimeout(() => void poll(), pollIntervalMs);
  }
}
