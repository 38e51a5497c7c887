// POST /v1/rooms/:roomId/admissions/verify: a shop's server asking whether an admission token still admits
// (@floodgate/node's gate with `online: true`), which an offline check of the signature cannot know: a revoked
// admission. The reasons are the intake's own refusals of a token (admission-gate.lua's and the signer's).
import Type, { type Static } from "typebox";
import { stringEnum } from "./operation-schemas.ts";

export const ADMISSION_CHECK_REASONS = [
  "malformed",
  "bad_signature",
  "expired",
  "wrong_room",
  "revoked",
  "unknown_ticket",
] as const;

export const admissionCheckRequestSchema = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 4096 }) },
  { additionalProperties: false },
);
export type AdmissionCheckRequest = Static<typeof admissionCheckRequestSchema>;

export const admissionCheckResponseSchema = Type.Object(
  {
    valid: Type.Boolean(),
    /** Why not (null when valid). */
    reason: Type.Union([stringEnum(ADMISSION_CHECK_REASONS), Type.Null()]),
  },
  { additionalProperties: false },
);
export type AdmissionCheckResponse = Static<typeof admissionCheckResponseSchema>;
