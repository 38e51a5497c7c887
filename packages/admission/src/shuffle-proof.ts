// What a room publishes of its pre-queue's shuffle (GET /v1/rooms/:roomId/shuffle-proof, and the commitment on
// the room's view): before the start, the commitment to a secret seed; once the start closed the list and the
// leader ordered it (pre-queue-order.ts), the seed and the list, from which @floodgate/node's
// verifyShuffleProof recomputes the order. Read in one MULTI (the room's keys share a slot), so the answer is
// one moment's.
import type { ScriptedRedis } from "@floodgate/redis-connections";
import type { AdmissionKeys } from "./admission-keys.ts";

export type ShuffleProofStatus =
  /** A start is scheduled: the commitment only. */
  | "scheduled"
  /** The start closed the list; its order is being written (a tick's time): the commitment only. */
  | "closed"
  /** The order is written: seed, list hash and tickets published. */
  | "published";

export interface ShuffleProofReading {
  status: ShuffleProofStatus;
  commitment: string;
  /** Epoch ms: when the commitment was made. */
  committedAt: number;
  /** Epoch ms: when the start closed the list; null while scheduled. */
  closedAt: number | null;
  seed: string | null;
  listHash: string | null;
  /** Epoch ms the proof was published (identifies it: a new start publishes a new one); null until then. */
  publishedAt: number | null;
}

const optionalNumber = (value: string | null | undefined) => (value ? Number(value) : null);

/** The room's latest shuffle: a closed round first, then a scheduled start, then the last published proof. */
export async function readShuffleProof(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
): Promise<ShuffleProofReading | null> {
  const room = keys.room(roomId);
  const results = await redis
    .multi()
    .hmget(
      room.state,
      "shuffleAwaitsOrder",
      "shuffleCommitment",
      "shuffleCommittedAt",
      "shuffleClosedAt",
      "nextCommitment",
      "nextCommittedAt",
    )
    .hgetall(room.proof)
    .exec();
  if (results === null) throw new Error("the shuffle proof's read was aborted");
  for (const [error] of results) if (error) throw error;
  const [awaits, closedCommitment, closedCommittedAt, closedAt, nextCommitment, nextCommittedAt] =
    results[0]![1] as [
      string | null,
      string | null,
      string | null,
      string | null,
      string | null,
      string | null,
    ];
  const proof = results[1]![1] as Record<string, string>;
  const hidden = { seed: null, listHash: null, publishedAt: null };
  if (awaits !== null && closedCommitment !== null) {
    return {
      status: "closed",
      commitment: closedCommitment,
      committedAt: Number(closedCommittedAt),
      closedAt: optionalNumber(closedAt),
      ...hidden,
    };
  }
  if (nextCommitment !== null) {
    return {
      status: "scheduled",
      commitment: nextCommitment,
      committedAt: Number(nextCommittedAt),
      closedAt: null,
      ...hidden,
    };
  }
  if (!proof.commitment) return null;
  return {
    status: "published",
    commitment: proof.commitment,
    committedAt: Number(proof.committedAt),
    closedAt: optionalNumber(proof.closedAt),
    seed: proof.seed ?? null,
    listHash: proof.listHash ?? null,
    publishedAt: optionalNumber(proof.publishedAt),
  };
}

/**
 * The ticket ids of the proof published at `publishedAt`, sorted; null when another proof has replaced it since
 * (the caller reads again). A list can hold 100,000 ids: the intake keeps it per published proof.
 */
export async function readShuffleProofTickets(
  redis: ScriptedRedis,
  keys: AdmissionKeys,
  roomId: string,
  publishedAt: number,
): Promise<string[] | null> {
  const room = keys.room(roomId);
  const results = await redis.multi().hget(room.proof, "publishedAt").lrange(room.proofTickets, 0, -1).exec();
  if (results === null) throw new Error("the shuffle proof's read was aborted");
  for (const [error] of results) if (error) throw error;
  if (optionalNumber(results[0]![1] as string | null) !== publishedAt) return null;
  return results[1]![1] as string[];
}
