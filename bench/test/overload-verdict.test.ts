import { describe, expect, it } from "vitest";
import type { FaultResult } from "../src/faults/fault-phase.ts";
import { overloadFailures, verdict } from "../src/faults/faults-summary.ts";

const overloadFault = (changes: Record<string, unknown> = {}, shopTimeouts = 0): FaultResult =>
  ({
    name: "overload",
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

  it("fails an overload fault whose burst never ran", () => {
    expect(overloadFailures({ ...overloadFault(), overload: null })).toEqual([
      "the overload burst did not run",
    ]);
  });
});
