// A waiting-room ticket as the API shows it, and what waiting for admission reports to the page.

export type TicketStatus = "waiting" | "admitted" | "expired" | "abandoned" | "revoked";

/** The answer to a join or a poll. Which fields are present depends on the status. */
export interface TicketView {
  ticketId: string;
  roomId: string;
  status: TicketStatus;
  /** waiting: 1-based place (before startsAt, the number of people who joined early). */
  position?: number;
  etaSeconds?: number;
  /** waiting before the room opens: when places are drawn. */
  startsAt?: string;
  /** admitted: send it as Admission-Token on the guarded routes until expiresAt. */
  admissionToken?: string;
  expiresAt?: string;
}

export interface Admission {
  ticketId: string;
  roomId: string;
  admissionToken: string;
  /** ISO time; after it the token no longer opens the guarded routes. */
  expiresAt: string;
}

/** How an update reached the page: the live socket, or the polling fallback. */
export type UpdateSource = "websocket" | "polling";

export interface PositionUpdate {
  type: "position";
  position: number;
  etaSeconds: number;
  via: UpdateSource;
}

export interface AdmittedUpdate extends Admission {
  type: "admitted";
  via: UpdateSource;
}

export type AdmissionUpdate = PositionUpdate | AdmittedUpdate;

/** Why a ticket can no longer be admitted: its session ended, it went silent, an operator revoked it, or the
 * room does not know it. */
export type AdmissionLossReason = "expired" | "abandoned" | "revoked" | "not_found";
