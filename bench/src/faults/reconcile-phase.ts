// After the faults, on the same system: `floodgate reconcile` as the library runs it. A dry run first says what
// the faults left: Postgres must be consistent (no finding only a person can settle: wallets, paid orders,
// provider payments, stock ledgers), with the provider-paid orders counted apart from the wallet-paid ones.
// Redis drift is expected after the restart without persistence (it came back empty), so it is repaired, as
// `floodgate start` would, and a last dry run must find nothing: reconcile clean.
import { createKysely, type GlobalDatabase, type ShardDatabase } from "@floodgate/db";
import { QueueKeys } from "@floodgate/queue";
import { type ReconcileReport, reconcile, summaryLine } from "@floodgate/reconcile";
import { Redis } from "ioredis";
import { log } from "../harness/progress-line.ts";
import type { AfterFaultPhase } from "./after-fault-phases.ts";
import type { FaultRig } from "./fault-rig.ts";

/** The system's STREAM_PARTITIONS when the suite does not set one (packages/config's default). */
const DEFAULT_STREAM_PARTITIONS = 16;
/** Runs at most this many times while the queue still moves (orders expiring, a straggling retry). */
const DRAINED_TRIES = 12;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ReconcilePhaseOutcome {
  passed: boolean;
  /** The first dry run: what the faults left. */
  first: ReconcileSummary;
  /** The repairing run (null when the first found nothing to repair) and the last dry run. */
  repair: ReconcileSummary | null;
  last: ReconcileSummary;
}

export interface ReconcileSummary {
  line: string;
  redisSkipped: string | null;
  paidOrders: ReconcileReport["paidOrders"];
  drift: number;
  /** Findings only a person can settle (Postgres-side), and the rest, by kind. */
  needsHuman: number;
  findingsByKind: Record<string, number>;
  examples: string[];
}

export const reconcilePhase = (): AfterFaultPhase => ({
  name: "reconcile",
  run: (rig) => runReconcilePhase(rig),
});

async function runReconcilePhase(rig: FaultRig): Promise<ReconcilePhaseOutcome> {
  const config = rig.system.config;
  const partitions = Number(config.extraEnvironment?.STREAM_PARTITIONS ?? DEFAULT_STREAM_PARTITIONS);
  const redis = new Redis(rig.redis.url, { lazyConnect: false, maxRetriesPerRequest: 3 });
  redis.on("error", () => {});
  const global = createKysely<GlobalDatabase>(config.databaseUrl, {
    max: 1,
    applicationName: "floodgate-bench",
  });
  const shards = rig.shardUrls.map((url) =>
    createKysely<ShardDatabase>(url, { max: 1, applicationName: "floodgate-bench" }),
  );
  const stores = { global, shards, redis, keys: new QueueKeys(config.redisPrefix, partitions) };
  const run = async (dryRun: boolean): Promise<ReconcileSummary> => {
    let report = await reconcile(stores, { dryRun });
    for (let tries = 1; report.redisSkipped !== null && tries < DRAINED_TRIES; tries++) {
      await sleep(5000);
      report = await reconcile(stores, { dryRun });
    }
    const summary = summarize(report);
    log(`reconcile${dryRun ? " (dry run)" : ""}: ${summary.line}`);
    return summary;
  };
  try {
    const first = await run(true);
    const repair = first.drift > 0 && first.needsHuman === 0 ? await run(false) : null;
    const last = repair === null ? first : await run(true);
    const passed =
      first.needsHuman === 0 && first.redisSkipped === null && last.redisSkipped === null && last.drift === 0;
    return { passed, first, repair, last };
  } finally {
    redis.disconnect();
    await Promise.all([global, ...shards].map((db) => db.destroy()));
  }
}

function summarize(report: ReconcileReport): ReconcileSummary {
  const findingsByKind: Record<string, number> = {};
  for (const finding of report.findings)
    findingsByKind[finding.kind] = (findingsByKind[finding.kind] ?? 0) + 1;
  return {
    line: summaryLine(report),
    redisSkipped: report.redisSkipped,
    paidOrders: report.paidOrders,
    drift: report.drift,
    needsHuman: report.findings.filter((finding) => finding.outcome === "needs_human").length,
    findingsByKind,
    examples: report.findings
      .slice(0, 5)
      .map((finding) => `${finding.kind} ${finding.id}: ${finding.detail}`),
  };
}
