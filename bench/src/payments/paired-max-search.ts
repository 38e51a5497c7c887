// --max on two running systems at once (payments --auth compare): each rate of paired-max-plan.ts runs on both,
// back to back, the first alternating from pair to pair. Two searches minutes apart scattered by about ±10 % with
// the shared machine's state; a pair sees the same machine within one stage's time. The system waiting its turn
// is idle (its workers block on Redis), so it takes little of the other's cpu.

import type { MaxRatePlan } from "../harness/max-rate-plan.ts";
import { log } from "../harness/progress-line.ts";
import { keyTableDoubling } from "./key-table-doubling.ts";
import {
  type MaxRateResult,
  type MaxStage,
  maxRateResult,
  runMaxStage,
  type StageOptions,
} from "./max-rate-search.ts";
import { DEFAULT_PAIRED_PLAN, nextPairedRate, pairOrder } from "./paired-max-plan.ts";

/** One of the two systems: its target, key prefix, Redis key reader and the label its progress lines carry. */
export type PairedSystem = Omit<StageOptions, "stageDurationS" | "connections" | "slices" | "users"> & {
  label: string;
};

/** A stage, run a second time when it failed while Redis doubled its key table (key-table-doubling.ts). */
async function runStageOnce(
  options: StageOptions & { label: string },
  rate: number,
  stageNumber: number,
): Promise<MaxStage> {
  const first = await runMaxStage(options, rate, stageNumber);
  const keyTableSize = keyTableDoubling(first.redisKeys);
  if (first.passed || keyTableSize === null) return first;
  log(
    `${options.label} @ ${rate}/s failed while Redis' key table doubled (${first.redisKeys?.atStart} -> ${first.redisKeys?.atEnd} keys, past ${keyTableSize}): once more at the same rate`,
  );
  const again = await runMaxStage(options, rate, stageNumber);
  return {
    ...again,
    rerunOf: { keyTableSize, acceptedRate: first.acceptedRate, p99Ms: first.p99Ms, passed: first.passed },
  };
}

export async function searchMaxRatePaired(options: {
  systems: readonly [PairedSystem, PairedSystem];
  stageDurationS: number;
  connections: number;
  slices: number;
  users: number;
  plan?: MaxRatePlan;
}): Promise<[MaxRateResult, MaxRateResult]> {
  const { systems, plan = DEFAULT_PAIRED_PLAN } = options;
  const stages: [MaxStage[], MaxStage[]] = [[], []];
  for (let rate = nextPairedRate(stages, plan); rate !== null; rate = nextPairedRate(stages, plan)) {
    const pair = stages[0].length;
    const order = pairOrder(pair);
    for (const index of order) {
      const stage = await runStageOnce({ ...options, ...systems[index] }, rate, pair + 1);
      stages[index].push({ ...stage, ranFirst: index === order[0] });
    }
    const verdict = (index: 0 | 1) =>
      `${systems[index].label} p99 ${stages[index][pair]?.p99Ms ?? "n/a"} ms ${stages[index][pair]?.passed ? "pass" : "fail"}`;
    log(`pair ${pair + 1} @ ${rate}/s (${systems[order[0]].label} first): ${verdict(0)}, ${verdict(1)}`);
  }
  return [
    maxRateResult(systems[0].target.name, options.stageDurationS, stages[0]),
    maxRateResult(systems[1].target.name, options.stageDurationS, stages[1]),
  ];
}
