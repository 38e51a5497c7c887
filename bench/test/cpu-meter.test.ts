import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  classifyProcess,
  describeCpuUsage,
  parseStatTicks,
  startCpuMeter,
} from "../src/harness/cpu-meter.ts";

describe("parseStatTicks", () => {
  it("adds utime and stime, counting fields after the name even when it holds spaces and parentheses", () => {
    const stat = "4242 (node (x) y) S 1 4242 4242 0 -1 4194304 100 0 0 0 1234 567 0 0 20 0 11 0 9999 0 0";
    expect(parseStatTicks(stat)).toEqual({ name: "node (x) y", ticks: 1234 + 567 });
  });

  it("refuses a line it cannot read", () => {
    expect(parseStatTicks("garbage")).toBeNull();
  });
});

describe("classifyProcess", () => {
  it("names the parts of a Floodgate run", () => {
    expect(classifyProcess(process.pid, "node bench/src/bench-command.ts payments", "node")).toBe(
      "loadGenerator",
    );
    expect(classifyProcess(1, "/x/node /repo/apps/intake/src/server.ts ", "node")).toBe("intake");
    expect(classifyProcess(2, "/x/node /repo/apps/worker/src/main.ts ", "node")).toBe("workers");
    expect(classifyProcess(3, "redis-server 127.0.0.1:6379 ", "redis-server")).toBe("redis");
    expect(classifyProcess(4, "postgres: 15/main: postgres shard_0 127.0.0.1(5000) idle ", "postgres")).toBe(
      "postgres",
    );
    expect(classifyProcess(5, "/usr/sbin/sshd ", "sshd")).toBe("other");
    // --generator wrk: the load generator is a child process.
    expect(classifyProcess(6, "/usr/bin/wrk --threads 1 --connections 100 ", "wrk")).toBe("loadGenerator");
  });
});

describe.runIf(existsSync("/proc/self/stat"))("startCpuMeter", () => {
  it("charges this process's own work to the load generator", () => {
    const meter = startCpuMeter(2);
    let x = 0;
    const until = process.cpuUsage().user + 300_000; // 300 ms of user cpu
    while (process.cpuUsage().user < until) x += Math.sqrt(x + 1);
    const usage = meter.stop();
    expect(x).toBeGreaterThan(0);
    expect(usage).not.toBeNull();
    expect(usage!.percentOfOneCore.loadGenerator).toBeGreaterThan(0);
    expect(usage!.totalPercent).toBeGreaterThanOrEqual(usage!.percentOfOneCore.loadGenerator);
    expect(describeCpuUsage(usage)).toContain("load generator");
  });
});
