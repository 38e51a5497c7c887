// The rooms' shuffle proofs as GET /v1/rooms/:roomId/shuffle-proof answers them. The route is public and a
// published list can hold 100,000 ids: each request reads the proof's few fields (one MULTI), and the list only
// when this process has not kept it for that proof yet (a published proof never changes; a new start publishes
// another, with another publishedAt).
import {
  type AdmissionKeys,
  readShuffleProof,
  readShuffleProofTickets,
  type ShuffleProofReading,
} from "@floodgate/admission";
import type { ShuffleProofResponse } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-connections";

/** Rooms whose published list this process keeps (the most recently read). */
const KEPT_LISTS = 16;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export class ShuffleProofs {
  readonly #redis: ScriptedRedis;
  readonly #keys: AdmissionKeys;
  readonly #lists = new Map<string, { publishedAt: number; tickets: string[] }>();

  constructor(redis: ScriptedRedis, keys: AdmissionKeys) {
    this.#redis = redis;
    this.#keys = keys;
  }

  /** The room's proof, or null when it has none (never scheduled). */
  async read(roomId: string): Promise<ShuffleProofResponse | null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const proof = await readShuffleProof(this.#redis, this.#keys, roomId);
      if (proof === null) return null;
      if (proof.publishedAt === null) return view(roomId, proof, null);
      const tickets = await this.#tickets(roomId, proof.publishedAt);
      if (tickets !== null) return view(roomId, proof, tickets);
      // Another start published a proof between the two reads: read it again.
    }
    throw new Error(`the shuffle proof of room ${roomId} kept changing while read`);
  }

  async #tickets(roomId: string, publishedAt: number): Promise<string[] | null> {
    const kept = this.#lists.get(roomId);
    if (kept?.publishedAt === publishedAt) return kept.tickets;
    const tickets = await readShuffleProofTickets(this.#redis, this.#keys, roomId, publishedAt);
    if (tickets === null) return null;
    this.#lists.delete(roomId);
    this.#lists.set(roomId, { publishedAt, tickets });
    if (this.#lists.size > KEPT_LISTS) this.#lists.delete(this.#lists.keys().next().value!);
    return tickets;
  }
}

function view(roomId: string, proof: ShuffleProofReading, tickets: string[] | null): ShuffleProofResponse {
  return {
    roomId,
    status: proof.status,
    commitment: proof.commitment,
    committedAt: new Date(proof.committedAt).toISOString(),
    closedAt: iso(proof.closedAt),
    seed: proof.seed,
    listHash: proof.listHash,
    tickets,
  };
}
