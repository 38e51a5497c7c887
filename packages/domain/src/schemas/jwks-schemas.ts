// GET /.well-known/jwks.json: the public keys of the admission tokens (RFC 7517). The response schema lists
// the public members only and refuses any other (additionalProperties false): Fastify's serializer then drops
// anything else, so a private member (`d`) could not be sent even if a key object carried it.
import Type from "typebox";

export const admissionJwkSchema = Type.Object(
  {
    kty: Type.Literal("EC"),
    crv: Type.Literal("P-256"),
    x: Type.String(),
    y: Type.String(),
    kid: Type.String(),
    alg: Type.Literal("ES256"),
    use: Type.Literal("sig"),
  },
  { additionalProperties: false },
);

export const admissionJwksResponseSchema = Type.Object(
  { keys: Type.Array(admissionJwkSchema) },
  { additionalProperties: false },
);
