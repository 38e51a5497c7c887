// Following something the server changes on its own time (a ticket's place in a room, an operation's status):
// its WebSocket first. A socket that ends before the end is reopened after a backoff (any intake will do: the
// first message is the current state); after MAX_SOCKET_FAILURES failures in a row, or with no WebSocket at
// all, a GET every pollIntervalMs does the same job. `step` sees each message (or polled body) and returns the
// value to finish with, undefined to keep following, or throws to fail. The socket carries the bearer as
// ?access_token=; a socket refused with token_expired is reopened once with the token getToken() gives next.
// An aborted `signal` ends the watch at once with its reason: the socket closed, no poll or reconnect left.
import { apiRequest } from "./api-request.ts";
import { retryDelayMs, sleep } from "./backoff.ts";
import type { CheckoutContext } from "./checkout-context.ts";
import { type FloodgateError, problemError } from "./floodgate-errors.ts";
import { type JsonSocket, openJsonSocket } from "./json-socket.ts";
import { socketUrl } from "./socket-url.ts";

export interface LiveSource<T> {
  /** e.g. /v1/operations/pay_.../ws */
  socketPath: string;
  /** The GET that answers the same state, e.g. /v1/payments/pay_... */
  pollPath: string;
  /** Each message or polled body but the refusals ({type: "error"}), which reject the watch. */
  // biome-ignore lint/suspicious/noExplicitAny: the server's JSON, each step reads the fields it knows.
  step(data: any, fromSocket: boolean): T | undefined;
}

const MAX_SOCKET_FAILURES = 3;

export function watchLive<T>(
  context: CheckoutContext,
  source: LiveSource<T>,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    let socket: JsonSocket | undefined;
    let reconnect: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let sentToken: string | undefined;
    let refreshed = false;

    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      signal?.removeEventListener("abort", onAbort);
      clearTimeout(reconnect);
      socket?.close();
      settle();
    };
    const onAbort = () => finish(() => reject(signal?.reason));
    if (signal?.aborted) return reject(signal.reason);
    signal?.addEventListener("abort", onAbort);
    // biome-ignore lint/suspicious/noExplicitAny: see step.
    const take = (data: any, fromSocket: boolean) => {
      if (done) return;
      try {
        // The sockets' refusal, {type: "error", code, problem}; older intakes sent a ticket's as {type, code, detail}.
        if (data.type === "error") {
          const problem = data.problem ?? { code: data.code, detail: data.detail };
          if (fromSocket && problem.code === "token_expired" && sentToken !== undefined && !refreshed) {
            refreshed = true;
            socket?.close();
            context.token?.refresh(sentToken).then(connect, (error) => finish(() => reject(error)));
            return;
          }
          throw problemError(problem);
        }
        // The token was taken: a later expiry (a long wait in a room, a reconnect) may refresh once again.
        if (fromSocket) refreshed = false;
        const value = source.step(data, fromSocket);
        if (value !== undefined) finish(() => resolve(value));
      } catch (error) {
        finish(() => reject(error));
      }
    };

    const poll = async () => {
      while (!done) {
        try {
          take(await apiRequest(context, source.pollPath, { signal }, 0), false);
        } catch (error) {
          // A 4xx (not found, malformed, a token refused) will not change, nor will a page that gives no token;
          // offline for a moment or a 5xx: the next poll retries.
          const { status = 0, code } = error as FloodgateError;
          const final = (status >= 400 && status < 500 && status !== 429) || code === "token_unavailable";
          if (final && !done) finish(() => reject(error));
        }
        // An abort rejects the sleep; onAbort has already finished the watch.
        if (!done) await sleep(context.pollIntervalMs, signal).catch(() => undefined);
      }
    };

    const connect = async () => {
      if (done) return;
      if (!context.WebSocket || failures >= MAX_SOCKET_FAILURES) return void poll();
      try {
        sentToken = await context.token?.current();
      } catch (error) {
        return finish(() => reject(error));
      }
      if (done) return;
      socket = openJsonSocket(
        context.WebSocket,
        socketUrl(context.baseUrl, source.socketPath, sentToken),
        (message) => take(message, true),
        (heardFrom) => {
          // A socket that worked and then dropped (an intake restarting) starts a new run of failures.
          failures = heardFrom ? 1 : failures + 1;
          reconnect = setTimeout(connect, failures < MAX_SOCKET_FAILURES ? retryDelayMs(failures) : 0);
        },
      );
    };
    void connect();
  });
}
