// Gives every bench user money through the deposits API before payments start, so a payment only fails if
// the system under test is wrong. Deposits are the shop server's (its API key): a shopper may not deposit. Deposits carry no idempotency key: users are re-funded only if they have
// no money after the previous pass, and a double deposit is harmless here.
import { waitForApplied } from "../audits/applied-wait.ts";
import type { ShardSet } from "../audits/shard-set.ts";
import type { BenchIdentity } from "./bench-identity.ts";
import { runLoad } from "./load-runner.ts";
import { benchUserId, depositRequest } from "./payment-requests.ts";
import { log } from "./progress-line.ts";

const MAX_PASSES = 3;

export interface FundingResult {
  users: number;
  deposits: number;
  passes: number;
  /** Seconds from the first deposit request to the last wallet funded. */
  seconds: number;
  depositRate: number;
}

export async function fundWallets(options: {
  baseUrl: string;
  shards: ShardSet;
  users: number;
  connections: number;
  identity: BenchIdentity;
}): Promise<FundingResult> {
  const started = Date.now();
  let pending = Array.from({ length: options.users }, (_, i) => benchUserId(i));
  let deposits = 0;
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    const since = new Date();
    const load = await runLoad({
      label: `funding ${pending.length} wallets (pass ${pass})`,
      url: options.baseUrl,
      connections: Math.min(options.connections, 50),
      rate: null,
      amount: pending.length,
      request: depositRequest({ userIds: pending, identity: options.identity }),
    });
    deposits += load.ok;
    const wait = await waitForApplied({
      label: "funding applied",
      shards: options.shards,
      table: "deposits",
      since,
      target: load.ok,
      timeoutMs: 120_000 + load.ok,
    });
    const funded = await options.shards.walletUserIds();
    pending = pending.filter((userId) => !funded.has(userId));
    if (pending.length === 0) {
      const seconds = (Date.now() - started) / 1000;
      return {
        users: options.users,
        deposits,
        passes: pass,
        seconds,
        depositRate: Math.round(deposits / seconds),
      };
    }
    const statuses = JSON.stringify(load.statusCounts);
    log(
      `${pending.length} wallets still unfunded after pass ${pass} (statuses ${statuses}, applied ${wait.applied})`,
    );
  }
  throw new Error(`could not fund ${pending.length} of ${options.users} wallets in ${MAX_PASSES} passes`);
}
