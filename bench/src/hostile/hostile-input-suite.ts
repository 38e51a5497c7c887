// Issue 18 point 10: hostile input against a running Floodgate. `./floodgate bench faults` calls it as its last
// phase; run-hostile-input.ts runs it alone. Probes, in order: control characters and 10 KB strings in every
// field and every header, deep JSON, 10 MB bodies, 1,000 bad upgrades, 5,000 WebSockets opened and dropped,
// slow headers (last: it waits for the server's header timeout). Passed = 0 5xx, 0 crashes (an intake pid
// gone or replaced), 0 accepted-and-lost (every 202 reaches a status past pending), and every intake's fd
// count back to its start after a settle wait (within FD_TOLERANCE, and no socket left for a gone client).
//
// Options:
//   baseUrl        the intake (all intake processes share its port)
//   serverKey      a shop server key (fg_sk_…); adminKey the operator's ADMIN_API_KEY
//   customerToken  mints a customer token for a user id (POST /v1/customer-sessions with the server key)
//   intakePids     the intake processes' pids now (the crash check compares before and after)
//   log            progress lines
//   sizes          smaller runs while developing (defaults: the sizes)

import { auditAccepted } from "./accepted-audit.ts";
import { BAD_UPGRADE_DEFAULTS, runBadUpgradeProbe } from "./bad-upgrade-probe.ts";
import { runDeepJsonProbe } from "./deep-json-probe.ts";
import { runFieldFuzzProbe } from "./field-fuzz-probe.ts";
import { runHeaderFuzzProbe } from "./header-fuzz-probe.ts";
import { type HostileTarget, prepareTarget } from "./hostile-target.ts";
import { type ProcessCensus, settledCensus, warmUp } from "./intake-settle.ts";
import { runLargeBodyProbe } from "./large-body-probe.ts";
import type { ProbeResult, ProbeTally } from "./probe-tally.ts";
import { runSlowHeadersProbe, SLOW_HEADERS_DEFAULTS, type SlowHeadersOptions } from "./slow-headers-probe.ts";
import { runWebSocketChurnProbe, WEBSOCKET_CHURN_DEFAULTS } from "./websocket-churn-probe.ts";

export interface HostileInputOptions {
  baseUrl: string;
  serverKey: string;
  adminKey: string;
  customerToken: (userId: string) => Promise<string>;
  intakePids: () => Promise<number[]>;
  log: (line: string) => void;
  sizes?: Partial<HostileInputSizes>;
}

export interface HostileInputSizes {
  websockets: number;
  badUpgrades: number;
  slowHeaders: SlowHeadersOptions;
  /** How long the accepted requests get to reach a final status. */
  auditDeadlineMs: number;
}

const FULL_SIZES: HostileInputSizes = {
  websockets: WEBSOCKET_CHURN_DEFAULTS.total,
  badUpgrades: BAD_UPGRADE_DEFAULTS.total,
  slowHeaders: SLOW_HEADERS_DEFAULTS,
  auditDeadlineMs: 60_000,
};

/**
 * Fds an intake may end with above its start and still pass. The settle wait outlasts the Postgres pools'
 * 30 s idle timeout, so a pool connection the probes opened is closed by then; what is left is allowed for
 * handles opened once and kept (a pool connection still inside its idle window at the start's count, a
 * Redis reconnect). A socket held for a client that is gone gets no allowance (intake-fd-census.ts).
 */
export const FD_TOLERANCE = 4;

export interface HostileInputResult {
  probes: ProbeResult[];
  crashes: { pid: number; what: string }[];
  pidsBefore: number[];
  pidsAfter: number[];
  fdBefore: Record<number, ProcessCensus>;
  fdAfter: Record<number, ProcessCensus>;
  fdTolerance: number;
  accepted: number;
  acceptedAndLost: number;
  lost: { location: string; probe: string; last: string }[];
  acceptedFinalStatuses: Record<string, number>;
  seconds: number;
  passed: boolean;
  /** Why it did not pass, one line each. */
  failures: string[];
}

