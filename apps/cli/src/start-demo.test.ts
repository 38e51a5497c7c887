// `./floodgate start` and the demo's sign-in, which makes anyone any shopper: off unless asked for (--demo, or
// DEMO_LOGIN=on), also on a loopback HOST, where a reverse proxy on the same machine may be the whole world's
// way in; and announced at start either way. The real command, on this file's own databases and key prefix.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { configToEnv, createTestEnvironment, freePort, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SCRIPT = "apps/cli/src/start-command.ts";
/** start's last line once everything runs. */
const STARTED = "Ctrl-C stops gracefully";

let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment("start-demo", { shards: 1 });
});

afterAll(async () => {
  await env?.cleanup();
});

interface Started {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  exited: Promise<number | null>;
}

async function start(args: string[], extra: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  // Unset, as in a developer's shell (configToEnv writes the test environment's own "off").
  const { DEMO_LOGIN: _unset, ...configured } = configToEnv(env.config);
  const child = spawn(process.execPath, [SCRIPT, ...args], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      ...configured,
      HOST: "127.0.0.1",
      PORT: String(port),
      // No development server key: it would be written to the checkout's .data/.
      AUTH: "off",
      WORKERS: "0",
      INTAKE_PROCESSES: "1",
      INTAKE_METRICS_PORT: "0",
      WORKER_METRICS_PORT: "0",
      SHUTDOWN_DRAIN_SECONDS: "0",
      ...extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr!.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, baseUrl: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/** Until start has printed its last line and the intake answers /healthz (or start exited). */
async function running(started: Started): Promise<void> {
  let gone = false;
  void started.exited.then(() => {
    gone = true;
  });
  for (;;) {
    if (gone) throw new Error(`start exited:\n${started.output()}`);
    if (started.output().includes(STARTED)) {
      const health = await fetch(`${started.baseUrl}/healthz`).catch(() => undefined);
      if (health?.ok) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(started: Started): Promise<void> {
  started.child.kill("SIGTERM");
  await started.exited;
}

const signIn = (baseUrl: string) =>
  fetch(`${baseUrl}/demo/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ userId: "alice" }),
  });

const demoLine = (output: string) => output.split("\n").find((line) => line.includes("/demo/")) ?? "";

describe("./floodgate start and the demo's sign-in", () => {
  it("on a loopback HOST, stays off unless asked for, and says so", async () => {
    const started = await start([]);
    try {
      await running(started);
      expect((await signIn(started.baseUrl)).status).toBe(404);
      expect(demoLine(started.output())).toMatch(/sign-in is off.*--demo/);
    } finally {
      await stop(started);
    }
  }, 120_000);

  it("is on with --demo, and says so", async () => {
    const started = await start(["--demo"]);
    try {
      await running(started);
      const response = await signIn(started.baseUrl);
      expect(response.status, await response.clone().text()).toBe(201);
      expect(((await response.json()) as { userId: string }).userId).toBe("alice");
      expect(demoLine(started.output())).toMatch(/sign in as any shopper/);
    } finally {
      await stop(started);
    }
  }, 120_000);

  it("--demo on an address other machines reach is a configuration error naming DEMO_LOGIN, before anything starts", async () => {
    const started = await start(["--demo"], { HOST: "0.0.0.0" });
    expect(await started.exited).toBe(78);
    expect(started.output()).toMatch(/DEMO_LOGIN.*loopback/);
    expect(started.output()).not.toContain("[floodgate] redis");
  }, 60_000);
});
