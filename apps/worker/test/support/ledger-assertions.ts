// The exactly-once and wallet invariants, checked against a ledger read from the shards.
import type { OperationKind } from "@floodgate/domain";
import { bucketForUser, ShardMap } from "@floodgate/shard-router";
import { expect } from "vitest";
import type { Ledger } from "./ledger-reader.ts";

export interface AcceptedOperation {
  id: string;
  kind: OperationKind;
  userId: string;
  amount: number;
}

/** Every accepted id exactly once, on its user's shard, with the accepted kind, user and amount. */
export function expectEachAppliedOnce(ledger: Ledger, accepted: AcceptedOperation[], shardCount: number) {
  const map = ShardMap.contiguous(shardCount);
  const seen = new Map<string, number>();
  for (const op of ledger.operations) seen.set(op.id, (seen.get(op.id) ?? 0) + 1);
  const duplicated = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  expect(duplicated).toEqual([]);
  expect(ledger.operations.length).toBe(accepted.length);

  const byId = new Map(ledger.operations.map((op) => [op.id, op]));
  const missing = accepted.filter((a) => !byId.has(a.id)).map((a) => a.id);
  expect(missing).toEqual([]);
  const misplaced = accepted.filter((a) => {
    const row = byId.get(a.id)!;
    return (
      row.kind !== a.kind ||
      row.userId !== a.userId ||
      row.amount !== a.amount ||
      row.shard !== map.shardForBucket(bucketForUser(a.userId))
    );
  });
  expect(misplaced).toEqual([]);
}

/**
 * Per user and in total: balance == succeeded deposits - succeeded payments (+ a known opening balance),
 * no balance below zero, and a failed payment failed for lack of funds.
 */
export function expectWalletsBalance(ledger: Ledger, opening: ReadonlyMap<string, number> = new Map()) {
  const expected = new Map(opening);
  for (const op of ledger.operations) {
    if (op.status !== "succeeded") continue;
    const sign = op.kind === "deposit" ? 1 : -1;
    expected.set(op.userId, (expected.get(op.userId) ?? 0) + sign * op.amount);
  }
  const actual = new Map<string, number>();
  for (const wallet of ledger.wallets) {
    expect(actual.has(wallet.userId), `wallet ${wallet.userId} on two shards`).toBe(false);
    actual.set(wallet.userId, wallet.balance);
  }
  const wrong = [...new Set([...expected.keys(), ...actual.keys()])]
    .filter((user) => (expected.get(user) ?? 0) !== (actual.get(user) ?? 0))
    .map((user) => ({ user, expected: expected.get(user) ?? 0, actual: actual.get(user) ?? 0 }));
  expect(wrong).toEqual([]);
  const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
  expect(sum(actual.values())).toBe(sum(expected.values()));
  expect(ledger.wallets.filter((w) => w.balance < 0)).toEqual([]);

  const failed = ledger.operations.filter((op) => op.status === "failed");
  expect(failed.filter((op) => op.kind !== "payment" || op.failureReason !== "insufficient_funds")).toEqual(
    [],
  );
  expect(ledger.operations.filter((op) => op.status === "succeeded" && op.failureReason !== null)).toEqual(
    [],
  );
}
