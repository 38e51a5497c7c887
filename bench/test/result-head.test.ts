import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../src/harness/child-service.ts";
import { type ResultHead, resultHeader, summaryHead } from "../src/harness/result-head.ts";
import { testResultHeader } from "./support/result-fixture.ts";

const head = (changes: Partial<ResultHead<string>> = {}): ResultHead<string> => ({
  ...testResultHeader("payments", {}),
  error: null,
  ...changes,
});

const SERVICES = {
  postgres: { version: "18.1", fsync: "on" },
  redis: { version: "8.2.1", appendonly: "yes", save: "" },
};

describe("resultHeader", () => {
  it("records the scenario, the commit, the machine with its calibration, the options and the log file", () => {
    const calibration = { oneThreadMs: 120, twoThreadsMs: 125, loopbackRoundTripUs: 30, memoryReadNs: 90 };
    const header = resultHeader(
      "coupon-drop",
      {
        startedAt: new Date("2026-11-28T08:00:00.000Z"),
        stamp: "20261128T080000Z",
        logFile: path.join(REPO_ROOT, "bench", "results", "run.log"),
        cpuCalibration: calibration,
      },
      { requests: 100, workers: 2 },
      "autocannon",
    );
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(header).toMatchObject({
      scenario: "coupon-drop",
      startedAt: "2026-11-28T08:00:00.000Z",
      finishedAt: null,
      commit: commit.trim(),
      services: null,
      settings: {
        requests: 100,
        workers: 2,
        systemEnvironment: null,
        logFile: path.join("bench", "results", "run.log"),
      },
      loadGenerator: "autocannon",
    });
    expect(typeof header.dirty).toBe("boolean");
    expect(header.machine).toMatchObject({
      cpuCount: os.availableParallelism(),
      cpuCalibration: calibration,
    });
  });

  it("records no calibration when the run took none", () => {
    const header = resultHeader(
      "payments",
      { startedAt: new Date(), stamp: "x", logFile: path.join(REPO_ROOT, "x.log") },
      {},
      "autocannon",
    );
    expect(header.machine.cpuCalibration).toBeNull();
  });
});

describe("summaryHead", () => {
  it("names the scenario, commit, machine and services, and nothing else on a quiet machine", () => {
    expect(summaryHead(head({ services: SERVICES }))).toEqual([
      "payments bench, commit abc1234, 2 x Test CPU, 8 GiB, node v24.0.0",
      'postgres: version 18.1, fsync on; redis: version 8.2.1, appendonly yes, save ""',
    ]);
  });

  it("says when the tree had uncommitted changes, or there was no commit, and gives the calibration", () => {
    const machine = {
      ...head().machine,
      cpuCalibration: { oneThreadMs: 120, twoThreadsMs: 125, loopbackRoundTripUs: 30, memoryReadNs: 90 },
    };
    expect(summaryHead(head({ dirty: true, machine }))[0]).toBe(
      "payments bench, commit abc1234 (uncommitted changes), 2 x Test CPU, 8 GiB, node v24.0.0, cpu calibration 120 ms one thread / 125 ms two, loopback 30 µs, memory read 90 ns",
    );
    // A result written before the machine probes existed has a calibration without them.
    const older = { ...machine, cpuCalibration: { oneThreadMs: 120, twoThreadsMs: 125 } };
    expect(summaryHead(head({ commit: null, machine: older }))[0]).toBe(
      "payments bench, commit none, 2 x Test CPU, 8 GiB, node v24.0.0, cpu calibration 120 ms one thread / 125 ms two",
    );
  });

  it("says when the services' settings are unknown or could not be read", () => {
    expect(summaryHead(head())[1]).toBe("services: unknown");
    expect(
      summaryHead(head({ services: { postgres: { error: "refused" }, redis: { version: "8.2.1" } } }))[1],
    ).toBe("postgres: error refused; redis: version 8.2.1");
  });

  it("warns when something else was using the cpus as the run started", () => {
    const machine = { ...head().machine, loadAverageAtStart: [1.25, 0.5, 0.2] };
    expect(summaryHead(head({ machine }))).toContain(
      "WARNING: 1-minute load average was 1.25 when the run started: other work shares the cpus, figures are unreliable",
    );
    expect(summaryHead(head())).toHaveLength(2);
  });
});
