// `bench payments --max --generator wrk [--peer raw] [--peer bullmq]`: the closed-loop saturation comparison
// (issue 30). Every target is started (saturation-targets.ts), warmed for a few unmeasured seconds, then
// saturated by wrk one stage at a time: Floodgate's AUTH=off intake (the reference every goal compares with)
// between every two other stages, the others' order rotating from round to round (round-order.ts), with extra
// rounds where the reference moved too much around a stage to judge it (steady-rounds.ts). The verdict is each
// target's median and the goals' ratios, each stage against the reference stages around it.
import os from "node:os";
import { Redis } from "ioredis";
import { log } from "../../harness/progress-line.ts";
import { resultHeader } from "../../harness/result-head.ts";
import { finishRun } from "../../harness/scenario-run.ts";
import type { ScenarioContext, ScenarioOutcome } from "../../scenario.ts";
import type { PaymentsOptions } from "../payments-options.ts";
import { REFERENCE_TARGET } from "./bracketed-comparisons.ts";
import { localRedisPid } from "./process-cpu.ts";
import type { PlannedStage } from "./round-order.ts";
import {
  runSaturationStage,
  type SaturationStage,
  type SaturationTarget,
  type StageRig,
} from "./saturation-stage.ts";
import { type SaturationResult, stageLine, summarizeSaturation } from "./saturation-summary.ts";
import { type SaturationTargets, startSaturationTargets } from "./saturation-targets.ts";
import { ratioVerdicts, targetMedians } from "./saturation-verdict.ts";
import { clearStageKeys } from "./stage-keys.ts";
import { runSteadyRounds } from "./steady-rounds.ts";
import { ensureWrk } from "./wrk-binary.ts";

/** Shoppers the load spreads over (bench-user-0 .. 4999): each Floodgate's per-user limit stays far away. */
export const SATURATION_USERS = 5000;
/** Unmeasured seconds each target is saturated before the first round: connections open, code optimised. */
const WARM_UP_S = 3;

export const describeWrkGenerator = (connections: number): string =>
  `wrk (C, a child process), one thread, ${connections} connections, closed loop (each connection sends its next request when the last is answered); wrk, every target, Redis, Postgres and the bench share this machine's ${os.availableParallelism()} cores`;

export async function runSaturation(
  options: PaymentsOptions,
  context: ScenarioContext,
): Promise<ScenarioOutcome> {
  const result: SaturationResult = {
    ...resultHeader("payments", context, options, describeWrkGenerator(options.connections)),
    mode: "saturation",
    users: SATURATION_USERS,
    targets: [],
    stages: [],
    medians: [],
    verdicts: [],
    error: null,
  };
  let started: SaturationTargets | null = null;
  // --generator wrk runs on one Redis (--redis single): its INFO is the one Redis's.
  let redis: Redis | null = null;
  return finishRun(
    result,
    async () => {
      const wrk = ensureWrk(log);
      log(
        `--generator wrk: two Floodgate intakes (WORKERS=0, AUTH=off and auth on)${options.peers.length > 0 ? ` and peer(s) ${options.peers.join(", ")}` : ""}`,
      );
      started = await startSaturationTargets(context, {
        users: SATURATION_USERS,
        peers: options.peers,
        compareCheckout: options.compareCheckout,
      });
      result.services = started.services;
      result.settings.systemEnvironment = started.environments as Record<string, string>;
      result.targets = started.targets.map(({ key, label }) => ({ key, label }));
      redis = new Redis(started.redisUrl, { maxRetriesPerRequest: 2 });
      const rig: StageRig = {
        wrk,
        redis,
        redisPid: await localRedisPid(redis),
        connections: options.connections,
        durationS: options.stageDuration,
        users: SATURATION_USERS,
      };
      for (const target of started.targets) {
        const keyPrefix = `${context.stamp}-warm-${target.key}`;
        const warm = await runSaturationStage({ ...rig, durationS: WARM_UP_S }, target, {
          round: 0,
          position: 0,
          keyPrefix,
        });
        log(`${target.label} warm-up: ${stageLine(warm, target.label)}`);
        await clearAfterStage(rig.redis, target, keyPrefix);
      }
      const reference = started.targets.find((target) => target.key === REFERENCE_TARGET)!;
      const others = started.targets.filter((target) => target !== reference);
      const runStage = async ({ round, position, target }: PlannedStage<SaturationTarget>) => {
        const keyPrefix = `${context.stamp}-r${round}p${position}-${target.key}`;
        const stage: SaturationStage = await runSaturationStage(rig, target, { round, position, keyPrefix });
        // Kept as it runs: a run stopped midway still writes the stages it has.
        result.stages.push(stage);
        log(`round ${round} #${position + 1}, ${target.label}: ${stageLine(stage, target.label)}`);
        await clearAfterStage(rig.redis, target, keyPrefix);
        return stage;
      };
      await runSteadyRounds({ reference, others, rounds: options.rounds, runStage, log });
      result.medians = started.targets.map((target) => targetMedians(target.key, result.stages));
      result.verdicts = ratioVerdicts(result.medians, result.stages, options.rounds);
    },
    async () => {
      redis?.disconnect();
      await (started as SaturationTargets | null)?.close();
    },
    summarizeSaturation,
  );
}

/** Unlinks what the stage left in Redis, so the next starts on the same keyspace (stage-keys.ts). */
async function clearAfterStage(
  redis: Redis,
  target: SaturationTarget,
  stageKeyPrefix: string,
): Promise<void> {
  const pattern = target.stageKeys(stageKeyPrefix);
  if (pattern === null) return;
  const removed = await clearStageKeys(redis, pattern);
  log(`${target.label}: the stage's ${removed} Redis keys unlinked and freed`);
}
