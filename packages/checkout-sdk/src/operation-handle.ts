// One logical operation (a payment, an order...) from the click to its final status. It starts at once and
// keeps ONE Idempotency-Key for its whole life: every retry and every resubmission after a waiting room carries
// it, so however often the request is sent, the server creates the operation once. Then it follows the status
// over the operation's WebSocket (polling when that fails) until it is final for this call. The call's `signal`
// ends all of it at once: the request, a waiting room, the socket and the polling.
import { apiRequest } from "./api-request.ts";
import type { CheckoutContext } from "./checkout-context.ts";
import { createListeners } from "./event-listeners.ts";
import { type FloodgateError, problemError } from "./floodgate-errors.ts";
import { newIdempotencyKey } from "./idempotency-key.ts";
import { type LiveSource, watchLive } from "./live-watch.ts";
import { type RoomEvents, waitInRoom } from "./waiting-room-queue.ts";

export interface ResultOptions {
  /** Stops waiting (result() rejects with its reason); the operation itself goes on on the server. */
  signal?: AbortSignal;
  /** Rejects result() with a TimeoutError DOMException after this long. */
  timeoutMs?: number;
}

export type OperationEvents<V> = RoomEvents & { status: V };

export interface Operation<V> {
  readonly idempotencyKey: string;
  /** The server's id, once it answered 202. */
  readonly id: string | undefined;
  /** "submitting", "waiting" while in a waiting room, then the server's status as last seen; "refused" when
   * the request itself was refused (result() rejects with why); "aborted" once the call's signal aborted. */
  status(): string;
  /** The final view; rejects with a FloodgateError (its typed subclasses) on a refusal or a final failure. */
  result(options?: ResultOptions): Promise<V>;
  /** Returns a function that removes the listener. */
  on<E extends keyof OperationEvents<V>>(
    event: E,
    listener: (value: OperationEvents<V>[E]) => void,
  ): () => void;
}

export interface OperationSpec {
  /** The POST that creates it, and the GET route (before the id) that reads it. */
  path: string;
  body?: Record<string, unknown>;
  readPath: string;
  /** Its route class, the one a waiting room guards (payments, deposits, coupon-issues, orders). */
  guard: string;
  /** Whose place to take in a waiting room; undefined: the token's own user (a shopper). */
  userId: string | undefined;
  idempotencyKey: string | undefined;
  signal: AbortSignal | undefined;
  /** Statuses that are not final for this call (an order awaiting payment is final for placeOrder). */
  open: string[];
}

const MAX_ROOM_VISITS = 3;

export function startOperation<V extends { status: string; failureReason?: string }>(
  context: CheckoutContext,
  spec: OperationSpec,
): Operation<V> {
  const idempotencyKey = spec.idempotencyKey ?? newIdempotencyKey();
  // Typed by Operation["on"].
  const { emit, on } = createListeners();
  let status = "submitting";
  let id: string | undefined;

  const submit = async (): Promise<{ id: string; status: string }> => {
    for (let visits = 0; ; visits++) {
      const user = spec.userId ?? "";
      const roomKey = `${context.guards.get(spec.guard)} ${user}`;
      const token = context.tokens.get(roomKey);
      const headers: Record<string, string> = { "idempotency-key": idempotencyKey };
      if (token) headers["admission-token"] = token;
      try {
        return await apiRequest(context, spec.path, {
          method: "POST",
          body: spec.body,
          headers,
          signal: spec.signal,
        });
      } catch (error) {
        const problem = (error as FloodgateError).problem;
        if (problem?.code !== "waiting_room_required" || visits >= MAX_ROOM_VISITS) throw error;
        const roomId = problem.roomId;
        const key = `${roomId} ${user}`;
        context.guards.set(spec.guard, roomId ?? "");
        // The token sent was refused (expired, revoked): queue again. One this user holds for the room that
        // guards the route now is sent without queueing.
        if (token && context.tokens.get(key) === token) context.tokens.delete(key);
        if (!context.tokens.has(key)) {
          status = "waiting";
          context.tokens.set(key, await waitInRoom(context, problem, spec.userId, emit, spec.signal));
          status = "submitting";
        }
      }
    }
  };

  const final = submit()
    .then(
      (accepted) => {
        id = accepted.id;
        status = accepted.status;
        const source: LiveSource<V> = {
          socketPath: `/v1/operations/${id}/ws`,
          pollPath: spec.readPath + id,
          step(data, fromSocket) {
            const view: V = fromSocket ? data.operation : data;
            status = view.status;
            emit("status", view);
            if (spec.open.includes(status)) return undefined;
            if (status !== "failed") return view;
            const reason = view.failureReason ?? "failed";
            throw problemError({ code: reason, detail: `${id} failed: ${reason}`, operation: view });
          },
        };
        return watchLive<V>(context, source, spec.signal);
      },
      (error) => {
        status = "refused";
        throw error;
      },
    )
    .catch((error) => {
      if (spec.signal?.aborted && error === spec.signal.reason) status = "aborted";
      throw error;
    });
  // Nobody may ever ask for the result: its failure must not be an unhandled rejection.
  final.catch(() => undefined);

  return {
    idempotencyKey,
    get id() {
      return id;
    },
    status: () => status,
    on,
    result({ signal, timeoutMs } = {}) {
      return new Promise<V>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const settle = (fn: () => void) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          fn();
        };
        const onAbort = () => settle(() => reject(signal?.reason));
        if (signal?.aborted) return onAbort();
        signal?.addEventListener("abort", onAbort);
        if (timeoutMs !== undefined) {
          timer = setTimeout(
            () =>
              settle(() => reject(new DOMException(`no final status in ${timeoutMs} ms`, "TimeoutError"))),
            timeoutMs,
          );
        }
        final.then(
          (view) => settle(() => resolve(view)),
          (error) => settle(() => reject(error)),
        );
      });
    },
  };
}
