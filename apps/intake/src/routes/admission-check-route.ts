// POST /v1/rooms/:roomId/admissions/verify, public: does this admission token still admit to this room? For a
// shop's server that verifies tokens itself (@floodgate/node's gate) and also wants what its offline check
// cannot see: a revocation. The token is the credential, so none is asked for. Costs what a guarded request's
// admission costs: the token's signature (remembered once verified) and one read of the user's passes.
import { readPassStanding } from "@floodgate/admission";
import type { AdmissionCheckRequest, RoomIdParams } from "@floodgate/domain";
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
        summary: "Whether an admission token still admits to the room (signature, expiry, revocation)",
        description:
          "For a shop's server checking online what its own verification against the JWKS cannot see: " +
          "an admission revoked since the token was signed. `valid: false` names the `reason`.",
        tags: ["Waiting rooms"],
        params: roomIdParamsSchema,
        body: admissionCheckRequestSchema,
        response: { 200: admissionCheckResponseSchema, ...problems },
      },
    },
    async (request) => {
      const { roomId } = request.params;
      const { redis, keys, tokens } = app.admission;
      const verdict = tokens.verify(request.body.token);
      if (!verdict.ok) return { valid: false, reason: verdict.reason };
      if (verdict.claims.roomId !== roomId) return { valid: false, reason: "wrong_room" };
      const standing = await readPassStanding(redis, keys, verdict.claims);
      return standing === "admitted" ? { valid: true, reason: null } : { valid: false, reason: standing };
    },
  );
}
