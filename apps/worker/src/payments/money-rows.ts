// The payments and deposits tables of a shard: ids already applied looked up, decisions inserted. The primary
// key makes a second apply of an id impossible; an insert that meets one aborts the batch (retryable).
import type { ShardDatabase } from "@floodgate/db";
import type { FailureReason, MoneyOperationMessage } from "@floodgate/domain";
import type { FinalStatus } from "@floodgate/queue";
import { type RawBuilder, sql, type Transaction } from "kysely";
import type { MoneyDecision } from "./money-decisions.ts";

/** An operation already on the shard: its recorded outcome, reported again to a redelivery. */
export interface AppliedRow {
  id: string;
  status: FinalStatus["status"];
  failure_reason: FailureReason | null;
  completed_at: Date;
}

export async function findApplied(
  trx: Transaction<ShardDatabase>,
  suspects: MoneyOperationMessage[],
): Promise<AppliedRow[]> {
  const paymentIds = suspects.filter((m) => m.kind === "payment").map((m) => m.id);
  const depositIds = suspects.filter((m) => m.kind === "deposit").map((m) => m.id);
  const found = await sql<AppliedRow>`
    select id, status, failure_reason, completed_at from payments where id = any(${paymentIds}::text[])
    union all
    select id, status, failure_reason, completed_at from deposits where id = any(${depositIds}::text[])`.execute(
    trx,
  );
  return found.rows;
}

/** The CTE that inserts one table's new rows (`kind`: deposits or payments), returning one row per insert;
 * null when the batch decided none of that kind. Named `<table>_rows` in the money statement (money-write.ts). */
export function moneyRowsCte(
  kind: MoneyOperationMessage["kind"],
  decisions: MoneyDecision[],
): RawBuilder<unknown> | null {
  const rows = decisions.filter((d) => d.message.kind === kind);
  if (rows.length === 0) return null;
  const table = kind === "deposit" ? "deposits" : "payments";
  return sql`${sql.raw(`${table}_rows`)} as (
      insert into ${sql.table(table)} (id, user_id, amount, currency, status, failure_reason, created_at, completed_at${kind === "payment" ? sql`, order_id` : sql``})
      select id, user_id, amount, currency, status, failure_reason, to_timestamp(created_ms / 1000.0), clock_timestamp()${kind === "payment" ? sql`, order_id` : sql``}
      from unnest(${rows.map((d) => d.message.id)}::text[], ${rows.map((d) => d.message.userId)}::text[],
                  ${rows.map((d) => d.message.amount)}::bigint[], ${rows.map((d) => d.message.currency)}::text[],
                  ${rows.map((d) => d.status)}::text[], ${rows.map((d) => d.failureReason ?? null)}::text[],
                  ${rows.map((d) => d.message.createdAt)}::float8[], ${rows.map((d) => d.message.orderId ?? null)}::text[])
        as v(id, user_id, amount, currency, status, failure_reason, created_ms, order_id)
      on conflict (id) do nothing
      returning 1
    )`;
}
