import { describe, expect, it } from "vitest";
import type { FaultResult } from "../src/faults/fault-phase.ts";
import { overloadFailures, verdict } from "../src/faults/faults-summary.ts";

/** Intake RSS once a second over a burst from second 10 to 40: flat at 800 MiB, or growing 20 MiB a second. */
const rssSeries = (growing: boolean) =>
  Array.from({ length: 50 }, (_, second) => ({
    second,
    mib: growing ? 700 + 20 * second : 800,
  }));

const overloadFault = (
  changes: Record<string, unknown> = {},
  shopTimeouts = 0,
  rssGrowing = false,
): FaultResult =>
  ({
    name: "overload",
    faultStartSecond: 10,
    faultEndSecond: 40,
    intakeRssMiB: { before: 800, peak: 800, after: 800, series: rssSeries(rssGrowing) },
    lost: 0,
    appliedTwice: 0,
    walletInvariant: { holds: true, difference: 0 },
    client: { timeouts: shopTimeouts },
    overload: {
      targetRate: 50_000,
      offeredRate: 49_000,
      maxUnansweredPerConnection: 256,
      generatorCpu: { percentOfOneCore: 40 },
      counts: { timeouts: 0, refusals: 10, refusalsWithRetryAfter: 10, notSent: 0 },
      audit: { lost: 0, twice: 0, appliedWithoutAnswer: 0, unknownOutcome: 0, withinUnknown: true },
      ...changes,
    },
  }) as unknown as FaultResult;

describe("the overload fault's verdict", () => {
  it("passes a burst offered at its target, audited clean, every refusal with Retry-After", () => {
    expect(overloadFailures(overloadFault())).toEqual([]);
    expect(verdict([overloadFault()])).toBeNull();
  });

  it("says the generator could not offer the target when it sent under 95 % of it", () => {
    const failures = overloadFailures(overloadFault({ offeredRate: 20_000 }));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/could not offer 50000\/s: it sent 20000\/s/);
  });

  it("fails on a loss, a double, a timeout (shop or burst) and a refusal without Retry-After", () => {
    const failures = overloadFailures(
      overloadFault(
        {
          counts: { timeouts: 3, refusals: 10, refusalsWithRetryAfter: 9, notSent: 0 },
          audit: { lost: 1, twice: 1, appliedWithoutAnswer: 4, unknownOutcome: 3, withinUnknown: false },
        },
        2,
      ),
    );
    expect(failures).toHaveLength(6);
    expect(verdict([overloadFault({ audit: null })])).toMatch(/overload: the burst was not audited/);
  });

  it("fails when the intakes' memory still grows over the burst's last third, or was not sampled", () => {
    const failures = overloadFailures(overloadFault({}, 0, true));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/intake memory still growing: RSS peaked at 1,?280 MiB .* 1,?480 MiB/);
    const unsampled = overloadFault();
    unsampled.intakeRssMiB.series = [];
    expect(overloadFailures(unsampled)).toEqual(["the intakes' memory was not sampled through the burst"]);
  });

  it("fails an overload fault whose burst never ran", () => {
    expect(overloadFailures({ ...overloadFault(), overload: null })).toEqual([
      "the overload burst did not run",
    ]);
  });
});
