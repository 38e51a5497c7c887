// One reading of a room's ticket (the join's answer, a poll, a socket message: {status | type, position, ...})
// and what a waiting shopper learns from it: a new place (emitted when the place or the units left change), the
// admission, a sold-out room (the caller decides whether that ends the wait: a restock reopens the room and the
// ticket keeps its place), a closed room (room_closed) or a ticket lost before its turn (admission_lost).
import { FloodgateError } from "./floodgate-errors.ts";
import type { PositionEvent } from "./waiting-room-queue.ts";

export interface TicketAdmission {
  token: string;
  expiresAt: string;
}

// biome-ignore lint/suspicious/noExplicitAny: the server's JSON, read field by field.
export type TicketStep = (data: any) => TicketAdmission | undefined;

export function ticketStep(
  roomId: string,
  onPosition: (place: PositionEvent) => void,
  onSoldOut: () => void,
): TicketStep {
  let shown: { position: number; unitsLeft: number | undefined } | undefined;
  return (data) => {
    const kind = data.type ?? data.status;
    if (kind === "admitted") return { token: data.admissionToken, expiresAt: data.expiresAt };
    if (kind === "position" || kind === "waiting") {
      const unitsLeft: number | undefined = data.unitsLeft ?? undefined;
      // A new place, or the same place with fewer units left: both change what the shopper should read.
      if (data.position !== shown?.position || unitsLeft !== shown?.unitsLeft) {
        const place: PositionEvent = { roomId, position: data.position, etaSeconds: data.etaSeconds };
        if (unitsLeft !== undefined) place.unitsLeft = unitsLeft;
        onPosition(place);
      }
      shown = { position: data.position, unitsLeft };
      return undefined;
    }
    if (kind === "sold_out") {
      // The place is told again when a restock reopens the room.
      shown = undefined;
      onSoldOut();
      return undefined;
    }
    if (kind === "closed") {
      throw new FloodgateError({ code: "room_closed", roomId, detail: `room ${roomId} has closed` });
    }
    const reason = data.reason ?? kind;
    throw new FloodgateError({
      code: "admission_lost",
      roomId,
      reason,
      detail: `the room's ticket ${reason}`,
    });
  };
}
