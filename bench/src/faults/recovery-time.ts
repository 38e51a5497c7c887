// Seconds to recover, from the fault's end: the first second from which, for RECOVERED_SECONDS seconds in a
// row, the clients got 202s at (at least 90 % of) the offered rate AND the applied backlog (payments answered
// 202 but not yet in their shard) was back within what it was before the fault. Pure, so it is tested.

/** What the shop's clients saw in one second of a phase. */
export interface SecondBin {
  /** New payments sent (first attempts). */
  offered: number;
  /** 2xx answers received (first attempts and retries). */
  accepted: number;
  fiveXx: number;
  timeouts: number;
  socketErrors: number;
}

export const emptyBin = (): SecondBin => ({
  offered: 0,
  accepted: 0,
  fiveXx: 0,
  timeouts: 0,
  socketErrors: 0,
});

/** Healthy seconds in a row that count as recovered: 3 called a Redis restart recovered while the intakes were
 * about to refuse everything again (backpressure on a backlog that was not there). */
export const RECOVERED_SECONDS = 10;
/** Share of the offered rate the 202s must reach in a healthy second. */
export const ACCEPTED_SHARE = 0.9;

/**
 * The backlog a healthy second may have: twice the largest seen in the seconds before the fault (the workers
 * apply in batches, so some backlog is normal), and never less than half a second of load.
 */
export function backlogBound(preFaultBacklogs: readonly number[], rate: number): number {
  const largest = preFaultBacklogs.length > 0 ? Math.max(...preFaultBacklogs) : 0;
  return Math.max(2 * largest, rate / 2);
}

export interface RecoveryInput {
  bins: readonly SecondBin[];
  /** Applied backlog sampled at the end of each second of the phase (index = second); null = not sampled. */
  backlog: readonly (number | null)[];
  rate: number;
  /** The second of the phase the fault was injected in, and the one it ended in. */
  faultStartSecond: number;
  faultEndSecond: number;
  /** Healthy seconds in a row that count (RECOVERED_SECONDS unless told). */
  healthySeconds?: number;
}

/** null when it did not recover within the bins given. */
export function secondsToRecover(input: RecoveryInput): number | null {
  const bound = backlogBound(
    input.backlog.slice(0, input.faultStartSecond).filter((n): n is number => n !== null),
    input.rate,
  );
  const needed = input.healthySeconds ?? RECOVERED_SECONDS;
  let run = 0;
  for (let second = input.faultEndSecond; second < input.bins.length; second++) {
    const bin = input.bins[second]!;
    const backlog = input.backlog[second];
    const healthy =
      bin.accepted >= ACCEPTED_SHARE * input.rate &&
      backlog !== null &&
      backlog !== undefined &&
      backlog <= bound;
    run = healthy ? run + 1 : 0;
    if (run === needed) return second - needed + 1 - input.faultEndSecond;
  }
  return null;
}

/** True once the last RECOVERED_SECONDS seconds were healthy (the phase may stop its load). */
export function recovered(input: RecoveryInput): boolean {
  return secondsToRecover(input) !== null;
}
