// POST /v1/rooms/:roomId/admissions/verify, public: does this admission token still admit to this room? For a
// shop's server that verifies tokens itself (@floodgate/node's gate) and also wants what its offline check
// cannot see: a revocation. The token is the credential, so none is asked for. Checked as a guarded request's
// admission is: its claims read, and one read of the user's passes, which must hold its digest (the token handed
// out for the ticket: admission-control.ts). A pass of the previous release holds none: the signature decides.
import { readPassStanding } from "@floodgate/admission";
import type { AdmissionCheckRequest, AdmissionCheckResponse, RoomIdParams } from "@floodgate/domain";
import {
  admissionCheckRequestSchema,
  admissionCheckResponseSchema,
  problemResponseSchema,
  roomIdParamsSchema,
} from "@floodgate/domain";
import type { FastifyInstance } from "fastify";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function admissionCheckRoute(app: FastifyInstance) {
  app.post<{ Params: RoomIdParams; Body: AdmissionCheckRequest }>(
    "/v1/rooms/:roomId/admissions/verify",
    {
      config: { auth: "public" },
      schema: {
        operationId: "verifyAdmission",
        summary:
          "Whether an admission token still admits to the room (the token handed out, expiry, revocation)",
        description:
          "For a shop's server checking online what its own verification against the JWKS cannot see: " +
          "an admission revoked since the token was signed. The token must be the one handed out for its " +
          "ticket (its digest is kept with the admission): any other is `bad_signature`, however it is signed. " +
          "`valid: false` names the `reason`.",
        tags: ["Waiting rooms"],
        // Limited per client address (route class admission-checks): its 429 is documented with the others'.
        documented: { admission: "admission-checks" },
        params: roomIdParamsSchema,
        body: admissionCheckRequestSchema,
        response: { 200: admissionCheckResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { roomId } = request.params;
      const { redis, keys, tokens, control } = app.admission;
      const { token } = request.body;
      // The client address's token first (beside the check's Redis read): a caller with no credential must not
      // be able to make this process verify signatures without limit.
      return control.admitCheck(request, async (): Promise<AdmissionCheckResponse> => {
        const verdict = tokens.read(token);
        if (!verdict.ok) return { valid: false, reason: verdict.reason };
        if (verdict.claims.roomId !== roomId) return { valid: false, reason: "wrong_room" };
        let standing = await readPassStanding(redis, keys, verdict.claims, token, {
          signatureVerified: false,
        });
        if (standing === "unsigned") {
          const signed = tokens.verify(token);
          if (!signed.ok) return { valid: false, reason: signed.reason };
          standing = await readPassStanding(redis, keys, verdict.claims, token, { signatureVerified: true });
        }
        if (standing === "admitted") return { valid: true, reason: null };
        // Not the token handed out for the ticket: as a token whose signature does not hold.
        if (standing === "not_handed_out" || standing === "unsigned") {
          return { valid: false, reason: "bad_signature" };
        }
        // No such ticket among the claimed user's passes: a tampered token (its claims changed) says so by its
        // signature, which this route, off the request path, can afford to check, so the shop reads the reason
        // its own offline check would give.
        if (standing === "unknown_ticket" && !tokens.verify(token).ok) {
          return { valid: false, reason: "bad_signature" };
        }
        return { valid: false, reason: standing };
      });
    },
  );
}
