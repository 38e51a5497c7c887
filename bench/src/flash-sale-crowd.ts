// The crowd of a flash sale: every shopper joins the room (a paced autocannon load on this thread), then
// watches its place and pays once admitted (flash-sale-watchers.ts, on a worker thread: see there why). What
// each one saw is gathered back here for the summary.
import { Worker } from "node:worker_threads";
import type { Request } from "autocannon";
import {
  newShoppers,
  type Shopper,
  type SocketCounts,
  WATCH_FIELDS,
  type WatcherOptions,
} from "./flash-sale-watchers.ts";
import { type LoadOutcome, runLoad } from "./load-runner.ts";

export type { Shopper } from "./flash-sale-watchers.ts";

export interface CrowdOptions extends WatcherOptions {
  joinRate: number;
  slices: number;
}

const REPLY_TIMEOUT_MS = 30_000;

export class Crowd {
  readonly shoppers: Shopper[];
  readonly sockets: SocketCounts = { opened: 0, failed: 0, open: 0, peakOpen: 0, withPosition: 0 };
  /** Resolves once every shopper has paid, or will not (its join or its place was refused or lost). */
  readonly settled: Promise<void>;
  readonly #options: CrowdOptions;
  readonly #worker: Worker;
  readonly #replies = new Map<string, (message: Record<string, unknown>) => void>();
  #lastToken: string | null = null;
  #closed = false;

  constructor(options: CrowdOptions) {
    this.#options = options;
    this.shoppers = newShoppers(options.users, options.websockets);
    const watcherOptions: WatcherOptions = {
      baseUrl: options.baseUrl,
      roomId: options.roomId,
      users: options.users,
      websockets: options.websockets,
      connections: options.connections,
      pollIntervalMs: options.pollIntervalMs,
      sessionMs: options.sessionMs,
      keyPrefix: options.keyPrefix,
    };
    this.#worker = new Worker(new URL("./flash-sale-watcher-thread.ts", import.meta.url), {
      workerData: watcherOptions,
    });
    let settle!: () => void;
    this.settled = new Promise((resolve) => {
      settle = resolve;
    });
    this.#worker.on("message", (message: Record<string, unknown>) => {
      if (message.type === "token") this.#lastToken = message.token as string;
      else if (message.type === "settled") settle();
      else this.#replies.get(message.type as string)?.(message);
    });
    this.#worker.on("error", (error) => {
      // Without its watchers the run cannot settle: say so, and let the scenario's bound end the wait.
      process.stderr.write(`[bench] the shoppers' watcher thread failed: ${error.message}\n`);
    });
  }

  /** The joins, paced over the options' rate; watching and paying go on (on the worker) after it returns. */
  join(): Promise<LoadOutcome> {
    const { roomId, users } = this.#options;
    let next = 0;
    const request: Request = {
      method: "POST",
      path: `/v1/rooms/${roomId}/tickets`,
      setupRequest: (built, context) => {
        // Modulo: autocannon may build one request per connection more than it sends.
        const index = next++ % users;
        context.index = index;
        this.shoppers[index]!.joinBuiltAt = Date.now();
        return {
          ...built,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ userId: this.shoppers[index]!.userId }),
        };
      },
      onResponse: (status, body, context) => {
        const index = Number(context.index);
        const shopper = this.shoppers[index]!;
        shopper.joinAnsweredAt = Date.now();
        shopper.joinStatus = status;
        this.#worker.postMessage({ type: "joined", index, status, body });
      },
    };
    return runLoad({
      label: `${users} shoppers joining`,
      url: this.#options.baseUrl,
      connections: this.#options.connections,
      rate: this.#options.joinRate,
      slices: this.#options.slices,
      amount: users,
      request,
    });
  }

  /** Brings what the watchers saw (tickets, places, admissions, payments, socket counts) into `shoppers`. */
  async gather(): Promise<void> {
    const reply = await this.#ask("snapshot");
    const watched = reply.shoppers as Partial<Shopper>[];
    watched.forEach((fields, i) => {
      const shopper = this.shoppers[i]!;
      for (const field of WATCH_FIELDS)
        (shopper as unknown as Record<string, unknown>)[field] = fields[field];
    });
    Object.assign(this.sockets, reply.sockets as SocketCounts);
  }

  /** A real admission token the crowd was given (the probe presents it for someone else). */
  someToken(): string | null {
    return this.#lastToken;
  }

  /** Closes the sockets still held (their pages stayed open to the end), then the watcher thread. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#ask("close").catch(() => undefined);
    await this.#worker.terminate();
  }

  #ask(type: "snapshot" | "close"): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#replies.delete(type === "close" ? "closed" : type);
        reject(new Error(`the watcher thread did not answer ${type} within ${REPLY_TIMEOUT_MS} ms`));
      }, REPLY_TIMEOUT_MS);
      this.#replies.set(type === "close" ? "closed" : type, (message) => {
        clearTimeout(timer);
        this.#replies.delete(type === "close" ? "closed" : type);
        resolve(message);
      });
      this.#worker.postMessage({ type });
    });
  }
}
