// The Redis CPU measure (issue 30, target 2): INFO cpu read on the test Redis before and after some work, the
// per-payment division, and its line.
import { testRedisUrl } from "@floodgate/test-fixtures";
import { describe, expect, it } from "vitest";
import {
  redisCpu,
  redisCpuLine,
  startRedisCpuMeasure,
} from "../src/redis-footprint/redis-cpu-per-payment.ts";

describe("Redis CPU per applied payment", () => {
  it("reads Redis's own CPU before and after, and divides it by the payments applied", async () => {
    const measure = await startRedisCpuMeasure(testRedisUrl());
    const cpu = await measure.finish(1000);
    expect(cpu).not.toBeNull();
    expect(cpu!.cpuSeconds).toBeGreaterThanOrEqual(0);
    expect(cpu!.applied).toBe(1000);
    // cpuSeconds is kept to the millisecond, usPerApplied from the unrounded reading: 1,000 payments put them
    // within half a microsecond (and a tenth for usPerApplied's own rounding) of each other.
    expect(cpu!.usPerApplied).not.toBeNull();
    expect(Math.abs(cpu!.usPerApplied! - cpu!.cpuSeconds * 1000)).toBeLessThanOrEqual(0.55);
  });

  it("says what one core carries at the cost, and n/a with nothing applied", () => {
    expect(redisCpu(1.2, 60_000)).toMatchObject({ usPerApplied: 20, paymentsPerCoreSecond: 50_000 });
    expect(redisCpuLine(redisCpu(1.2, 60_000))).toBe(
      "Redis CPU: 20 µs per applied payment, everything counted (60,000 payments, 1.2 s; one core carries 50,000/s at this cost)",
    );
    expect(redisCpu(0.5, 0)).toMatchObject({ usPerApplied: null, paymentsPerCoreSecond: null });
  });

  it("leaves the measure out, never the run, when Redis cannot be read", async () => {
    const measure = await startRedisCpuMeasure("redis://127.0.0.1:1");
    expect(await measure.finish(10)).toBeNull();
  });
});
