// The fault suite's wallet invariant, read from real shards: orders paid at the shop's payment provider move no
// wallet, so they stay out of deposits - payments - balances (which still holds) and are counted apart.
import { createKysely, type ShardDatabase } from "@floodgate/db";
import { newOperationId } from "@floodgate/domain";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LedgerReads } from "../src/faults/ledger-reads.ts";

let env: TestEnvironment;
type Shard = ReturnType<typeof createKysely<ShardDatabase>>;
let shards: Shard[];
let ledger: LedgerReads;

beforeAll(async () => {
  env = await createTestEnvironment("bench-ledger-reads", { shards: 2 });
  shards = env.config.shardUrls.map((url) => createKysely<ShardDatabase>(url, { max: 1 }));
  ledger = new LedgerReads(env.config.shardUrls);
});

afterAll(async () => {
  await ledger?.close();
  await Promise.all((shards ?? []).map((db) => db.destroy()));
  await env?.cleanup();
});

const provider = (id: string, orderId: string, reference: string, duplicateOf: string | null = null) => ({
  id,
  order_id: orderId,
  user_id: "pp-user",
  provider: "stripe",
  reference,
  amount: 700,
  currency: "KRW",
  status: "succeeded" as const,
  failure_reason: null,
  duplicate_of: duplicateOf,
  created_at: new Date(),
});

describe("the wallet invariant with provider-paid orders mixed in", () => {
  it("holds, and counts the provider-paid orders and their charges apart (a repeated charge once)", async () => {
    const [first, second] = shards as [Shard, Shard];
    await first.insertInto("wallets").values({ user_id: "w-user", balance: 400 }).execute();
    await first
      .insertInto("deposits")
      .values({
        id: newOperationId("deposit", 1),
        user_id: "w-user",
        amount: 1_000,
        currency: "KRW",
        status: "succeeded",
        failure_reason: null,
        created_at: new Date(),
      })
      .execute();
    await first
      .insertInto("payments")
      .values({
        id: newOperationId("payment", 1),
        user_id: "w-user",
        amount: 600,
        currency: "KRW",
        status: "succeeded",
        failure_reason: null,
        order_id: null,
        created_at: new Date(),
      })
      .execute();
    const charged = newOperationId("provider_payment", 1);
    await first
      .insertInto("provider_payments")
      .values([
        provider(charged, newOperationId("order", 1), "pi_1"),
        provider(newOperationId("provider_payment", 1), newOperationId("order", 1), "pi_1", charged),
      ])
      .execute();
    await second
      .insertInto("provider_payments")
      .values(provider(newOperationId("provider_payment", 900), newOperationId("order", 900), "pi_2"))
      .execute();

    expect(await ledger.walletInvariant()).toEqual({
      deposits: 1_000,
      succeededPayments: 600,
      balances: 400,
      difference: 0,
      holds: true,
      providerPaidOrders: 2,
      providerPaid: 1_400,
    });
  });
});
