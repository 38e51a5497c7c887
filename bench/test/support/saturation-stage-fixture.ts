// A saturation comparison's stage as saturation-stage.ts records it, with the rate a test chooses standing in
// for wrk's: the verdict and round tests judge rates, not what produced them. A stage that accepted nothing
// failed, as stageFailure says of a real one, unless the test says otherwise.
import type { SaturationStage, TargetKey } from "../../src/payments/saturation/saturation-stage.ts";

export function saturationStage(
  target: TargetKey,
  acceptedRate: number,
  {
    round = 1,
    position = 0,
    passed = acceptedRate > 0,
  }: { round?: number; position?: number; passed?: boolean } = {},
): SaturationStage {
  return {
    round,
    target,
    position,
    durationS: 10,
    requests: acceptedRate * 10,
    accepted: acceptedRate * 10,
    acceptedRate,
    statuses: { "202": acceptedRate * 10 },
    errors: { connect: 0, read: 0, write: 0, timeout: 0 },
    latencyMs: { p50: 5, p90: 8, p99: 12, max: 20 },
    cpu: {
      targetS: 1,
      redisS: 0.5,
      redisInfoS: 0.5,
      loadGeneratorS: 0.1,
      perAcceptedUs: { target: 80, redis: 30, redisInfo: 30, loadGenerator: 10 },
      machine: null,
      restOfMachinePercent: null,
    },
    passed,
    failure: passed ? null : acceptedRate > 0 ? "12 x 503" : "nothing accepted",
  };
}
