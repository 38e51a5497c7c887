// Queueing when a page loads (the page a shop's gate sends a shopper to): join the room, tell the place live,
// and hand over the admission, which enterGate() takes to the shop's gate (@floodgate/node), the route that turns
// it into the gate's cookie. The ticket is kept in the tab's sessionStorage by room, so a reload follows the same
// ticket from its place instead of joining again; a stored ticket the server no longer knows (forgotten, another
// shopper's) or that ended joins afresh.
import { apiRequest } from "./api-request.ts";
import type { CheckoutContext } from "./checkout-context.ts";
import { createListeners } from "./event-listeners.ts";
import type { FloodgateError } from "./floodgate-errors.ts";
import { watchLive } from "./live-watch.ts";
import { ticketStep } from "./ticket-step.ts";
import type { PositionEvent } from "./waiting-room-queue.ts";

export interface RoomAdmission {
  roomId: string;
  ticketId: string;
  /** The admission token: what the gate's admit route (enterGate) and the intake's guarded routes take. */
  token: string;
  /** ISO time the session ends. */
  expiresAt: string;
}

export interface RoomHandleEvents {
  position: PositionEvent;
  admitted: RoomAdmission;
  /** The room's sale has nothing left; the ticket keeps its place (a restock reopens the room: places again). */
  sold_out: { roomId: string };
  /** The room closed (its endsAt passed): no admission will come. */
  closed: { roomId: string };
  /** The wait ended otherwise: admission_lost (revoked), a refused join, a network down through every retry. */
  error: FloodgateError;
}

/** The part of the Web Storage API the room uses to remember its ticket. */
export type TicketStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

export interface JoinRoomOptions {
  /** A server key joins for this user; a shopper's token joins as its own user (leave it out). */
  userId?: string;
  /** Where the ticket is kept across reloads. Default: sessionStorage when there is one; null keeps none. */
  storage?: TicketStorage | null;
  /** The shop's gate route. Default /.floodgate/admit (@floodgate/node's admitPath). */
  gatePath?: string;
  /** Ends the wait (socket, polls) with the signal's reason; the ticket stays stored. */
  signal?: AbortSignal;
  /** A join pass the shop's server minted for this shopper (POST /v1/rooms/{roomId}/passes): a bypass or a
   * lane. With one, the join is sent even when a ticket is stored: a bypass admits the waiting ticket. */
  pass?: string;
}

export interface RoomHandle {
  readonly roomId: string;
  /** Returns a function that removes the listener. */
  on<E extends keyof RoomHandleEvents>(event: E, listener: (value: RoomHandleEvents[E]) => void): () => void;
  /** Resolves once admitted; rejects with room_closed, RoomSoldOutError (a join refused sold out),
   * admission_lost or the request's error. */
  admission(): Promise<RoomAdmission>;
  /** Goes to the gate's route with the admission (`return` defaults to this page's ?return=, else "/"): the
   * gate sets its cookie and sends the browser back. Call it once admitted. */
  enterGate(returnPath?: string): void;
}

const ENDED = ["expired", "abandoned", "revoked"];

export function joinRoom(
  context: CheckoutContext,
  roomId: string,
  options: JoinRoomOptions = {},
): RoomHandle {
  const { userId, signal, pass, gatePath = "/.floodgate/admit" } = options;
  let storage = options.storage;
  try {
    // null: the page asked for none.
    if (storage === undefined) storage = globalThis.sessionStorage;
  } catch {
    // Storage refused (a sandboxed frame, cookies blocked): the wait works, a reload joins again.
  }
  const key = `floodgate.room.${roomId}`;
  const room = `/v1/rooms/${encodeURIComponent(roomId)}/tickets`;
  const { emit, on } = createListeners();
  let admitted: RoomAdmission | undefined;
  let soldOut = false;

  const wait = async (): Promise<RoomAdmission> => {
    // biome-ignore lint/suspicious/noExplicitAny: the server's ticket, read by ticketStep.
    let ticket: any;
    const stored = storage?.getItem(key);
    if (stored && !pass) {
      try {
        ticket = await apiRequest(context, `${room}/${encodeURIComponent(stored)}`, { signal });
      } catch (error) {
        // 404: forgotten, or not this shopper's. Anything but a 4xx is worth the retries it already had.
        const { status = 0 } = error as FloodgateError;
        if (status < 400 || status >= 500) throw error;
      }
      if (ENDED.includes(ticket?.status)) ticket = undefined;
    }
    ticket ??= await apiRequest(context, room, { method: "POST", body: { userId, pass }, signal });
    storage?.setItem(key, ticket.ticketId);
    const path = `${room}/${encodeURIComponent(ticket.ticketId)}`;
    const step = ticketStep(
      roomId,
      (place) => {
        soldOut = false;
        emit("position", place);
      },
      () => {
        if (!soldOut) emit("sold_out", { roomId });
        soldOut = true;
      },
    );
    const { token, expiresAt } =
      step(ticket) ?? (await watchLive(context, { socketPath: `${path}/ws`, pollPath: path, step }, signal));
    admitted = { roomId, ticketId: ticket.ticketId, token, expiresAt };
    emit("admitted", admitted);
    return admitted;
  };

  // Started after the caller's synchronous on() calls: every event reaches them.
  const admission = Promise.resolve()
    .then(wait)
    .catch((error: FloodgateError) => {
      // The page's own abort (it is being left) is no news to it.
      if (signal?.aborted) throw error;
      if (error.code === "room_closed" || error.code === "admission_lost") storage?.removeItem(key);
      if (error.code === "room_closed") emit("closed", { roomId });
      else if (error.code === "room_sold_out") emit("sold_out", { roomId });
      else emit("error", error);
      throw error;
    });
  // A page may listen to the events only: its rejection is not an unhandled one.
  admission.catch(() => undefined);

  return {
    roomId,
    on,
    admission: () => admission,
    enterGate(returnPath) {
      if (!admitted) throw new Error(`room ${roomId} has not admitted this shopper yet`);
      const { location } = globalThis;
      const back = returnPath ?? new URLSearchParams(location.search).get("return") ?? "/";
      location.assign(
        `${gatePath}?token=${encodeURIComponent(admitted.token)}&return=${encodeURIComponent(back)}`,
      );
    },
  };
}
