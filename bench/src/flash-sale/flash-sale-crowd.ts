// The crowd of a flash sale: every shopper joins the room (a paced autocannon load), then watches the place,
// over a WebSocket (kept open to the end, as a checkout page would) or by polling its ticket, and pays once,
// with the admission token, as soon as it is admitted. Every request is the shopper's own: its customer token in
// the Authorization header, or `?access_token=` on the WebSocket (a browser cannot set a socket's headers).
// What each one saw is kept for the summary. With --crowd-processes N, part 0 (the bench's process) sends
// every join and watches and pays for its share of the shoppers; the other parts do the same for theirs in
// processes of their own (crowd-parts.ts), and report what their shoppers saw at the end.
import type { BenchIdentity } from "../harness/bench-identity.ts";
import type { KeepAliveClient } from "../harness/keep-alive-client.ts";
import { LeanWebSocket } from "../harness/lean-websocket.ts";
import type { LoadOutcome } from "../harness/load-runner.ts";
import type { LoopLateness } from "../harness/loop-lateness.ts";
import { benchUserId } from "../harness/payment-requests.ts";
import {
  addSocketCounts,
  type CrowdPart,
  ONLY_PART,
  partOfShopper,
  type RemoteCrowdPart,
  type SocketCounts,
  shoppersOfPart,
} from "./crowd-parts.ts";
import { runJoinsOnThread } from "./join-thread.ts";
import type { JoinAnswer } from "./join-thread-entry.ts";
import { sendThroughShedding } from "./shed-retry.ts";

export interface Shopper {
  userId: string;
  watch: "websocket" | "polling";
  /** Epoch ms: the join request built (an upper bound on its send) and its answer received. */
  joinBuiltAt: number;
  joinAnsweredAt: number;
  joinStatus: number;
  /** Join requests sent: more than one when the intake shed the first ones (503 busy) and the shopper retried. */
  joinAttempts: number;
  ticketId: string | null;
  /**
   * Position messages (WebSocket), or answered polls (polling), the one that finds the admission included: at
   * the mix the first poll, 2 s after the join, mostly finds its shopper admitted already.
   */
  updates: number;
  /** Epoch ms the shopper's WebSocket was created and opened (null: never, or a polling shopper). */
  socketRequestedAt: number | null;
  socketOpenedAt: number | null;
  /** Server time of the admission, and when this shopper learnt of it. */
  admittedAt: number | null;
  noticedAt: number | null;
  paymentStatus: number | null;
  /** Payment requests sent: more than one when the intake shed the first ones and the shopper retried. */
  paymentAttempts: number;
  paymentId: string | null;
  paymentLatencyMs: number | null;
  /** A stock sale's shopper: its one-unit order's answer (null: none sent). */
  orderStatus: number | null;
  /** Epoch ms the shopper learnt its room sold out (a `sold_out` message, or a poll), while still waiting. */
  soldOutAt: number | null;
}

/** What a shopper's purchase came to: the payment's answer (and, in a stock sale, the order's before it). */
export interface PurchaseAnswer {
  status: number;
  body: string;
  latencyMs: number;
  orderStatus?: number;
  /** Payment requests sent (shed ones retried); one when absent. */
  attempts?: number;
}

/** Buys as the admitted shopper: today's sale pays once; a stock sale orders one unit and pays for it. */
export type Purchase = (shopper: Shopper, admissionToken: string) => Promise<PurchaseAnswer>;

export interface CrowdOptions {
  baseUrl: string;
  roomId: string;
  users: number;
  websockets: number;
  joinRate: number;
  connections: number;
  slices: number;
  pollIntervalMs: number;
  sessionMs: number;
  /** Idempotency keys are `${keyPrefix}-${userId}`: a payment retried by the bench cannot be taken twice. */
  keyPrefix: string;
  /** The shoppers' customer tokens (none with AUTH=off). */
  identity: BenchIdentity;
  /** Separate pools: a payment must not queue behind thousands of polls in the client (each shopper has a
   * connection of its own in a browser). */
  pollClient: KeepAliveClient;
  payClient: KeepAliveClient;
  /** What an admitted shopper does; by default it pays 100 with its admission token (a payments room). */
  purchase?: Purchase;
  /** Which part of the crowd this is (crowd-parts.ts): it watches and pays for shopper i when i % count is its
   * index. The whole crowd when absent. */
  part?: CrowdPart;
  /** On part 0: the other parts, each in a process of its own, by part index - 1. */
  otherParts?: readonly RemoteCrowdPart[];
}