export async function runHostileInput(options: HostileInputOptions): Promise<HostileInputResult> {
  const sizes = { ...FULL_SIZES, ...options.sizes };
  const { log } = options;
  const started = Date.now();
  const pidsBefore = await options.intakePids();
  if (pidsBefore.length === 0) throw new Error("hostile input: no intake process found (intakePids())");
  const target = await prepareTarget(options, started.toString(36));
  await warmUp(target);
  const fdBefore = await settledCensus(pidsBefore, target.port, null);
  log(`hostile input: intakes ${pidsBefore.join(", ")}; fds ${describe(fdBefore)}`);

  const tallies: ProbeTally[] = [];
  const crashes: { pid: number; what: string }[] = [];
  const probe = async (name: string, run: (t: HostileTarget) => Promise<ProbeTally | ProbeTally[]>) => {
    log(`hostile input: ${name}`);
    const ran = [await run(target)].flat();
    tallies.push(...ran);
    for (const tally of ran) log(`hostile input:   ${summary(tally.result())}`);
    const now = await options.intakePids();
    for (const pid of pidsBefore) {
      if (!now.includes(pid) && !crashes.some((c) => c.pid === pid)) {
        crashes.push({
          pid,
          what: `gone after the ${name} probe (intakes now: ${now.join(", ") || "none"})`,
        });
      }
    }
  };
  await probe("fields", runFieldFuzzProbe);
  await probe("headers", runHeaderFuzzProbe);
  await probe("deep JSON", runDeepJsonProbe);
  await probe("10 MB bodies", runLargeBodyProbe);
  await probe("bad upgrades", (t) =>
    runBadUpgradeProbe(t, { ...BAD_UPGRADE_DEFAULTS, total: sizes.badUpgrades }),
  );
  await probe("WebSockets opened and dropped", (t) =>
    runWebSocketChurnProbe(t, { ...WEBSOCKET_CHURN_DEFAULTS, total: sizes.websockets }),
  );
  await probe("slow headers", async (t) => {
    const { slow, health } = await runSlowHeadersProbe(t, sizes.slowHeaders);
    return [slow, health];
  });

  const accepted = tallies.flatMap((t) => t.accepted);
  log(`hostile input: ${accepted.length} requests were accepted (202); waiting for their final status`);
  const audit = await auditAccepted(target.baseUrl, accepted, sizes.auditDeadlineMs);
  log("hostile input: waiting for the intakes' fd counts to settle");
  const pidsAfter = await options.intakePids();
  const alive = pidsBefore.filter((pid) => pidsAfter.includes(pid));
  const fdAfter = await settledCensus(alive, target.port, { before: fdBefore, tolerance: FD_TOLERANCE });
  for (const pid of pidsAfter.filter((p) => !pidsBefore.includes(p))) {
    crashes.push({ pid, what: "an intake pid that was not there at the start (a restart)" });
  }

  const probes = tallies.map((t) => t.result());
  const failures = verdict(probes, crashes, audit.acceptedAndLost, fdBefore, fdAfter);
  return {
    probes,
    crashes,
    pidsBefore,
    pidsAfter,
    fdBefore,
    fdAfter,
    fdTolerance: FD_TOLERANCE,
    accepted: audit.accepted,
    acceptedAndLost: audit.acceptedAndLost,
    lost: audit.lost,
    acceptedFinalStatuses: audit.finalStatuses,
    seconds: (Date.now() - started) / 1000,
    passed: failures.length === 0,
    failures,
  };
}

export function verdict(
  probes: readonly ProbeResult[],
  crashes: readonly { pid: number; what: string }[],
  acceptedAndLost: number,
  fdBefore: Record<number, ProcessCensus>,
  fdAfter: Record<number, ProcessCensus>,
): string[] {
  const failures: string[] = [];
  for (const p of probes) if (p.fiveXx > 0) failures.push(`${p.name}: ${p.fiveXx} answers 5xx`);
  for (const c of crashes) failures.push(`intake ${c.pid} ${c.what}`);
  if (acceptedAndLost > 0) failures.push(`${acceptedAndLost} accepted requests never reached a final status`);
  for (const [pid, before] of Object.entries(fdBefore)) {
    const after = fdAfter[Number(pid)];
    if (after === undefined) continue; // a crash, reported above
    if (after.orphanedSockets > 0) {
      failures.push(`intake ${pid}: ${after.orphanedSockets} sockets held for clients that are gone`);
    }
    if (after.fds > before.fds + FD_TOLERANCE) {
      failures.push(
        `intake ${pid}: ${after.fds} fds after, ${before.fds} before (tolerance ${FD_TOLERANCE})`,
      );
    }
  }
  return failures;
}

const describe = (census: Record<number, ProcessCensus>) =>
  Object.values(census)
    .map((c) => `${c.pid}: ${c.fds} (${c.clientSockets} client sockets, ${c.orphanedSockets} orphaned)`)
    .join(", ");

export const summary = (p: ProbeResult) =>
  `${p.name}: ${p.requests} requests, ${JSON.stringify(p.statusCounts)}, ${p.fiveXx} 5xx, ${p.connectionErrors} without an answer`;
