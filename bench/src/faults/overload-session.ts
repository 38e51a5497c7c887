// The overload fault's burst: the rate it offers (a multiple of the sustainable rate measured before the
// faults, or --overload-rate), run on the burst thread while the shop clients keep their steady rate, then
// drained and audited by count. What it reports goes into the fault's result as `overload`.
import { formatCount, log } from "../harness/progress-line.ts";
import type { BurstAudit } from "./burst-audit.ts";
import { settleBurst } from "./burst-drain.ts";
import type { BurstUser } from "./burst-request-template.ts";
import { BurstThread } from "./burst-thread.ts";
import type { SystemRig } from "./fault-rig.ts";
import { BURST_DEFAULTS, type BurstCounts, type BurstStepReport } from "./overload-burst.ts";

/** The overload's payments carry this amount (the calibration's is 1). */
export const OVERLOAD_AMOUNT = 2;
/** Share of the target the burst must have sent for the fault to count as offered. */
export const OFFERED_SHARE = 0.95;

export interface OverloadPlan {
  targetRate: number;
  /** Measured before the faults (sustainable-rate.ts); null when no calibration step passed. */
  sustainableRate: number | null;
  /** How the target was chosen. */
  basis: string;
  users: readonly BurstUser[];
  connections: number;
}

export interface OverloadResult {
  targetRate: number;
  basis: string;
  sustainableRate: number | null;
  seconds: number;
  /** Sent per second: what the system was offered. */
  offeredRate: number;
  /** Arrivals the pace made due, per second (sent + notSent). */
  attemptedRate: number;
  answeredRate: number;
  acceptedRate: number;
  /** offered / sustainable. */
  achievedFactor: number | null;
  counts: BurstCounts;
  refusalsWithRetryAfterPercent: number | null;
  latencyMs: BurstStepReport["latencyMs"];
  generatorCpu: BurstStepReport["cpu"];
  generatorHeapUsedMiB: number;
  perSecond: BurstStepReport["perSecond"];
  connections: number;
  maxUnansweredPerConnection: number;
  audit: BurstAudit | null;
  drained: boolean;
  drainSeconds: number;
}

export class OverloadSession {
  readonly #rig: SystemRig;
  readonly #plan: OverloadPlan;
  readonly #thread: BurstThread;
  #report: BurstStepReport | null = null;

  constructor(rig: SystemRig, plan: OverloadPlan, keyPrefix: string) {
    this.#rig = rig;
    this.#plan = plan;
    const url = new URL(rig.system.baseUrl);
    this.#thread = new BurstThread({
      host: url.hostname,
      port: Number(url.port),
      users: plan.users,
      keyPrefix,
      amount: OVERLOAD_AMOUNT,
      connections: plan.connections,
      ...BURST_DEFAULTS,
    });
  }

  /** The fault itself: the burst at the target rate for `seconds`, until its last answer. */
  async run(seconds: number): Promise<string[]> {
    const report = await this.#thread.run(this.#plan.targetRate, seconds);
    this.#report = report;
    log(
      `overload: sent ${formatCount(report.sentRate)}/s of ${formatCount(this.#plan.targetRate)}/s, answered ${formatCount(report.answeredRate)}/s, 2xx ${formatCount(report.acceptedRate)}/s, generator cpu ${report.cpu.percentOfOneCore} % of a core`,
    );
    return [
      `burst of ${formatCount(this.#plan.targetRate)}/s (${this.#plan.basis}) for ${seconds} s: sent ${formatCount(report.sentRate)}/s, not sent ${formatCount(report.counts.notSent)}`,
    ];
  }

  /** After the shop's drain: the burst's drain and audit; null if the burst never ran. */
  async settle(drainTimeoutSeconds: number): Promise<OverloadResult | null> {
    const report = this.#report;
    if (report === null) {
      await this.#thread.terminate();
      return null;
    }
    const settled = await settleBurst(
      this.#rig,
      this.#thread,
      OVERLOAD_AMOUNT,
      [report.counts],
      drainTimeoutSeconds,
    );
    const { counts } = report;
    return {
      targetRate: this.#plan.targetRate,
      basis: this.#plan.basis,
      sustainableRate: this.#plan.sustainableRate,
      seconds: report.seconds,
      offeredRate: report.sentRate,
      attemptedRate: Math.round(counts.arrivals / report.seconds),
      answeredRate: report.answeredRate,
      acceptedRate: report.acceptedRate,
      achievedFactor:
        this.#plan.sustainableRate === null
          ? null
          : Math.round((100 * report.sentRate) / this.#plan.sustainableRate) / 100,
      counts,
      refusalsWithRetryAfterPercent:
        counts.refusals === 0
          ? null
          : Math.round((1000 * counts.refusalsWithRetryAfter) / counts.refusals) / 10,
      latencyMs: report.latencyMs,
      generatorCpu: report.cpu,
      generatorHeapUsedMiB: report.heapUsedMiB,
      perSecond: report.perSecond,
      connections: this.#plan.connections,
      maxUnansweredPerConnection: BURST_DEFAULTS.maxUnanswered,
      audit: settled.audit,
      drained: settled.drained,
      drainSeconds: settled.drainSeconds,
    };
  }
}