/** Joins per shopper while the intake sheds load (503, Retry-After 1), a second apart, as a room page retries
 * (checkout-sdk's joinRoom): a shed join is a shopper who comes back, not one who leaves. */
export const JOIN_SHED_ATTEMPTS = 30;

/** WebSocket watchers spread evenly over the joining order (every k-th shopper), not bunched at the front. */
export function watchesOverSocket(index: number, users: number, websockets: number): boolean {
  return (
    websockets > 0 &&
    Math.floor(((index + 1) * websockets) / users) > Math.floor((index * websockets) / users)
  );
}

export class Crowd {
  readonly shoppers: Shopper[];
  /** soldOutFirst: sockets whose first message said sold out (opened after the moment: no place to tell).
   * closedEarly: sockets the server closed, with no error, before their shopper learned its fate (it polled on). */
  readonly sockets: SocketCounts = {
    opened: 0,
    failed: 0,
    closedEarly: 0,
    open: 0,
    peakOpen: 0,
    withPosition: 0,
    soldOutFirst: 0,
  };
  /** Resolves once every shopper has paid, or will not (its join or its place was refused or lost), this part's
   * and the other parts'. */
  readonly settled: Promise<void>;
  /** How late each other part's loop ran (gather()), for the tally. */
  readonly otherLoops: LoopLateness[] = [];
  readonly #options: CrowdOptions;
  readonly #part: CrowdPart;
  readonly #others: readonly RemoteCrowdPart[];
  /** Shoppers this part watches and pays for. */
  readonly #owned: number;
  readonly #held: LeanWebSocket[] = [];
  /** Set by close(): the sockets it ends are the run's end, not the server's. */
  #closing = false;
  #finished = 0;
  #settle!: () => void;
  #lastToken: string | null = null;

