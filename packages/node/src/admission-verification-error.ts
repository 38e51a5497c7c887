// Why an admission token does not count, as data: the gate sends the code to the room with the shopper (the
// `reason` of its 403), and a caller of verifyAdmission branches on it, never on the message.

export type AdmissionErrorCode =
  /** Not a compact JWS, or its header or claims are not what a Floodgate intake signs. */
  | "malformed"
  /** An algorithm this package does not verify (the intake signs ES256; HS256 tokens cannot be verified here). */
  | "unsupported_algorithm"
  /** A kid the intake's JWKS does not list, even after reading it again. */
  | "unknown_key"
  | "bad_signature"
  | "expired"
  /** `nbf` is still ahead. */
  | "not_yet_valid"
  /** `iss` is not the intake's. */
  | "wrong_issuer"
  /** Admitted to another room. */
  | "wrong_room"
  /** online: the intake says the admission was revoked (DELETE /v1/rooms/:roomId/tokens/:ticketId). */
  | "revoked"
  /** online: the intake does not know the ticket (its record is gone). */
  | "unknown_ticket"
  /** The JWKS could not be fetched and no key is held: nothing can be verified. */
  | "jwks_unavailable"
  /** online: the intake did not answer. */
  | "intake_unavailable";

export class AdmissionVerificationError extends Error {
  readonly code: AdmissionErrorCode;

  constructor(code: AdmissionErrorCode, message: string) {
    super(message);
    this.name = "AdmissionVerificationError";
    this.code = code;
  }
}

/** Codes that say the gate could not decide (its dependencies failed), rather than that the token is bad. */
export function isUnavailable(code: AdmissionErrorCode): boolean {
  return code === "jwks_unavailable" || code === "intake_unavailable";
}
