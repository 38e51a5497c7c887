// Orders paid at the shop's payment provider, mixed into each fault's load: a shopper places an order (one unit
// of the suite's product) and the shop's server reports the provider's charge for it (POST
// /v1/orders/:orderId/provider-payments, a reference unique in the run). Each call has its own Idempotency-Key
// and is retried with the SAME key and body as the shop clients retry (shop-client.ts's rules). Some orders are
// left unpaid (they expire), and a few charges are hostile on purpose: the same reference reported twice under
// two keys (one payment), a second reference for a paid order and a wrong amount (each refused and orphaned).
import { Agent, request } from "node:http";
import type { ProviderPaymentKey } from "../audits/provider-payment-audit.ts";
import type { BenchIdentity } from "../harness/bench-identity.ts";
import { benchUserId } from "../harness/payment-requests.ts";
import { ATTEMPT_TIMEOUT_MS, RETRY_WINDOW_MS } from "./shop-client.ts";

/** The provider the suite's charges name. */
export const BENCH_PROVIDER = "bench";

/** What the n-th order gets, by n modulo 20 (fixed, so each fault has some of each). */
export function chargePlan(
  n: number,
): "unpaid" | "exact" | "same-reference-twice" | "second-reference" | "wrong-amount" {
  const slot = n % 20;
  if (slot % 5 === 4) return "unpaid";
  if (slot === 1) return "same-reference-twice";
  if (slot === 2) return "second-reference";
  if (slot === 3) return "wrong-amount";
  return "exact";
}

interface Answer {
  status: number | "error" | "timeout";
  body: Record<string, unknown>;
  retryAfterSeconds?: number;
}

export interface ProviderOrderCounts {
  orders: number;
  ordersAccepted: number;
  /** Final answers to the order and charge calls that were not 2xx, by status. */
  refused: Record<string, number>;
  attempts: number;
}

export class ProviderOrderClient {
  readonly keys: ProviderPaymentKey[] = [];
  readonly orderIds: string[] = [];
  readonly counts: ProviderOrderCounts = { orders: 0, ordersAccepted: 0, refused: {}, attempts: 0 };
  readonly #agent: Agent;
  readonly #url: URL;
  readonly #identity: BenchIdentity;
  readonly #users: number;
  readonly #productId: string;
  readonly #prefix: string;
  #next = 0;
  #pacer: NodeJS.Timeout | null = null;
  readonly #running = new Set<Promise<void>>();

  constructor(options: {
    baseUrl: string;
    identity: BenchIdentity;
    users: number;
    productId: string;
    /** Starts every Idempotency-Key and reference of the phase: the audit selects the phase's charges by it. */
    referencePrefix: string;
  }) {
    this.#url = new URL(options.baseUrl);
    this.#agent = new Agent({ keepAlive: true, maxSockets: 32 });
    this.#identity = options.identity;
    this.#users = options.users;
    this.#productId = options.productId;
    this.#prefix = options.referencePrefix;
  }

