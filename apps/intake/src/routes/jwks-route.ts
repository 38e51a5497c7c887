// GET /.well-known/jwks.json: the public keys admission tokens are signed with (ES256, a kid each), for a
// shop's server to verify them itself (jose's createRemoteJWKSet, @floodgate/node's gate). Public and
// cacheable; answered from this process's memory (admission-signing-keys.ts). A key rotated in is listed
// before it signs (keys rotate --lead, longer than JWKS_MAX_AGE_SECONDS), and a superseded one until its last
// token expired. With ADMISSION_TOKEN_ALG=HS256 the set is empty: an HMAC key is never published.
import { admissionJwksResponseSchema, problemResponseSchema } from "@floodgate/domain";
import type { FastifyInstance } from "fastify";

export const JWKS_MAX_AGE_SECONDS = 300;

export async function jwksRoute(app: FastifyInstance) {
  app.get(
    "/.well-known/jwks.json",
    {
      config: { auth: "public" },
      schema: {
        operationId: "getAdmissionJwks",
        summary: "The public keys of admission tokens (JWKS)",
        description:
          "Every key an admission token may be signed with now, public members only, each with its `kid`. " +
          "A rotated-in key is listed before any token carries it; a superseded one until its tokens have " +
          "expired. Empty while admission tokens are HS256 (ADMISSION_TOKEN_ALG, deprecated).",
        tags: ["Waiting rooms"],
        response: { 200: admissionJwksResponseSchema, "5xx": problemResponseSchema },
        documented: { successHeaders: ["Cache-Control"] },
      },
    },
    async (_request, reply) => {
      reply.header("cache-control", `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
      return { keys: app.admission.signingKeys.publicKeys() };
    },
  );
}
