// Coupon issues applied to a real shard, alone and in one transaction with payments: a redelivery is
// recognised by its id and records nothing twice; a second issue to the same holder fails.
import { createKysely, type ShardDatabase } from "@floodgate/db";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyShardBatch } from "../src/apply-shard-batch.ts";
import { operationMessage } from "./support/accept-operations.ts";
import { couponIssueMessage } from "./support/coupon-client.ts";

let env: TestEnvironment;
let db: Kysely<ShardDatabase>;

beforeAll(async () => {
  env = await createTestEnvironment("apply-coupon-issues", { shards: 1 });
  db = createKysely<ShardDatabase>(env.config.shardUrls[0]!, { max: 4 });
});

afterAll(async () => {
  await db?.destroy();
  await env?.cleanup();
});

const issuedRows = () => db.selectFrom("issued_coupons").selectAll().orderBy("id").execute();
const byId = (statuses: { id: string; status: string; failureReason?: string }[]) =>
  Object.fromEntries(statuses.map((s) => [s.id, [s.status, s.failureReason]]));

describe("applyShardBatch with coupon issues", () => {
  it("records each issue once; a redelivered batch inserts nothing and reports the same statuses", async () => {
    const messages = ["cr-a", "cr-b", "cr-c"].map((user) => couponIssueMessage(user));
    const first = await applyShardBatch(db, messages);
    expect(byId(first.statuses)).toEqual(
      Object.fromEntries(messages.map((m) => [m.id, ["succeeded", undefined]])),
    );
    expect(first.applied).toHaveLength(3);
    expect(first.redelivered).toBe(0);
    const rows = await issuedRows();
    expect(rows).toHaveLength(3);
    for (const m of messages) {
      expect(rows.find((r) => r.id === m.id)).toMatchObject({
        coupon_id: m.couponId,
        user_id: m.userId,
        status: "issued",
        used_at: null,
      });
      expect(rows.find((r) => r.id === m.id)!.created_at.getTime()).toBe(m.createdAt);
    }

    const second = await applyShardBatch(db, messages);
    expect(second.applied).toEqual([]);
    expect(second.redelivered).toBe(3);
    expect(await issuedRows()).toEqual(rows);
    expect(byId(second.statuses)).toEqual(byId(first.statuses));
    // The redelivery reports the first commit's time, not its own.
    for (const status of second.statuses) {
      expect(status.completedAt).toBe(rows.find((r) => r.id === status.id)!.completed_at.getTime());
    }
  });

  it("applies the same id once when it appears twice in one batch", async () => {
    const message = couponIssueMessage("cr-dup");
    const result = await applyShardBatch(db, [message, message]);
    expect(result.applied).toHaveLength(1);
    expect((await issuedRows()).filter((r) => r.id === message.id)).toHaveLength(1);
  });

  it("fails a second issue of the same coupon to the same user with already_issued, keeping the first", async () => {
    const original = couponIssueMessage("cr-holder");
    await applyShardBatch(db, [original]);
    const another = { ...couponIssueMessage("cr-holder", original.couponId) };
    const result = await applyShardBatch(db, [another]);
    expect(byId(result.statuses)).toEqual({ [another.id]: ["failed", "already_issued"] });
    const rows = (await issuedRows()).filter((r) => r.coupon_id === original.couponId);
    expect(rows.map((r) => r.id)).toEqual([original.id]);
  });

  it("applies payments, deposits and coupon issues of one batch in one transaction", async () => {
    const deposit = operationMessage({ kind: "deposit", userId: "cr-mixed", amount: 500 });
    const payment = operationMessage({ kind: "payment", userId: "cr-mixed", amount: 200 });
    const coupon = couponIssueMessage("cr-mixed");
    const result = await applyShardBatch(db, [deposit, coupon, payment]);
    expect(byId(result.statuses)).toEqual({
      [deposit.id]: ["succeeded", undefined],
      [payment.id]: ["succeeded", undefined],
      [coupon.id]: ["succeeded", undefined],
    });
    const wallet = await db
      .selectFrom("wallets")
      .select("balance")
      .where("user_id", "=", "cr-mixed")
      .executeTakeFirst();
    expect(wallet?.balance).toBe(300);
    expect((await issuedRows()).filter((r) => r.id === coupon.id)).toHaveLength(1);

    const again = await applyShardBatch(db, [deposit, coupon, payment]);
    expect(again.redelivered).toBe(3);
    expect(
      (await db.selectFrom("wallets").select("balance").where("user_id", "=", "cr-mixed").executeTakeFirst())
        ?.balance,
    ).toBe(300);
  });

  it("touches no wallet for a batch of coupon issues only", async () => {
    await applyShardBatch(db, [couponIssueMessage("cr-no-wallet")]);
    const wallet = await db
      .selectFrom("wallets")
      .selectAll()
      .where("user_id", "=", "cr-no-wallet")
      .executeTakeFirst();
    expect(wallet).toBeUndefined();
  });

  it("records each issue once when two workers apply the same batch at the same time", async () => {
    const messages = Array.from({ length: 40 }, (_, i) => couponIssueMessage(`cr-race-${i % 20}`));
    const before = (await issuedRows()).length;
    const outcomes = await Promise.all([
      applyShardBatch(db, messages),
      applyShardBatch(db, [...messages].reverse()),
    ]);
    expect(outcomes[0].applied.length + outcomes[1].applied.length).toBe(40);
    expect(outcomes[0].redelivered + outcomes[1].redelivered).toBe(40);
    expect((await issuedRows()).length).toBe(before + 40);
  });
});
