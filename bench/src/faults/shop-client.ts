// The load of the fault suite: a shop's clients paying at a steady rate, each payment with its own
// Idempotency-Key, retried with the SAME key (and body) after no answer, a socket error, a 5xx, a 429 or a 503,
// honouring Retry-After, a bounded number of times: what a real shop client (the checkout SDK) does. Every
// attempt and answer is recorded per key, and per second of the phase, for the audit and the recovery time.
import { Agent, request } from "node:http";
import type { BenchIdentity } from "../harness/bench-identity.ts";
import { percentile } from "../harness/latency-summary.ts";
import { benchUserId } from "../harness/payment-requests.ts";
import { emptyBin, type SecondBin } from "./recovery-time.ts";

/** Per attempt: a client gives up on an answer after this long (and retries). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** A key is retried until this long after its first attempt (a shop's server keeps trying a payment it owes;
 * the checkout SDK in a browser gives up after 4 retries, which would measure the client's patience). */
export const RETRY_WINDOW_MS = 60_000;
/** Longest wait between attempts, whatever Retry-After says. */
const MAX_RETRY_WAIT_MS = 10_000;

export interface KeyRecord {
  /** The payment's amount, unique in the run: a row on a shard names its key by it. */
  seq: number;
  userId: string;
  /** When the first attempt was sent (epoch ms). */
  firstMs: number;
  attempts: number;
  /** Operation ids from the 2xx answers (one, unless an idempotency record was forgotten). */
  ids: string[];
  /** The last answer: an HTTP status, or "error"/"timeout"; null while in flight. */
  final: number | "error" | "timeout" | null;
  accepted: boolean;
  /** When the first 2xx arrived (epoch ms); null if none did. */
  acceptedMs: number | null;
}

export interface ShopClientCounts {
  keys: number;
  attempts: number;
  statuses: Record<string, number>;
  /** 429 and 503 answers, and how many of them carried Retry-After. */
  refusals: number;
  refusalsWithRetryAfter: number;
  timeouts: number;
  socketErrors: number;
}

export class ShopClient {
  readonly records: KeyRecord[] = [];
  readonly bins: SecondBin[] = [];
  /** Response times (ms) of the answers received in each second, as `bins` counts them. */
  readonly #answerMs: number[][] = [];
  /** Keys answered 2xx so far. */
  acceptedKeys = 0;
  readonly counts: ShopClientCounts = {
    keys: 0,
    attempts: 0,
    statuses: {},
    refusals: 0,
    refusalsWithRetryAfter: 0,
    timeouts: 0,
    socketErrors: 0,
  };
  readonly #agent: Agent;
  readonly #host: string;
  readonly #port: number;
  readonly #identity: BenchIdentity;
  readonly #users: number;
  readonly #keyPrefix: string;
  readonly #startedMs = Date.now();
  #nextSeq: number;
  #inFlight = 0;
  #pacer: NodeJS.Timeout | null = null;
  #idle: (() => void) | null = null;

  constructor(options: {
    baseUrl: string;
    identity: BenchIdentity;
    users: number;
    keyPrefix: string;
    firstSeq: number;
    connections: number;
  }) {
    const url = new URL(options.baseUrl);
    this.#host = url.hostname;
    this.#port = Number(url.port);
    this.#agent = new Agent({ keepAlive: true, maxSockets: options.connections });
    this.#identity = options.identity;
    this.#users = options.users;
    this.#keyPrefix = options.keyPrefix;
    this.#nextSeq = options.firstSeq;
  }

  get startedMs(): number {
    return this.#startedMs;
  }

  get nextSeq(): number {
    return this.#nextSeq;
  }

