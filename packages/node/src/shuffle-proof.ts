// A waiting room's pre-queue order, recomputed from its proof (GET /v1/rooms/:roomId/shuffle-proof). Floodgate's
// admission leader orders a room's pre-queue with shuffleKeyer and byShuffleKey from this very file (a slice of
// keys at a time, pre-queue-order.ts), so the server and anyone checking it cannot drift apart. The algorithm, for re-implementing it elsewhere (docs/api.md says the same):
//   1. seed: 32 bytes, published as 64 lowercase hex characters; commitment = hex(SHA-256(seed bytes)),
//      published when the room is scheduled, the seed itself only after the pre-queue's list is closed;
//   2. tickets sorted ascending by id (ids are ASCII: plain byte order); listHash = SHA-256 of the ids joined
//      by "\n" (no trailing newline; an empty list hashes the empty string);
//   3. each ticket's key = SHA-256(seed bytes || listHash bytes || ticket id bytes);
//   4. the order: tickets by key ascending (byte order), ties (never seen) by ticket id.
import { createHash } from "node:crypto";

export interface ShuffleProof {
  /** hex SHA-256 of the seed's 32 bytes, published before the start. */
  commitment: string;
  /** The seed's 32 bytes in hex; null until the room's start closed its pre-queue. */
  seed: string | null;
  /** The closed pre-queue's ticket ids; null until the start. */
  tickets: readonly string[] | null;
  /** hex SHA-256 of the sorted ids joined by "\n", when the proof carries it (checked if present). */
  listHash?: string | null;
}

export type ShuffleProofErrorCode =
  | "not_revealed"
  | "malformed_seed"
  | "commitment_mismatch"
  | "malformed_tickets"
  | "list_hash_mismatch";

/** Why a proof does not check; `code` is for programs, the message for people. */
export class ShuffleProofError extends Error {
  readonly code: ShuffleProofErrorCode;
  constructor(code: ShuffleProofErrorCode, message: string) {
    super(message);
    this.name = "ShuffleProofError";
    this.code = code;
  }
}

const SEED = /^[0-9a-f]{64}$/;

const sha256 = (...parts: (Buffer | string)[]): Buffer => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest();
};

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Orders keyed tickets as step 4 says: by key (hex, so byte order), ties by ticket id. */
export const byShuffleKey = (
  a: { ticketId: string; key: string },
  b: { ticketId: string; key: string },
): number => byCodeUnits(a.key, b.key) || byCodeUnits(a.ticketId, b.ticketId);

function seedBytes(seed: string): Buffer {
  if (!SEED.test(seed)) {
    throw new ShuffleProofError("malformed_seed", "the seed must be 64 lowercase hex characters (32 bytes)");
  }
  return Buffer.from(seed, "hex");
}

/** hex SHA-256 of the seed's bytes: what a room publishes before its start. */
export function shuffleCommitment(seed: string): string {
  return sha256(seedBytes(seed)).toString("hex");
}

/** hex SHA-256 of the ticket ids, sorted, joined by "\n". */
export function shuffleListHash(tickets: readonly string[]): string {
  return sha256([...tickets].sort(byCodeUnits).join("\n")).toString("hex");
}

/**
 * A ticket's shuffle key, hex SHA-256(seed || listHash || ticketId), for the seed and list hash in hex. The
 * returned function keys the tickets of one list (the seed and hash decoded once).
 */
export function shuffleKeyer(seed: string, listHash: string): (ticketId: string) => string {
  const prefix = Buffer.concat([seedBytes(seed), Buffer.from(listHash, "hex")]);
  return (ticketId) => sha256(prefix, ticketId).toString("hex");
}

/** The admission order of a closed pre-queue: its tickets sorted by SHA-256(seed || listHash || ticketId). */
export function shuffleOrder({ seed, tickets }: { seed: string; tickets: readonly string[] }): string[] {
  const key = shuffleKeyer(seed, shuffleListHash(tickets));
  const keyed = tickets.map((ticketId) => ({ ticketId, key: key(ticketId) }));
  keyed.sort(byShuffleKey);
  return keyed.map(({ ticketId }) => ticketId);
}

/**
 * Checks a revealed proof (the seed matches the commitment published before the start; the list is a list of
 * distinct ids, and matches listHash when the proof carries it) and returns the order the room admitted its
 * pre-queue in. Tickets that were abandoned or revoked before their turn keep their place in this order and
 * are skipped. Throws ShuffleProofError otherwise.
 */
export function verifyShuffleProof(proof: ShuffleProof): string[] {
  if (proof.seed === null || proof.tickets === null) {
    throw new ShuffleProofError("not_revealed", "the room has not started yet: only its commitment is known");
  }
  if (shuffleCommitment(proof.seed) !== proof.commitment) {
    throw new ShuffleProofError("commitment_mismatch", "SHA-256 of the seed is not the published commitment");
  }
  const tickets = proof.tickets;
  if (!tickets.every((id) => typeof id === "string" && id !== "" && !id.includes("\n"))) {
    throw new ShuffleProofError(
      "malformed_tickets",
      "every ticket id must be a non-empty string on one line",
    );
  }
  if (new Set(tickets).size !== tickets.length) {
    throw new ShuffleProofError("malformed_tickets", "a ticket id appears twice in the list");
  }
  if (proof.listHash != null && shuffleListHash(tickets) !== proof.listHash) {
    throw new ShuffleProofError(
      "list_hash_mismatch",
      "the ticket list does not hash to the proof's listHash",
    );
  }
  return shuffleOrder({ seed: proof.seed, tickets });
}
