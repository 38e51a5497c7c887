// The checkout page's client for Floodgate's HTTP API. Every create call carries an Idempotency-Key (the
// caller's, else a fresh UUID) and its retries reuse it, so a retry after a lost answer never creates twice.
// Refusals throw FloodgateProblemError; a 403 waiting_room_required names the room to join (see
// waiting-room.ts), and once admitted, setAdmissionToken() makes the guarded calls carry the token. A network
// failure that outlasts the retries rejects with fetch's own error (a TypeError).

import { newIdempotencyKey } from "./idempotency-key.ts";
import { type ApiEndpoint, endpointOf, type FetchFunction, requestJson } from "./json-request.ts";
import type {
  AcceptedOperation,
  AcceptedOrder,
  OperationView,
  OrderRequest,
  OrderView,
  PaymentRequest,
  WalletView,
} from "./operation-types.ts";
import { WaitingRoom, type WaitingRoomOptions } from "./waiting-room.ts";

export interface FloodgateClientOptions {
  /** e.g. https://api.shop.example; a relative one ("/api") resolves against the page in a browser. */
  baseUrl: string;
  fetch?: FetchFunction;
  /** Retries of a network error, a 429 or a retryable 5xx (after Retry-After, at most 10 s). Default 2. */
  maxRetries?: number;
}

export type RoomOptions = Omit<WaitingRoomOptions, "baseUrl" | "roomId" | "fetch">;

// The server validates every id, but only an encoded one cannot turn a stray "/" or "?" into another route.
const encodedPath = (strings: TemplateStringsArray, ...params: string[]) =>
  strings.reduce((joined, part, i) => joined + encodeURIComponent(params[i - 1] ?? "") + part);

export class FloodgateClient {
  readonly #endpoint: ApiEndpoint;
  readonly #maxRetries: number;
  #admissionToken: string | null = null;

  constructor(options: FloodgateClientOptions) {
    this.#endpoint = endpointOf(options.baseUrl, options.fetch);
    this.#maxRetries = options.maxRetries ?? 2;
  }

  /** Guarded calls (pay, deposit, placeOrder, issueCoupon) send it as Admission-Token; null stops that. */
  setAdmissionToken(token: string | null): void {
    this.#admissionToken = token;
  }

  get admissionToken(): string | null {
    return this.#admissionToken;
  }

  pay(request: PaymentRequest): Promise<AcceptedOperation> {
    const { userId, amount, orderId, idempotencyKey } = request;
    return this.#create("/v1/payments", { userId, amount, orderId }, idempotencyKey);
  }

  deposit(
    userId: string,
    amount: number,
    options: { idempotencyKey?: string } = {},
  ): Promise<AcceptedOperation> {
    return this.#create(encodedPath`/v1/wallets/${userId}/deposits`, { amount }, options.idempotencyKey);
  }

  placeOrder(request: OrderRequest): Promise<AcceptedOrder> {
    const { userId, items, couponIssueId, idempotencyKey } = request;
    return this.#create<AcceptedOrder>("/v1/orders", { userId, items, couponIssueId }, idempotencyKey);
  }

  /** One coupon per user: the server dedupes by (coupon, user) whatever the key, answering 409 already_issued. */
  issueCoupon(couponId: string, userId: string): Promise<AcceptedOperation> {
    return this.#create(encodedPath`/v1/coupons/${couponId}/issues`, { userId }, undefined);
  }

  payment(id: string): Promise<OperationView> {
    return this.#read(encodedPath`/v1/payments/${id}`);
  }

  order(id: string): Promise<OrderView> {
    return this.#read(encodedPath`/v1/orders/${id}`);
  }

  wallet(userId: string): Promise<WalletView> {
    return this.#read(encodedPath`/v1/wallets/${userId}`);
  }

  /** The waiting room a waiting_room_required problem named, on this client's base URL and fetch. */
  room(roomId: string, options: RoomOptions = {}): WaitingRoom {
    return new WaitingRoom({
      ...options,
      baseUrl: this.#endpoint.baseUrl,
      roomId,
      fetch: this.#endpoint.fetch,
    });
  }

  async #create<T extends AcceptedOperation = AcceptedOperation>(
    target: string,
    body: Record<string, unknown>,
    idempotencyKey: string = newIdempotencyKey(),
  ): Promise<T> {
    const headers: Record<string, string> = { "idempotency-key": idempotencyKey };
    if (this.#admissionToken !== null) headers["admission-token"] = this.#admissionToken;
    const answer = await requestJson<Omit<T, "idempotencyKey" | "replayed">>(this.#endpoint, {
      method: "POST",
      path: target,
      body,
      headers,
      maxRetries: this.#maxRetries,
    });
    const replayed = answer.headers.get("idempotent-replayed") === "true";
    return { ...answer.body, idempotencyKey, replayed } as T;
  }

  async #read<T>(target: string): Promise<T> {
    const answer = await requestJson<T>(this.#endpoint, {
      method: "GET",
      path: target,
      maxRetries: this.#maxRetries,
    });
    return answer.body;
  }
}
