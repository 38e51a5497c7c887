// The one statement that writes what a shard batch decided for its payments and deposits: their rows, the
// wallets' new balances and the operations' own events (the feed's, and the outbox's for subscribed types),
// as data-modifying CTEs of a single statement. Each was a statement of its own (insert per table, update,
// the events' insert): per shard batch a round trip each, and on this 2-core machine a round trip costs the
// worker a socket write it feels (the events' statement alone took 0.67 s of writev in a worker of a
// profiled flash sale). The counts come back in the one row: an insert that met an id already there, or a
// wallet that did not take its delta, aborts the whole transaction as before (retryable).
import type { ShardDatabase } from "@floodgate/db";
import { sql, type Transaction } from "kysely";
import { ConcurrentApplyError } from "../classify-error.ts";
import { ownEventRows, recordEventsCtes, type SubscribedTypes } from "../webhooks/event-recording.ts";
import type { MoneyDecision } from "./money-decisions.ts";
import { moneyRowsCte } from "./money-rows.ts";
import { balanceDeltas, balanceUpdateCte } from "./wallet-ledger.ts";

interface Written {
  deposits: number;
  payments: number;
  wallets: number;
}

/** Returns the statements sent (0 when nothing was decided, else 1). */
export async function writeMoneyDecisions(
  trx: Transaction<ShardDatabase>,
  decisions: MoneyDecision[],
  subscribed: SubscribedTypes,
): Promise<number> {
  if (decisions.length === 0) return 0;
  const deposits = moneyRowsCte("deposit", decisions);
  const payments = moneyRowsCte("payment", decisions);
  const changed = balanceDeltas(decisions);
  const events = ownEventRows(decisions, Date.now());
  const ctes = [
    deposits,
    payments,
    changed.length > 0 ? balanceUpdateCte(changed) : null,
    events.length > 0 ? recordEventsCtes(events, subscribed) : null,
  ].filter((cte) => cte !== null);
  const count = (name: string, present: boolean) =>
    present ? sql`(select count(*) from ${sql.raw(name)})::int` : sql`0`;
  const written = await sql<Written>`
    with ${sql.join(ctes)}
    select ${count("deposits_rows", deposits !== null)} as deposits,
           ${count("payments_rows", payments !== null)} as payments,
           ${count("wallet_rows", changed.length > 0)} as wallets`.execute(trx);
  const row = written.rows[0]!;
  for (const [kind, got] of [
    ["deposit", row.deposits],
    ["payment", row.payments],
  ] as const) {
    const wanted = decisions.filter((d) => d.message.kind === kind).length;
    if (got !== wanted) throw new ConcurrentApplyError(`${wanted - got} ${kind} ids already present`);
  }
  if (row.wallets !== changed.length) throw new ConcurrentApplyError("a wallet changed under its lock");
  return 1;
}
