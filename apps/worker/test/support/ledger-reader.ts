// Reads what the shards hold, straight from each shard database (never through the code under test).
import { createKysely, type ShardDatabase } from "@floodgate/db";
import type { OperationKind } from "@floodgate/domain";
import type { Kysely } from "kysely";

export interface LedgerOperation {
  shard: number;
  kind: OperationKind;
  id: string;
  userId: string;
  amount: number;
  status: "succeeded" | "failed";
  failureReason: string | null;
}

export interface LedgerWallet {
  shard: number;
  userId: string;
  balance: number;
}

export interface Ledger {
  operations: LedgerOperation[];
  wallets: LedgerWallet[];
}

export class LedgerReader {
  readonly shards: Kysely<ShardDatabase>[];

  constructor(shardUrls: string[]) {
    this.shards = shardUrls.map((url) =>
      createKysely<ShardDatabase>(url, { max: 1, applicationName: "test-ledger" }),
    );
  }

  async read(): Promise<Ledger> {
    const perShard = await Promise.all(
      this.shards.map(async (db, shard) => {
        const columns = ["id", "user_id", "amount", "status", "failure_reason"] as const;
        const [payments, deposits, wallets] = await Promise.all([
          db.selectFrom("payments").select(columns).execute(),
          db.selectFrom("deposits").select(columns).execute(),
          db.selectFrom("wallets").select(["user_id", "balance"]).execute(),
        ]);
        const toOperation = (kind: OperationKind) => (row: (typeof payments)[number]) => ({
          shard,
          kind,
          id: row.id,
          userId: row.user_id,
          amount: row.amount,
          status: row.status,
          failureReason: row.failure_reason,
        });
        return {
          operations: [...payments.map(toOperation("payment")), ...deposits.map(toOperation("deposit"))],
          wallets: wallets.map((row) => ({ shard, userId: row.user_id, balance: row.balance })),
        };
      }),
    );
    return {
      operations: perShard.flatMap((s) => s.operations),
      wallets: perShard.flatMap((s) => s.wallets),
    };
  }

  /** Payments and deposits per shard. */
  async countPerShard(): Promise<number[]> {
    return Promise.all(
      this.shards.map(async (db) => {
        const [payments, deposits] = await Promise.all([
          db
            .selectFrom("payments")
            .select((eb) => eb.fn.countAll<string>().as("n"))
            .executeTakeFirstOrThrow(),
          db
            .selectFrom("deposits")
            .select((eb) => eb.fn.countAll<string>().as("n"))
            .executeTakeFirstOrThrow(),
        ]);
        return Number(payments.n) + Number(deposits.n);
      }),
    );
  }

  async count(): Promise<number> {
    return (await this.countPerShard()).reduce((a, b) => a + b, 0);
  }

  /** Which of these operation ids some shard holds. */
  async presentIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const found = await Promise.all(
      this.shards.map(async (db) => [
        ...(await db.selectFrom("payments").select("id").where("id", "in", ids).execute()),
        ...(await db.selectFrom("deposits").select("id").where("id", "in", ids).execute()),
      ]),
    );
    return new Set(found.flat().map((row) => row.id));
  }

  async close(): Promise<void> {
    await Promise.all(this.shards.map((db) => db.destroy()));
  }
}
