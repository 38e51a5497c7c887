// A child that keeps dying (a taken metrics port, a crash at start) is restarted after a growing, capped delay,
// and the supervisor says so: never a tight restart loop.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT_METRICS_PORT_IN_USE, ProcessSupervisor } from "./process-supervisor.ts";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "floodgate-supervisor-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function scriptExiting(code: number): Promise<string> {
  const script = join(dir, `exit-${code}.mjs`);
  await writeFile(script, `process.exit(${code});\n`);
  return script;
}

async function restartLines(code: number, count: number): Promise<string[]> {
  const lines: string[] = [];
  const supervisor = new ProcessSupervisor((line) => lines.push(line), {
    firstMs: 20,
    maxMs: 160,
    healthyAfterMs: 60_000,
  });
  supervisor.start({
    name: "worker-0",
    script: await scriptExiting(code),
    env: process.env,
    metricsPortVariable: "WORKER_METRICS_PORT",
  });
  const deadline = Date.now() + 30_000;
  while (lines.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await supervisor.stop();
  return lines.slice(0, count);
}

const delays = (lines: string[]) => lines.map((line) => Number(/restarting in (\d+) ms/.exec(line)?.[1]));

describe("ProcessSupervisor", () => {
  it("backs off a child whose metrics port is taken, naming the variable, with a growing delay up to its cap", async () => {
    const lines = await restartLines(EXIT_METRICS_PORT_IN_USE, 6);
    expect(lines).toHaveLength(6);
    expect(delays(lines)).toEqual([20, 40, 80, 160, 160, 160]);
    for (const line of lines) {
      expect(line).toContain("WORKER_METRICS_PORT");
      expect(line).toContain("backing off");
    }
  });

  it("backs off any child that keeps exiting", async () => {
    const lines = await restartLines(1, 4);
    expect(delays(lines)).toEqual([20, 40, 80, 160]);
    expect(lines[0]).toContain("exited (code 1)");
  });

  it("starts a child with its Node options before its script", async () => {
    const written = join(dir, "exec-argv.json");
    const script = join(dir, "exec-argv.mjs");
    // Stays up until stopped: an exit would be restarted.
    await writeFile(
      script,
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(written)}, JSON.stringify(process.execArgv));\nsetInterval(() => {}, 1000);\n`,
    );
    const supervisor = new ProcessSupervisor(() => {});
    supervisor.start({
      name: "intake-0",
      script,
      nodeOptions: ["--max-semi-space-size=64"],
      env: process.env,
    });
    let execArgv: string | undefined;
    const deadline = Date.now() + 30_000;
    while (execArgv === undefined && Date.now() < deadline) {
      execArgv = await readFile(written, "utf8").catch(() => undefined);
      if (execArgv === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    await supervisor.stop();
    expect(JSON.parse(execArgv ?? "[]")).toContain("--max-semi-space-size=64");
  });
});
