// The shuffle proof's algorithm pinned by a known answer computed apart from this code (Python's hashlib, from
// the steps docs/api.md gives), so a change to either is seen; and a proof that does not check is refused.
import { describe, expect, it } from "vitest";
import {
  ShuffleProofError,
  shuffleCommitment,
  shuffleListHash,
  shuffleOrder,
  verifyShuffleProof,
} from "../src/index.ts";

const seed = Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString("hex");
const tickets = [
  "tkt_01JD000000ZZZZZZZZZZZZZZZZ",
  "tkt_01JD000000AAAAAAAAAAAAAAAA",
  "tkt_01JD0000009999999999999999",
  "tkt_01JD000000MMMMMMMMMMMMMMMM",
];
const commitment = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";
const listHash = "31a1e3625d67e5c20d71c4da35336fb834792b9ac888b48a4b4c44121de8bce7";
const order = [
  "tkt_01JD000000AAAAAAAAAAAAAAAA",
  "tkt_01JD000000ZZZZZZZZZZZZZZZZ",
  "tkt_01JD000000MMMMMMMMMMMMMMMM",
  "tkt_01JD0000009999999999999999",
];

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ShuffleProofError);
    return (error as ShuffleProofError).code;
  }
  throw new Error("expected a ShuffleProofError");
};

describe("the shuffle proof", () => {
  it("gives the documented commitment, list hash and order, whatever order the list comes in", () => {
    expect(shuffleCommitment(seed)).toBe(commitment);
    expect(shuffleListHash(tickets)).toBe(listHash);
    expect(shuffleListHash([])).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(shuffleOrder({ seed, tickets })).toEqual(order);
    expect(shuffleOrder({ seed, tickets: [...tickets].reverse() })).toEqual(order);
    expect(verifyShuffleProof({ commitment, seed, tickets, listHash })).toEqual(order);
  });

  it("refuses a proof that does not check, naming why", () => {
    const otherSeed = `${seed.slice(0, -1)}0`;
    expect(refusal(() => verifyShuffleProof({ commitment, seed: null, tickets: null }))).toBe("not_revealed");
    expect(refusal(() => verifyShuffleProof({ commitment, seed: otherSeed, tickets }))).toBe(
      "commitment_mismatch",
    );
    expect(refusal(() => verifyShuffleProof({ commitment, seed: seed.toUpperCase(), tickets }))).toBe(
      "malformed_seed",
    );
    expect(refusal(() => verifyShuffleProof({ commitment, seed, tickets: [...tickets, tickets[0]!] }))).toBe(
      "malformed_tickets",
    );
    expect(refusal(() => verifyShuffleProof({ commitment, seed, tickets: tickets.slice(1), listHash }))).toBe(
      "list_hash_mismatch",
    );
  });
});
