// The fd counts the suite compares: taken after a warm-up (what every probe's requests open once and keep, such
// as caches and Redis connections, is open at the start) and once the Postgres pools have idled out (30 s), and
// at the end after a settle wait that gives closing sockets and idle pool connections the same time to go.
import { eachLimited } from "./bounded-lanes.ts";
import type { HostileTarget } from "./hostile-target.ts";
import { type FdCensus, fdCensus, processAlive } from "./intake-fd-census.ts";
import { rawExchange, requestHead } from "./raw-http-exchange.ts";

export type ProcessCensus = FdCensus;

/** Longer than the Postgres pools' idle timeout (packages/db create-database.ts: 30 s). */
const SETTLE_MAX_MS = 45_000;
const SETTLE_POLL_MS = 2000;
/**
 * The start's count waits out the pools' idle timeout too: the warm-up's (and /readyz's) Postgres connections
 * are closed by then, as they are at the end, so both counts are of the same resting process and a small
 * tolerance means something.
 */
const START_PAUSE_MS = 35_000;

/** Reads every route family the probes reach, on fresh connections so each intake process gets some. */
export async function warmUp(t: HostileTarget): Promise<void> {
  const reads = [
    ["GET", `/v1/payments/${t.operationId}`, t.serverAuthorization],
    ["GET", `/v1/wallets/${t.userId}`, t.serverAuthorization],
    ["GET", "/v1/orders/ord_00000000000000000000000000", t.customerAuthorization],
    ["GET", `/v1/users/${t.userId}/coupons`, t.customerAuthorization],
    ["GET", "/metrics", ""],
  ] as const;
  const rounds = Array.from({ length: 8 }, () => reads).flat();
  await eachLimited(rounds, 4, async ([method, path, authorization]) => {
    await rawExchange({
      host: t.host,
      port: t.port,
      head: requestHead(method, path, [
        ["Host", `${t.host}:${t.port}`],
        ...(authorization ? [["Authorization", authorization] as [string, string]] : []),
        ["Connection", "close"],
      ]),
      timeoutMs: 10_000,
    });
  });
}

/**
 * Each live pid's census. With no criteria, after START_PAUSE_MS; with them,
 * polled until no process holds a socket for a gone client and each has its fds within the tolerance, or
 * SETTLE_MAX_MS.
 */
export async function settledCensus(
  pids: readonly number[],
  port: number,
  criteria: { before: Record<number, ProcessCensus>; tolerance: number } | null,
): Promise<Record<number, ProcessCensus>> {
  const deadline = Date.now() + (criteria === null ? START_PAUSE_MS : SETTLE_MAX_MS);
  while (true) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    const census: Record<number, ProcessCensus> = {};
    for (const pid of pids) if (await processAlive(pid)) census[pid] = await fdCensus(pid, port);
    const settled =
      criteria !== null &&
      Object.values(census).every((c) => {
        const before = criteria.before[c.pid];
        return before === undefined || (c.orphanedSockets === 0 && c.fds <= before.fds + criteria.tolerance);
      });
    if (settled || Date.now() >= deadline) return census;
  }
}
