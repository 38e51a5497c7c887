// GET /v1/rooms/:roomId/shuffle-proof, public: the commitment a scheduled room publishes before its start, and
// after it the seed and the closed pre-queue's list, from which anyone recomputes the order the room admitted
// its pre-queue in (@floodgate/node's verifyShuffleProof; the algorithm in docs/api.md).
import type { RoomIdParams } from "@floodgate/domain";
import { problemResponseSchema, roomIdParamsSchema, shuffleProofResponseSchema } from "@floodgate/domain";
import type { FastifyInstance } from "fastify";
import { ShuffleProofs } from "../admission/shuffle-proofs.ts";
import { ProblemError } from "../errors/error-catalogue.ts";

const problems = { "4xx": problemResponseSchema, "5xx": problemResponseSchema };

export async function shuffleProofRoute(app: FastifyInstance) {
  const proofs = new ShuffleProofs(app.admission.redis, app.admission.keys);

  app.get<{ Params: RoomIdParams }>(
    "/v1/rooms/:roomId/shuffle-proof",
    {
      // Anyone may check a drop's fairness, signed in or not.
      config: { auth: "public" },
      schema: {
        operationId: "getShuffleProof",
        summary:
          "A scheduled room's pre-queue shuffle: the commitment before the start, the seed and list after",
        tags: ["Waiting rooms"],
        params: roomIdParamsSchema,
        response: { 200: shuffleProofResponseSchema, ...problems },
        documented: {
          answers: {
            200: "The proof. Before the start: the commitment only (seed, listHash and tickets null).",
            404: "No such room, or a room never scheduled (no startsAt): it has no shuffle to prove.",
          },
        },
      },
    },
    async (request) => {
      const { roomId } = request.params;
      const proof = await proofs.read(roomId);
      if (proof === null) {
        throw new ProblemError("not_found", {
          field: "roomId",
          detail: `room ${roomId} has no shuffle proof: it does not exist or was never scheduled (startsAt)`,
        });
      }
      return proof;
    },
  );
}
