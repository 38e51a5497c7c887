// A waiting room as a shop page uses it: join (one place per user; joining again returns the same ticket),
// then wait for admission while showing the live position, then pay with the admission token.
//
// Design: the room only hands the token back; it never changes a client. The page passes it on itself:
//
//   const room = client.room(problem.roomId);          // from a 403 waiting_room_required
//   await room.join(userId);
//   const { admissionToken } = await room.waitForAdmission((update) => render(update));
//   client.setAdmissionToken(admissionToken);
//
// A token belongs to one user and one room, so which client carries it (and for which user's calls) is the
// page's decision, not something a room should do behind its back.
import { watchAdmission } from "./admission-watch.ts";
import { type ApiEndpoint, endpointOf, type FetchFunction, requestJson } from "./json-request.ts";
import type { WebSocketConstructor } from "./ticket-socket.ts";
import type { Admission, AdmissionUpdate, TicketView } from "./ticket-types.ts";

export interface WaitingRoomOptions {
  baseUrl: string;
  roomId: string;
  fetch?: FetchFunction;
  /** Defaults to globalThis.WebSocket; pass undefined or null explicitly to poll only. */
  WebSocket?: WebSocketConstructor | null;
  /** Polling (the fallback) reads the ticket this often; each read also keeps the place. Default 2000. */
  pollIntervalMs?: number;
  /** Failed socket attempts in a row before falling back to polling. Default 3. */
  maxSocketFailures?: number;
}

const JOIN_RETRIES = 2;

export class WaitingRoom {
  readonly roomId: string;
  readonly #endpoint: ApiEndpoint;
  readonly #WebSocket: WebSocketConstructor | undefined;
  readonly #pollIntervalMs: number;
  readonly #maxSocketFailures: number;
  #ticket: TicketView | undefined;
  #waiting: AbortController | undefined;

  constructor(options: WaitingRoomOptions) {
    this.roomId = options.roomId;
    this.#endpoint = endpointOf(options.baseUrl, options.fetch);
    const given = Object.hasOwn(options, "WebSocket");
    this.#WebSocket = (given ? options.WebSocket : globalThis.WebSocket) ?? undefined;
    this.#pollIntervalMs = options.pollIntervalMs ?? 2000;
    this.#maxSocketFailures = options.maxSocketFailures ?? 3;
  }

  /** The ticket as last seen: after join(), and once admitted. */
  get ticket(): TicketView | undefined {
    return this.#ticket;
  }

  /** Takes (or finds) the user's place. Throws FloodgateProblemError: not_found room, rate_limited. */
  async join(userId: string): Promise<TicketView> {
    const { body } = await requestJson<TicketView>(this.#endpoint, {
      method: "POST",
      path: `/v1/rooms/${encodeURIComponent(this.roomId)}/tickets`,
      body: { userId },
      maxRetries: JOIN_RETRIES,
    });
    this.#ticket = body;
    return body;
  }

  /**
   * Resolves once the joined ticket is admitted (at once if it already is). onUpdate hears each new position
   * and the admission. Rejects with AdmissionLostError (expired, abandoned, revoked, not_found), or with an
   * AbortError DOMException after stop().
   */
  waitForAdmission(onUpdate?: (update: AdmissionUpdate) => void): Promise<Admission> {
    const ticket = this.#ticket;
    if (!ticket) return Promise.reject(new Error("join the room before waiting for admission"));
    const { ticketId, roomId, admissionToken, expiresAt } = ticket;
    // A ticket admitted earlier whose session is over is not an admission: waiting finds out what it is now.
    if (admissionToken && expiresAt && Date.parse(expiresAt) > Date.now()) {
      return Promise.resolve({ ticketId, roomId, admissionToken, expiresAt });
    }
    if (this.#waiting) return Promise.reject(new Error("already waiting for admission; stop() first"));
    const waiting = new AbortController();
    this.#waiting = waiting;
    const options = {
      endpoint: this.#endpoint,
      roomId,
      ticketId,
      WebSocket: this.#WebSocket,
      pollIntervalMs: this.#pollIntervalMs,
      maxSocketFailures: this.#maxSocketFailures,
      onUpdate,
    };
    return watchAdmission(options, waiting.signal)
      .then((admission) => {
        this.#ticket = { ...admission, status: "admitted" };
        return admission;
      })
      .finally(() => {
        if (this.#waiting === waiting) this.#waiting = undefined;
      });
  }

  /** Closes the socket, stops polling, and makes a pending waitForAdmission reject with an AbortError. */
  stop(): void {
    this.#waiting?.abort(new DOMException("stopped waiting for admission", "AbortError"));
    this.#waiting = undefined;
  }
}
