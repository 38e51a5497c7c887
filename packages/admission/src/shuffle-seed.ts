// A pre-queue's secret seed and its public commitment (SHA-256 of the seed's bytes, as @floodgate/node checks
// it). Minted when a room is scheduled (room-definition.ts), revealed with the order once the start has closed
// the pre-queue's list (pre-queue-order.ts).
import { randomBytes } from "node:crypto";
import { shuffleCommitment } from "@floodgate/node";

export interface ShuffleSeed {
  /** 32 random bytes, hex. */
  seed: string;
  /** hex SHA-256 of the seed's bytes. */
  commitment: string;
  /** Epoch ms: when the commitment was made. */
  committedAt: number;
}

export function newShuffleSeed(nowMs = Date.now()): ShuffleSeed {
  const seed = randomBytes(32).toString("hex");
  return { seed, commitment: shuffleCommitment(seed), committedAt: nowMs };
}
