import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { loopbackRoundTripUs, memoryReadNs } from "../src/harness/machine-probes.ts";

const tcpHandles = () => process.getActiveResourcesInfo().filter((name) => name.startsWith("TCP")).length;

/** Node lists a closed handle until its close callback has run, a few loop turns later: poll, bounded. */
async function tcpHandlesSettleTo(count: number): Promise<number> {
  for (let i = 0; i < 200 && tcpHandles() !== count; i++) await sleep(10);
  return tcpHandles();
}

describe("machine probes", () => {
  it("times loopback round trips and closes its server and sockets", async () => {
    const before = tcpHandles();
    const us = await loopbackRoundTripUs(200);
    expect(Number.isFinite(us)).toBe(true);
    expect(us).toBeGreaterThan(0);
    expect(await tcpHandlesSettleTo(before)).toBe(before);
  });

  it("times dependent memory reads", () => {
    const ns = memoryReadNs(10_000, 1 << 12);
    expect(Number.isFinite(ns)).toBe(true);
    expect(ns).toBeGreaterThan(0);
  });
});