  /** The second of the phase `ms` (epoch) falls in. */
  second(ms: number): number {
    return Math.floor((ms - this.#startedMs) / 1000);
  }

  /** Sends new payments at `rate` per second until pace() is called again or stop(); paced every 10 ms. */
  pace(rate: number): void {
    if (this.#pacer) clearInterval(this.#pacer);
    const from = Date.now();
    let sent = 0;
    this.#pacer = setInterval(() => {
      const due = Math.floor(((Date.now() - from) / 1000) * rate);
      for (; sent < due; sent++) this.#newPayment();
    }, 10);
  }

  /** Stops sending new payments; resolves when every key has its final answer (retries included). */
  async stop(): Promise<void> {
    if (this.#pacer) clearInterval(this.#pacer);
    this.#pacer = null;
    if (this.#inFlight > 0) {
      await new Promise<void>((resolve) => {
        this.#idle = resolve;
      });
    }
    this.#agent.destroy();
  }

  #bin(ms = Date.now()): SecondBin {
    const second = this.second(ms);
    while (this.bins.length <= second) this.bins.push(emptyBin());
    return this.bins[second]!;
  }

  /** p50 and p99 of the answers received in `second` (any status; no answer, no time); null when none came. */
  latencyAt(second: number): { p50Ms: number | null; p99Ms: number | null } {
    const sorted = Float64Array.from(this.#answerMs[second] ?? []).sort();
    const at = (fraction: number) =>
      sorted.length === 0 ? null : Math.round(percentile(sorted, fraction) * 10) / 10;
    return { p50Ms: at(0.5), p99Ms: at(0.99) };
  }

  #newPayment(): void {
    const seq = this.#nextSeq++;
    const record: KeyRecord = {
      seq,
      userId: benchUserId(Math.floor(Math.random() * this.#users)),
      firstMs: Date.now(),
      attempts: 0,
      ids: [],
      final: null,
      accepted: false,
      acceptedMs: null,
    };
    this.records.push(record);
    this.counts.keys++;
    this.#bin().offered++;
    this.#inFlight++;
    this.#attempt(record);
  }

  #attempt(record: KeyRecord): void {
    record.attempts++;
    this.counts.attempts++;
    const body = JSON.stringify({ userId: record.userId, amount: record.seq });
    const sentMs = Date.now();
    // One outcome per attempt, whichever comes first: the whole answer, a socket error, or the timeout.
    let settled = false;
    const outcome = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    const req = request(
      {
        host: this.#host,
        port: this.#port,
        method: "POST",
        path: "/v1/payments",
        agent: this.#agent,
        headers: {
          "content-type": "application/json",
          "idempotency-key": `${this.#keyPrefix}-${record.seq}`,
          ...this.#identity.shopperHeaders(record.userId),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          outcome(() =>
            this.#answered(
              record,
              res.statusCode ?? 0,
              res.headers["retry-after"],
              Buffer.concat(chunks),
              sentMs,
            ),
          ),
        );
        res.on("error", () => outcome(() => this.#failed(record, "error")));
      },
    );
    req.setTimeout(ATTEMPT_TIMEOUT_MS, () =>
      outcome(() => {
        req.destroy();
        this.#failed(record, "timeout");
      }),
    );
    req.on("error", () => outcome(() => this.#failed(record, "error")));
    req.end(body);
  }

  #answered(
    record: KeyRecord,
    status: number,
    retryAfter: string | undefined,
    body: Buffer,
    sentMs: number,
  ): void {
    const now = Date.now();
    const bin = this.#bin(now);
    const second = this.second(now);
    while (this.#answerMs.length <= second) this.#answerMs.push([]);
    this.#answerMs[second]!.push(now - sentMs);
    this.counts.statuses[status] = (this.counts.statuses[status] ?? 0) + 1;
    if (status >= 500) bin.fiveXx++;
    if (status === 429 || status === 503) {
      this.counts.refusals++;
      if (retryAfter !== undefined) this.counts.refusalsWithRetryAfter++;
    }
    if (status >= 200 && status < 300) {
      bin.accepted++;
      const id = parseId(body);
      if (id !== null && !record.ids.includes(id)) record.ids.push(id);
      if (!record.accepted) {
        record.accepted = true;
        record.acceptedMs = Date.now();
        this.acceptedKeys++;
      }
      this.#settle(record, status);
      return;
    }
    const retryable = status >= 500 || status === 429 || status === 408;
    const seconds = Number(retryAfter);
    const waitMs = retryDelayMs(record.attempts, Number.isFinite(seconds) ? seconds : 0);
    if (!retryable || !this.#mayRetry(record, waitMs)) {
      this.#settle(record, status);
      return;
    }
    setTimeout(() => this.#attempt(record), waitMs);
  }

  #failed(record: KeyRecord, why: "error" | "timeout"): void {
    const bin = this.#bin();
    if (why === "timeout") {
      this.counts.timeouts++;
      bin.timeouts++;
    } else {
      this.counts.socketErrors++;
      bin.socketErrors++;
    }
    const waitMs = retryDelayMs(record.attempts);
    if (!this.#mayRetry(record, waitMs)) {
      this.#settle(record, why);
      return;
    }
    setTimeout(() => this.#attempt(record), waitMs);
  }

  #mayRetry(record: KeyRecord, waitMs: number): boolean {
    return Date.now() + waitMs - record.firstMs < RETRY_WINDOW_MS;
  }

  #settle(record: KeyRecord, final: KeyRecord["final"]): void {
    record.final = final;
    this.#inFlight--;
    if (this.#inFlight === 0 && this.#pacer === null) this.#idle?.();
  }
}

/** The checkout SDK's pacing (packages/checkout-sdk/src/backoff.ts): full jitter over 250 ms doubling up to 8 s,
 * never sooner than Retry-After, so the clients one fault refused do not all come back in step. */
const retryDelayMs = (attempts: number, retryAfterSeconds = 0): number =>
  Math.min(
    MAX_RETRY_WAIT_MS,
    Math.max(retryAfterSeconds * 1000, Math.random() * Math.min(8000, 250 * 2 ** (attempts - 1))),
  );

function parseId(body: Buffer): string | null {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { id?: unknown };
    return typeof parsed.id === "string" ? parsed.id : null;
  } catch {
    return null;
  }
}
