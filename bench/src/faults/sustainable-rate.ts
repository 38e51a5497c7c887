// The sustainable rate, measured in the run itself before the faults: the burst generator warms the system up,
// then offers short steps chosen by max-rate-plan.ts (doubling, then bisecting) and keeps the highest 2xx rate
// of a step that passed payments --max's criterion (intake p99 < 50 ms, 2xx >= 95 % of the target, failures
// <= 0.1 %). No shop client runs meanwhile. The overload fault offers a multiple of it.
import {
  type MaxRatePlan,
  maxAcceptedRate,
  nextRate,
  type StageVerdict,
  stagePassed,
} from "../harness/max-rate-plan.ts";
import { formatCount, log } from "../harness/progress-line.ts";
import type { SettledBurst } from "./burst-drain.ts";
import { settleBurst } from "./burst-drain.ts";
import type { BurstUser } from "./burst-request-template.ts";
import { BurstThread } from "./burst-thread.ts";
import type { SystemRig } from "./fault-rig.ts";
import { BURST_DEFAULTS, type BurstStepReport } from "./overload-burst.ts";

/** Six 2 s steps from 2,000/s at most: about 15 s with the waits for their last answers. */
export const CALIBRATION_PLAN: MaxRatePlan = {
  startRate: 2000,
  precision: 0.1,
  maxStages: 6,
  ceilingRate: 64_000,
};
const STEP_SECONDS = 2;
const WARM_UP = { rate: 1000, seconds: 3 };
/** The calibration's payments carry this amount (the overload's another), so each is audited apart. */
export const CALIBRATION_AMOUNT = 1;

export const SUSTAINABLE_CRITERION =
  "2 s steps: intake p99 < 50 ms, 2xx >= 95% of the target, failures <= 0.1%";

export interface CalibrationStep {
  targetRate: number;
  sentRate: number;
  acceptedRate: number;
  p99Ms: number | null;
  failures: number;
  statuses: Record<string, number>;
  generatorCpuPercent: number;
  passed: boolean;
}

export interface SustainableRate {
  criterion: string;
  /** Highest 2xx/s of a passing step; null when none passed. */
  sustainableRate: number | null;
  steps: CalibrationStep[];
  warmUp: { rate: number; seconds: number; acceptedRate: number };
  settled: SettledBurst;
}

/** Non-2xx answers, timeouts and socket errors of a step. */
const failuresOf = (report: BurstStepReport): number =>
  Object.entries(report.counts.statuses)
    .filter(([status]) => Number(status) < 200 || Number(status) >= 300)
    .reduce((sum, [, n]) => sum + n, 0) +
  report.counts.timeouts +
  report.counts.socketErrors;

export async function measureSustainableRate(
  rig: SystemRig,
  users: readonly BurstUser[],
  options: { connections: number; keyPrefix: string; drainTimeoutSeconds: number },
): Promise<SustainableRate> {
  const url = new URL(rig.system.baseUrl);
  const thread = new BurstThread({
    host: url.hostname,
    port: Number(url.port),
    users,
    keyPrefix: options.keyPrefix,
    amount: CALIBRATION_AMOUNT,
    connections: options.connections,
    ...BURST_DEFAULTS,
  });
  const reports: BurstStepReport[] = [];
  const steps: CalibrationStep[] = [];
  try {
    log(`sustainable rate: warm-up at ${WARM_UP.rate}/s for ${WARM_UP.seconds} s`);
    const warm = await thread.run(WARM_UP.rate, WARM_UP.seconds);
    reports.push(warm);
    const verdicts: StageVerdict[] = [];
    for (
      let rate = nextRate(verdicts, CALIBRATION_PLAN);
      rate !== null;
      rate = nextRate(verdicts, CALIBRATION_PLAN)
    ) {
      const report = await thread.run(rate, STEP_SECONDS);
      reports.push(report);
      const failures = failuresOf(report);
      const passed = stagePassed({
        offeredRate: rate,
        acceptedRate: report.acceptedRate,
        p99Ms: report.latencyMs.p99,
        failures,
        responses: report.counts.answered,
      });
      verdicts.push({ offeredRate: rate, acceptedRate: report.acceptedRate, passed });
      steps.push({
        targetRate: rate,
        sentRate: report.sentRate,
        acceptedRate: report.acceptedRate,
        p99Ms: report.latencyMs.p99,
        failures,
        statuses: report.counts.statuses,
        generatorCpuPercent: report.cpu.percentOfOneCore,
        passed,
      });
      log(
        `sustainable rate: ${formatCount(rate)}/s -> 2xx ${formatCount(report.acceptedRate)}/s, p99 ${report.latencyMs.p99 ?? "-"} ms, ${passed ? "passed" : "failed"}`,
      );
    }
    const settled = await settleBurst(
      rig,
      thread,
      CALIBRATION_AMOUNT,
      reports.map((report) => report.counts),
      options.drainTimeoutSeconds,
    );
    return {
      criterion: SUSTAINABLE_CRITERION,
      sustainableRate: maxAcceptedRate(verdicts),
      steps,
      warmUp: { ...WARM_UP, acceptedRate: warm.acceptedRate },
      settled,
    };
  } catch (error) {
    await thread.terminate();
    throw error;
  }
}
