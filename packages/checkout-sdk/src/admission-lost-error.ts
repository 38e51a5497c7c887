// Waiting ended without an admission. Joining again gives a new place at the back of the queue.
import type { AdmissionLossReason } from "./ticket-types.ts";

export class AdmissionLostError extends Error {
  readonly reason: AdmissionLossReason;
  readonly roomId: string;
  readonly ticketId: string;

  constructor(reason: AdmissionLossReason, roomId: string, ticketId: string, options?: { cause?: unknown }) {
    super(`ticket ${ticketId} of room ${roomId} can no longer be admitted: ${reason}`, options);
    this.name = "AdmissionLostError";
    this.reason = reason;
    this.roomId = roomId;
    this.ticketId = ticketId;
  }
}
