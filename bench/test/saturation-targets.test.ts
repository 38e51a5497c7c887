// The saturation comparison's Floodgate keeps the payments' per-user limit checked on every request: only its
// quota is raised past what wrk's 5,000 shoppers reach, so the comparison still pays for the limit.

import { parseRateLimits } from "@floodgate/config";
import { DEFAULT_RATE_LIMITS } from "@floodgate/domain";
import { describe, expect, it } from "vitest";
import { INTAKE_ALONE } from "../src/payments/saturation/saturation-targets.ts";

describe("the saturation comparison's intake", () => {
  const policies = parseRateLimits(INTAKE_ALONE.RATE_LIMITS);

  it("checks a per-user bucket on every payment, with a quota above 5,000 shoppers at 60,000/s", () => {
    expect(DEFAULT_RATE_LIMITS.payments.user).not.toBeNull();
    const user = policies.payments.user;
    expect(user).not.toBeNull();
    expect(user!.rate).toBeGreaterThanOrEqual(60_000 / 5_000);
    expect(user!.rate).toBeGreaterThan(DEFAULT_RATE_LIMITS.payments.user!.rate);
  });

  it("turns off only the per-address limits (the whole load comes from one address)", () => {
    expect(policies.payments.ip).toBeNull();
    for (const [routeClass, policy] of Object.entries(policies)) {
      if (routeClass !== "payments")
        expect(policy.user).toEqual(DEFAULT_RATE_LIMITS[routeClass as keyof typeof policies].user);
    }
  });
});
