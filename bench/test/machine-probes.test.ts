import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { loopbackRoundTripUs, memoryReadNs } from "../src/machine-probes.ts";

const tcpHandles = () => process.getActiveResourcesInfo().filter((name) => name.startsWith("TCP")).length;

describe("machine probes", () => {
  it("times loopback round trips and closes its server and socket", async () => {
    const before = tcpHandles();
    const us = await loopbackRoundTripUs(200);
    expect(Number.isFinite(us)).toBe(true);
    expect(us).toBeGreaterThan(0);
    await sleep(50); // close completes on the next turns of the event loop
    expect(tcpHandles()).toBe(before);
  });

  it("times dependent memory reads", () => {
    const ns = memoryReadNs(10_000, 1 << 12);
    expect(Number.isFinite(ns)).toBe(true);
    expect(ns).toBeGreaterThan(0);
  });
});