  constructor(options: CrowdOptions) {
    this.#options = options;
    this.#part = options.part ?? ONLY_PART;
    this.#others = options.otherParts ?? [];
    this.#owned = shoppersOfPart(options.users, this.#part);
    this.shoppers = Array.from({ length: options.users }, (_, i) => ({
      userId: benchUserId(i),
      watch: watchesOverSocket(i, options.users, options.websockets) ? "websocket" : "polling",
      joinBuiltAt: 0,
      joinAnsweredAt: 0,
      joinStatus: 0,
      joinAttempts: 1,
      ticketId: null,
      updates: 0,
      socketRequestedAt: null,
      socketOpenedAt: null,
      admittedAt: null,
      noticedAt: null,
      paymentStatus: null,
      paymentAttempts: 0,
      paymentId: null,
      paymentLatencyMs: null,
      orderStatus: null,
      soldOutAt: null,
    }));
    const own = new Promise<void>((resolve) => {
      this.#settle = resolve;
    });
    if (this.#owned === 0) this.#settle();
    this.settled = Promise.all([own, ...this.#others.map((other) => other.settled)]).then(() => {});
    // A part that fails while the shoppers still join rejects this before the sale waits on it: handled here, so
    // the bench stops through its own cleanup (runSale's finally) instead of an unhandled rejection; an await
    // still sees the failure.
    this.settled.catch(() => {});
  }

  /** The joins, paced over the options' rate (on a thread of their own: join-thread.ts), once every other part
   * listens; watching and paying go on after it returns. */
  async join(): Promise<LoadOutcome> {
    await Promise.all(this.#others.map((other) => other.ready));
    return runJoinsOnThread(
      {
        label: `${this.#options.users} shoppers joining`,
        url: this.#options.baseUrl,
        roomId: this.#options.roomId,
        userIds: this.shoppers.map((shopper) => shopper.userId),
        tokens: this.shoppers.map((shopper) => this.#options.identity.shopperToken(shopper.userId)),
        connections: this.#options.connections,
        rate: this.#options.joinRate,
        slices: this.#options.slices,
      },
      (answer) => {
        const owner = partOfShopper(answer.index, this.#part.count);
        if (owner === this.#part.index) this.acceptJoin(answer);
        else this.#others[owner - 1]!.forward(answer);
      },
    );
  }

  /** A join answer of one of this part's shoppers (from the join thread, or forwarded to a part's process). */
  acceptJoin(answer: JoinAnswer): void {
    const shopper = this.shoppers[answer.index]!;
    shopper.joinBuiltAt = answer.builtAt;
    this.#joined(shopper, answer.status, answer.body, answer.answeredAt);
  }

  /** What this part's own shoppers saw, for part 0 to merge (a part's process sends it at the end). */
  ownShoppers(): [number, Shopper][] {
    const owned: [number, Shopper][] = [];
    for (let i = this.#part.index; i < this.shoppers.length; i += this.#part.count) {
      owned.push([i, this.shoppers[i]!]);
    }
    return owned;
  }

  /** Brings what the other parts' shoppers saw into this crowd's shoppers and sockets (part 0, after the sale). */
  async gather(): Promise<void> {
    for (const other of this.#others) {
      const report = await other.report();
      for (const [index, seen] of report.shoppers) Object.assign(this.shoppers[index]!, seen);
      addSocketCounts(this.sockets, report.sockets);
      this.otherLoops.push(report.loopDelayMs);
    }
  }

  /** A real admission token the crowd was given (the probe presents it for someone else). */
  someToken(): string | null {
    return this.#lastToken;
  }

  /** Closes the sockets still held (their pages stayed open to the end). */
  close(): void {
    this.#closing = true;
    for (const socket of this.#held) socket.terminate();
    for (const other of this.#others) other.close();
  }

  #done() {
    this.#finished++;
    if (this.#finished === this.#owned) this.#settle();
  }

  #joined(shopper: Shopper, status: number, body: string, answeredAt: number) {
    shopper.joinAnsweredAt = answeredAt;
    shopper.joinStatus = status;
    if (status === 503 && shopper.joinAttempts < JOIN_SHED_ATTEMPTS) {
      setTimeout(() => void this.#joinAgain(shopper), 1000);
      return;
    }
    if (status !== 201 && status !== 200) return this.#done();
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

  /** A shed join sent again from this loop (the join thread's paced load is over or busy with others): its
   * answer is timed here and counts in the retries, not in the paced joins' rate and latency. */
  async #joinAgain(shopper: Shopper) {
    const { pollClient, roomId, identity } = this.#options;
    shopper.joinAttempts++;
    shopper.joinBuiltAt = Date.now();
    const answer = await pollClient
      .send(
        "POST",
        `/v1/rooms/${roomId}/tickets`,
        { userId: shopper.userId },
        identity.shopperHeaders(shopper.userId),
      )
      .catch(() => ({ status: -1, body: "" }));
    this.#joined(shopper, answer.status, answer.body, Date.now());
  }

  #admitted(shopper: Shopper, token: string, admittedAt: number) {
    // A shopper already told the room sold out has left (its page said so).
    if (shopper.noticedAt !== null || shopper.soldOutAt !== null) return;
    shopper.noticedAt = Date.now();
    shopper.admittedAt = admittedAt;
    this.#lastToken = token;
    void this.#pay(shopper, token);
  }

  async #pay(shopper: Shopper, token: string) {
    const purchase = this.#options.purchase ?? ((s: Shopper, t: string) => this.#payOnce(s, t));
    const answer = await purchase(shopper, token).catch(() => ({ status: -1, body: "", latencyMs: 0 }));
    shopper.paymentStatus = answer.status;
    shopper.paymentAttempts = "attempts" in answer && answer.attempts !== undefined ? answer.attempts : 1;
    shopper.paymentLatencyMs = answer.latencyMs;
    if ("orderStatus" in answer && answer.orderStatus !== undefined) shopper.orderStatus = answer.orderStatus;
    if (answer.status === 202) shopper.paymentId = (JSON.parse(answer.body) as { id: string }).id;
    this.#done();
  }

  /** Today's sale: one payment of 100, with the admission token (the room guards payments); a shed one is
   * sent again a second later, as a shopper's page retries it. */
  #payOnce(shopper: Shopper, token: string): Promise<PurchaseAnswer> {
    return sendThroughShedding(
      this.#options.payClient,
      "/v1/payments",
      { userId: shopper.userId, amount: 100 },
      {
        ...this.#options.identity.shopperHeaders(shopper.userId),
        "admission-token": token,
        "idempotency-key": `${this.#options.keyPrefix}-${shopper.userId}`,
      },
    );
  }

  /** A waiting shopper told its room has nothing left: it stops waiting (a page would say so). */
  #soldOut(shopper: Shopper) {
    if (shopper.noticedAt !== null || shopper.soldOutAt !== null) return;
    shopper.soldOutAt = Date.now();
    this.#done();
  }

  #watchSocket(shopper: Shopper) {
    const { baseUrl, roomId, identity } = this.#options;
    const token = identity.shopperToken(shopper.userId);
    const url =
      `${baseUrl.replace(/^http/, "ws")}/v1/rooms/${roomId}/tickets/${shopper.ticketId}/ws` +
      (token === null ? "" : `?access_token=${encodeURIComponent(token)}`);
    shopper.socketRequestedAt = Date.now();
    const socket = new LeanWebSocket(url);
    this.#held.push(socket);
    const sockets = this.sockets;
    let sawPosition = false;
    // The server told this shopper how its wait ended (admitted, sold out, expired): the socket's end changes
    // nothing after that.
    let told = false;
    let failed = false;
    // A page whose socket ends before it learns its fate keeps watching by polling, as the checkout SDK's live
    // watch does, whether the socket failed or the server closed it (1011 "try again" when the ticket could not
    // be read, a missed ping's terminate).
    let pollingNow = false;
    const pollOn = () => {
      if (pollingNow || told || this.#closing || shopper.noticedAt !== null) return;
      pollingNow = true;
      this.#watchByPolling(shopper);
    };
    socket.on("open", () => {
      shopper.socketOpenedAt = Date.now();
      sockets.opened++;
      sockets.open++;
      sockets.peakOpen = Math.max(sockets.peakOpen, sockets.open);
    });
    socket.on("close", () => {
      if (shopper.socketOpenedAt !== null) sockets.open--;
      if (!failed && !told && !this.#closing && shopper.noticedAt === null) sockets.closedEarly++;
      pollOn();
    });
    socket.on("error", () => {
      sockets.failed++;
      failed = true;
      pollOn();
    });
    socket.on("message", (text) => {
      const message = JSON.parse(text) as {
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
        told = true;
        this.#admitted(shopper, message.admissionToken!, Date.parse(message.admittedAt!));
      } else if (message.type === "sold_out") {
        told = true;
        if (!sawPosition && shopper.soldOutAt === null) sockets.soldOutFirst++;
        this.#soldOut(shopper);
      } else if (message.type === "expired" && shopper.noticedAt === null) {
        told = true;
        this.#done();
      }
    });
  }

  #watchByPolling(shopper: Shopper) {
    const { pollClient: client, roomId, pollIntervalMs, sessionMs, identity } = this.#options;
    const poll = async () => {
      const answer = await client
        .send(
          "GET",
          `/v1/rooms/${roomId}/tickets/${shopper.ticketId}`,
          undefined,
          identity.shopperHeaders(shopper.userId),
        )
        .catch(() => null);
      const ticket = answer?.status === 200 ? (JSON.parse(answer.body) as Record<string, string>) : null;
      if (answer) shopper.updates++;
      if (ticket?.status === "admitted") {
        this.#admitted(shopper, ticket.admissionToken!, Date.parse(ticket.expiresAt!) - sessionMs);
      } else if (ticket?.status === "sold_out") {
        this.#soldOut(shopper);
      } else if (ticket && ticket.status !== "waiting") {
        this.#done(); // expired or abandoned: it will not pay
      } else {
        setTimeout(() => void poll(), pollIntervalMs);
      }
    };
    setTimeout(() => void poll(), pollIntervalMs);
  }
}
