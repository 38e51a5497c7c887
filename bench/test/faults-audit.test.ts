import { parseOperationId } from "@floodgate/domain";
import { describe, expect, it } from "vitest";
import { auditFault, type PaymentRow } from "../src/faults/fault-audit.ts";
import { providerFailures, redisSettingOf, verdict } from "../src/faults/faults-summary.ts";
import { chargePlan } from "../src/faults/provider-order-client.ts";
import type { KeyRecord } from "../src/faults/shop-client.ts";

const key = (seq: number, ids: string[], userId = `u${seq}`): KeyRecord => ({
  seq,
  userId,
  firstMs: 0,
  attempts: 1,
  ids,
  final: ids.length > 0 ? 202 : 503,
  accepted: ids.length > 0,
  acceptedMs: ids.length > 0 ? 1 : null,
});

const row = (amount: number, id: string, userId = `u${amount}`, status = "succeeded"): PaymentRow => ({
  id,
  userId,
  amount,
  status,
});

describe("auditFault", () => {
  it("finds every accepted key applied exactly once", () => {
    const audit = auditFault([key(1, ["p1"]), key(2, ["p2"])], [row(1, "p1"), row(2, "p2", "u2", "failed")]);
    expect(audit).toMatchObject({ keys: 2, accepted: 2, lost: 0, appliedTwice: 0, succeeded: 1, failed: 1 });
  });

  it("counts a 202 without a row as lost, with the key as an example", () => {
    const audit = auditFault([key(1, ["p1"]), key(2, ["p2"])], [row(1, "p1")]);
    expect(audit.lost).toBe(1);
    expect(audit.examples.lost).toEqual([2]);
  });

  it("counts two rows for one key as applied twice, and the row no answer named", () => {
    const audit = auditFault([key(7, ["p7"])], [row(7, "p7"), row(7, "p7-again")]);
    expect(audit.appliedTwice).toBe(1);
    expect(audit.rowsWithUnansweredId).toBe(1);
    expect(audit.examples.appliedTwice).toEqual([7]);
    // Each row with the time its id was minted (-1: not an operation id), beside the ids the answers named.
    const minted = "pay_01M8K051YD0C3DHNZGFM9PDTPW";
    const detailed = auditFault([key(8, [minted])], [row(8, minted), row(8, "p8-again")]);
    expect(detailed.appliedTwiceRows).toEqual([
      {
        seq: 8,
        attempts: 1,
        answered: [minted],
        rows: [
          { id: minted, mintedMs: parseOperationId(minted)!.createdAtMs },
          { id: "p8-again", mintedMs: -1 },
        ],
      },
    ]);
  });

  it("reports a payment applied without a 202 as legal, not lost", () => {
    const audit = auditFault([key(3, [])], [row(3, "p3")]);
    expect(audit).toMatchObject({ accepted: 0, lost: 0, appliedWithoutAnswer: 1, appliedTwice: 0 });
  });

  it("notices keys answered with two ids and rows of another user or no key", () => {
    const audit = auditFault([key(4, ["a", "b"])], [row(4, "a"), row(4, "x", "someone-else"), row(99, "z")]);
    expect(audit.keysWithTwoIds).toBe(1);
    expect(audit.foreignRows).toBe(2);
    expect(audit.appliedTwice).toBe(0);
  });
});

describe("verdict", () => {
  const result = (name: string, lost: number, appliedTwice: number, holds = true) =>
    ({ name, lost, appliedTwice, walletInvariant: { holds, difference: holds ? 0 : 5 } }) as never;

  it("fails a loss under appendfsync always and accepts one measured without persistence", () => {
    expect(redisSettingOf("shard-stopped")).toBe("always");
    expect(verdict([result("redis-restart-none", 12, 0), result("redis-restart-everysec", 0, 0)])).toBeNull();
    expect(verdict([result("shard-frozen", 1, 0)])).toContain("shard-frozen");
    expect(verdict([result("worker-kill", 0, 1)])).toContain("worker-kill");
  });

  it("fails a wallet that does not add up, whatever the setting", () => {
    expect(verdict([result("redis-restart-none", 0, 0, false)])).toContain("off by 5");
  });

  it("counts the losses of a fault named in lossCounted (a failover without WAIT), but never a payment twice", () => {
    const counted = new Set(["hosts-cluster-master-partition"]);
    expect(verdict([result("hosts-cluster-master-partition", 3, 0)], counted)).toBeNull();
    expect(verdict([result("hosts-cluster-master-partition", 3, 0)])).toContain("lost 3");
    expect(verdict([result("hosts-cluster-master-partition", 0, 1)], counted)).toContain("twice 1");
    expect(verdict([result("hosts-shard-partition", 1, 0)], counted)).toContain("hosts-shard-partition");
  });
});

describe("provider-paid orders in the verdict", () => {
  const withProvider = (name: string, audit: Record<string, unknown>, stockHolds = true) =>
    ({
      name,
      lost: 0,
      appliedTwice: 0,
      walletInvariant: { holds: true, difference: 0 },
      providerPayments: {
        audit: {
          lost: 0,
          appliedTwice: 0,
          paidNotRecorded: 0,
          orphanedWithoutEvent: 0,
          walletPayments: 0,
          examples: { lost: [], appliedTwice: [], paidNotRecorded: [], orphanedWithoutEvent: [] },
          ...audit,
        },
        stock: { postgresHolds: stockHolds, received: 1, stock: 1, liveOrderUnits: 0, ledgerUnits: 0 },
        stockError: null,
      },
    }) as never;

  it("passes clean provider payments and fails one lost or applied twice under appendfsync always", () => {
    expect(verdict([withProvider("worker-kill", {})])).toBeNull();
    expect(verdict([withProvider("worker-kill", { lost: 1 })])).toContain("1 provider payments lost");
    expect(verdict([withProvider("shard-frozen", { appliedTwice: 2 })])).toContain(
      "2 provider payments applied twice",
    );
    expect(providerFailures(withProvider("redis-restart-none", { lost: 3 }))).toEqual([]);
  });

  it("fails a half-applied charge, an orphan without its event, a wallet moved or stock off, whatever the setting", () => {
    expect(providerFailures(withProvider("redis-restart-none", { paidNotRecorded: 1 }))).toHaveLength(1);
    expect(providerFailures(withProvider("worker-kill", { orphanedWithoutEvent: 1 }))).toHaveLength(1);
    expect(providerFailures(withProvider("worker-kill", { walletPayments: 1 }))).toHaveLength(1);
    expect(verdict([withProvider("worker-kill", {}, false)])).toContain("stock does not add up");
  });

  it("plans every kind of charge within each twenty orders", () => {
    const plans = Array.from({ length: 20 }, (_, n) => chargePlan(n));
    expect(new Set(plans)).toEqual(
      new Set(["unpaid", "exact", "same-reference-twice", "second-reference", "wrong-amount"]),
    );
    expect(plans.filter((plan) => plan === "unpaid")).toHaveLength(4);
  });
});
