// Waiting in the room a 403 waiting_room_required named: join it (one place per user: joining again returns the
// same ticket), report the place each time it changes, live from the ticket's WebSocket (or by polling, which
// also keeps the place), and hand back the admission token once the room admits the ticket.
import { apiRequest } from "./api-request.ts";
import type { CheckoutContext } from "./checkout-context.ts";
import { type Problem, RoomSoldOutError } from "./floodgate-errors.ts";
import { watchLive } from "./live-watch.ts";
import { ticketStep } from "./ticket-step.ts";

export interface PositionEvent {
  roomId: string;
  /** 1-based place in the queue (before the room opens: how many joined early). */
  position: number;
  etaSeconds: number;
  /** Units the room's sale still has to sell; present only when the room sells products. */
  unitsLeft?: number;
}

export interface AdmittedEvent {
  roomId: string;
  /** ISO time; after it the token no longer opens the guarded routes and the SDK queues again. */
  expiresAt: string;
}

export interface RoomEvents {
  position: PositionEvent;
  admitted: AdmittedEvent;
}

export type RoomEmitter = (event: keyof RoomEvents, value: RoomEvents[keyof RoomEvents]) => void;

/** Resolves with the admission token; rejects with FloodgateError admission_lost when the ticket expired, was
 * abandoned or revoked before its admission (the problem's `reason`), room_closed when the room closed, and with
 * RoomSoldOutError when the room's sale sold out while the shopper waited. */
export async function waitInRoom(
  context: CheckoutContext,
  problem: Problem,
  userId: string | undefined,
  emit: RoomEmitter,
  signal: AbortSignal | undefined,
): Promise<string> {
  const roomId = problem.roomId ?? "";
  const ticket = await apiRequest<{ ticketId: string }>(
    context,
    problem.joinUrl ?? `/v1/rooms/${encodeURIComponent(roomId)}/tickets`,
    // A shopper joins as their token's user; a server key names the user.
    { method: "POST", body: userId === undefined ? {} : { userId }, signal },
  );
  const ticketPath = `/v1/rooms/${encodeURIComponent(roomId)}/tickets/${encodeURIComponent(ticket.ticketId)}`;
  const step = ticketStep(
    roomId,
    (place) => emit("position", place),
    () => {
      throw new RoomSoldOutError({
        code: "room_sold_out",
        roomId,
        detail: `room ${roomId} sold out while you waited: nothing is left to sell`,
      });
    },
  );
  const admission =
    step(ticket) ??
    (await watchLive(context, { socketPath: `${ticketPath}/ws`, pollPath: ticketPath, step }, signal));
  emit("admitted", { roomId, expiresAt: admission.expiresAt });
  return admission.token;
}
