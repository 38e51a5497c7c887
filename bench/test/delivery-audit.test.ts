import { describe, expect, it } from "vitest";
import { type AppliedRow, auditDelivery } from "../src/audits/delivery-audit.ts";

const row = (
  id: string,
  shard: number,
  createdMs: number,
  completedMs: number,
  status = "succeeded",
): AppliedRow => ({
  id,
  shard,
  status,
  createdMs,
  completedMs,
});

describe("auditDelivery", () => {
  it("confirms every accepted id applied once and measures end to end", () => {
    const audit = auditDelivery(
      ["a", "b", "c"],
      [row("a", 0, 1000, 1010), row("b", 1, 1005, 1030), row("c", 2, 1020, 1100, "failed")],
    );
    expect(audit).toMatchObject({
      accepted: 3,
      rows: 3,
      appliedOnce: 3,
      missing: 0,
      duplicated: 0,
      unconfirmedRows: 0,
      exactlyOnce: true,
      succeeded: 2,
      failed: 1,
      lastAcceptToLastAppliedMs: 80, // 1100 - 1020
      firstAppliedMs: 1010,
      lastAppliedMs: 1100,
    });
    expect(audit.endToEndMs).toMatchObject({ count: 3, p50: 25, max: 80 });
  });

  it("flags missing ids, an id on two shards, an id returned twice, and rows nobody confirmed", () => {
    const audit = auditDelivery(
      ["a", "b", "c", "c"],
      [row("a", 0, 0, 1), row("a", 3, 0, 2), row("b", 1, 0, 1), row("z", 2, 0, 1)],
    );
    expect(audit).toMatchObject({
      accepted: 4,
      appliedOnce: 1,
      missing: 1,
      duplicated: 1,
      duplicateAcceptedIds: 1,
      unconfirmedRows: 1,
      exactlyOnce: false,
    });
  });

  it("has no latencies when nothing was applied", () => {
    const audit = auditDelivery(["a"], []);
    expect(audit).toMatchObject({
      missing: 1,
      exactlyOnce: false,
      endToEndMs: null,
      lastAcceptToLastAppliedMs: null,
    });
  });
});
