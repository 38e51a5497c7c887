// Waiting for one ticket's admission. The ticket's WebSocket first: live positions, the token the moment the
// leader admits it, and an open socket keeps the place. A socket that ends before a final message is reopened
// after a backoff (any intake will do: the first message is the ticket's current state). After
// maxSocketFailures failures in a row, or with no WebSocket at all, a GET every pollIntervalMs does the same
// job, heartbeat included. Either way the page hears of a position only when it changed.
import { delay } from "./abortable-delay.ts";
import { AdmissionLostError } from "./admission-lost-error.ts";
import { backoffDelayMs } from "./backoff.ts";
import { type ApiEndpoint, isWorthRetrying, requestJson } from "./json-request.ts";
import { FloodgateProblemError } from "./problem-error.ts";
import { openTicketSocket, type TicketSocket, type WebSocketConstructor } from "./ticket-socket.ts";
import { ticketSocketUrl } from "./ticket-socket-url.ts";
import type {
  Admission,
  AdmissionLossReason,
  AdmissionUpdate,
  TicketView,
  UpdateSource,
} from "./ticket-types.ts";

export interface AdmissionWatchOptions {
  endpoint: ApiEndpoint;
  roomId: string;
  ticketId: string;
  WebSocket: WebSocketConstructor | undefined;
  pollIntervalMs: number;
  maxSocketFailures: number;
  /** Must not throw: an exception from it ends the wait with that exception. */
  onUpdate: ((update: AdmissionUpdate) => void) | undefined;
}

/** Resolves with the admission; rejects with AdmissionLostError, or with the signal's reason once it aborts. */
export function watchAdmission(options: AdmissionWatchOptions, signal: AbortSignal): Promise<Admission> {
  const { endpoint, roomId, ticketId, WebSocket, pollIntervalMs, maxSocketFailures, onUpdate } = options;
  return new Promise<Admission>((resolve, reject) => {
    let settled = false;
    let socket: TicketSocket | undefined;
    let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
    let socketFailures = 0;
    let lastPosition: number | undefined;

    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      clearTimeout(reconnectTimer);
      socket?.close();
      outcome();
    };
    const onAbort = () => finish(() => reject(signal.reason));
    const lose = (reason: AdmissionLossReason, cause?: unknown) =>
      finish(() => reject(new AdmissionLostError(reason, roomId, ticketId, { cause })));
    const report = (update: AdmissionUpdate): boolean => {
      try {
        onUpdate?.(update);
        return true;
      } catch (error) {
        finish(() => reject(error));
        return false;
      }
    };
    const position = (place: number, etaSeconds: number, via: UpdateSource) => {
      if (settled || place === lastPosition) return;
      lastPosition = place;
      report({ type: "position", position: place, etaSeconds, via });
    };
    const admit = (admissionToken: string, expiresAt: string, via: UpdateSource) => {
      if (settled) return;
      const admission: Admission = { ticketId, roomId, admissionToken, expiresAt };
      if (report({ type: "admitted", ...admission, via })) finish(() => resolve(admission));
    };

    const poll = async () => {
      while (!settled) {
        try {
          const { body: view } = await requestJson<TicketView>(endpoint, {
            method: "GET",
            path: `/v1/rooms/${encodeURIComponent(roomId)}/tickets/${encodeURIComponent(ticketId)}`,
            maxRetries: 0,
            signal,
          });
          if (view.status === "waiting") position(view.position ?? 0, view.etaSeconds ?? 0, "polling");
          else if (view.status === "admitted")
            admit(view.admissionToken ?? "", view.expiresAt ?? "", "polling");
          else lose(view.status);
        } catch (error) {
          if (settled) return;
          if (error instanceof FloodgateProblemError && error.status === 404) lose("not_found", error);
          else if (error instanceof FloodgateProblemError && !isWorthRetrying(error))
            finish(() => reject(error));
          // Otherwise (offline for a moment, a 503): the next poll is the retry, and the next heartbeat.
        }
        if (settled) return;
        await delay(pollIntervalMs, signal).catch(() => undefined);
      }
    };

    const connect = () => {
      if (settled) return;
      if (!WebSocket || socketFailures >= maxSocketFailures) {
        void poll();
        return;
      }
      socket = openTicketSocket(WebSocket, ticketSocketUrl(endpoint.baseUrl, roomId, ticketId), {
        onMessage(message) {
          if (message.type === "position") position(message.position, message.etaSeconds, "websocket");
          else if (message.type === "admitted") admit(message.admissionToken, message.expiresAt, "websocket");
          else if (message.type === "expired") lose(message.reason);
          else if (message.type === "error" && message.code === "not_found") lose("not_found");
        },
        onEnd(heardFrom) {
          socket = undefined;
          if (settled) return;
          // A socket that worked and then dropped (an intake restarting) starts a new run of failures.
          socketFailures = heardFrom ? 1 : socketFailures + 1;
          if (socketFailures >= maxSocketFailures) void poll();
          else reconnectTimer = setTimeout(connect, backoffDelayMs(socketFailures));
        },
      });
    };

    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    connect();
  });
}