  /** Places orders at `rate` per second (0: none) until stop(). */
  pace(rate: number): void {
    if (rate <= 0) return;
    const from = Date.now();
    let sent = 0;
    this.#pacer = setInterval(() => {
      const due = Math.floor(((Date.now() - from) / 1000) * rate);
      for (; sent < due; sent++) this.#track(this.#order(this.#next++));
    }, 10);
  }

  /** Stops placing orders; resolves when every order and charge has its final answer (retries included). */
  async stop(): Promise<void> {
    if (this.#pacer) clearInterval(this.#pacer);
    this.#pacer = null;
    while (this.#running.size > 0) await Promise.all([...this.#running]);
    this.#agent.destroy();
  }

  #track(work: Promise<void>): void {
    this.#running.add(work);
    void work.finally(() => this.#running.delete(work));
  }

  async #order(n: number): Promise<void> {
    this.counts.orders++;
    const userId = benchUserId(Math.floor(Math.random() * this.#users));
    const answer = await this.#call(
      "/v1/orders",
      `${this.#prefix}-order-${n}`,
      { userId, items: [{ productId: this.#productId, quantity: 1 }] },
      this.#identity.shopperHeaders(userId),
    );
    const orderId = answer.body.id;
    const amount = answer.body.amount;
    if (!isAccepted(answer) || typeof orderId !== "string" || typeof amount !== "number") return;
    this.counts.ordersAccepted++;
    this.orderIds.push(orderId);
    const reference = `${this.#prefix}-ref-${n}`;
    const plan = chargePlan(n);
    if (plan === "unpaid") return;
    const charges = [
      this.#charge(orderId, `${reference}-k1`, reference, plan === "wrong-amount" ? amount + 1 : amount),
    ];
    if (plan === "same-reference-twice")
      charges.push(this.#charge(orderId, `${reference}-k2`, reference, amount));
    if (plan === "second-reference")
      charges.push(this.#charge(orderId, `${reference}-k2`, `${reference}-b`, amount));
    await Promise.all(charges);
  }

  async #charge(orderId: string, idempotencyKey: string, reference: string, amount: number): Promise<void> {
    const key: ProviderPaymentKey = { reference, orderId, ids: [], accepted: false };
    this.keys.push(key);
    const answer = await this.#call(
      `/v1/orders/${orderId}/provider-payments`,
      idempotencyKey,
      { provider: BENCH_PROVIDER, reference, amount },
      this.#identity.serverHeaders(),
      (id) => {
        if (!key.ids.includes(id)) key.ids.push(id);
      },
    );
    key.accepted = isAccepted(answer);
  }

  /** One call, retried with the same key and body after no answer, a socket error, a 5xx, a 408 or a 429,
   * within the shop clients' window, honouring Retry-After; each 2xx's id is reported. */
  async #call(
    path: string,
    idempotencyKey: string,
    body: unknown,
    headers: Record<string, string>,
    onId: (id: string) => void = () => {},
  ): Promise<Answer> {
    const firstMs = Date.now();
    for (let attempt = 1; ; attempt++) {
      this.counts.attempts++;
      const answer = await this.#send(path, idempotencyKey, JSON.stringify(body), headers);
      if (typeof answer.body.id === "string" && isAccepted(answer)) onId(answer.body.id);
      const retryable =
        typeof answer.status !== "number" ||
        answer.status >= 500 ||
        answer.status === 429 ||
        answer.status === 408;
      // The checkout SDK's pacing, never sooner than Retry-After (shop-client.ts's retryDelayMs).
      const waitMs = Math.min(
        10_000,
        Math.max(
          (answer.retryAfterSeconds ?? 0) * 1000,
          Math.random() * Math.min(8000, 250 * 2 ** (attempt - 1)),
        ),
      );
      if (!retryable || Date.now() + waitMs - firstMs >= RETRY_WINDOW_MS) {
        if (!isAccepted(answer))
          this.counts.refused[answer.status] = (this.counts.refused[answer.status] ?? 0) + 1;
        return answer;
      }
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }

  #send(
    path: string,
    idempotencyKey: string,
    body: string,
    headers: Record<string, string>,
  ): Promise<Answer> {
    return new Promise((resolve) => {
      let settled = false;
      const done = (answer: Answer) => {
        if (settled) return;
        settled = true;
        resolve(answer);
      };
      const req = request(
        {
          host: this.#url.hostname,
          port: Number(this.#url.port),
          method: "POST",
          path,
          agent: this.#agent,
          headers: { "content-type": "application/json", "idempotency-key": idempotencyKey, ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          const retryAfter = Number(res.headers["retry-after"]);
          res.on("end", () =>
            done({
              status: res.statusCode ?? 0,
              body: parseBody(Buffer.concat(chunks)),
              ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
            }),
          );
          res.on("error", () => done({ status: "error", body: {} }));
        },
      );
      req.setTimeout(ATTEMPT_TIMEOUT_MS, () => {
        req.destroy();
        done({ status: "timeout", body: {} });
      });
      req.on("error", () => done({ status: "error", body: {} }));
      req.end(body);
    });
  }
}

const isAccepted = (answer: Answer) =>
  typeof answer.status === "number" && answer.status >= 200 && answer.status < 300;

function parseBody(body: Buffer): Record<string, unknown> {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
