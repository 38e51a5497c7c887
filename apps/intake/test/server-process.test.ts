// The real entry point: `node apps/intake/src/server.ts` refuses a bad environment, and with a good one
// listens, serves, and exits 0 on SIGTERM.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { configToEnv, createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closedPort } from "./support/intake-test-kit.ts";

const SERVER = fileURLToPath(new URL("../src/server.ts", import.meta.url));

let env: TestEnvironment;
const children: ChildProcess[] = [];

beforeAll(async () => {
  env = await createTestEnvironment("server-process");
});

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await env?.cleanup();
});

function start(extraEnv: Record<string, string>) {
  const child = spawn(process.execPath, [SERVER], {
    env: { ...process.env, ...configToEnv(env.config), LOG_LEVEL: "info", ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => output };
}

describe("node apps/intake/src/server.ts", () => {
  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["REDIS_URL", "http://127.0.0.1:6379"],
    ["SHARD_URLS", "postgres://127.0.0.1/a,,postgres://127.0.0.1/b"],
  ])("exits non-zero naming %s when it is %j", async (variable, value) => {
    const server = start({ [variable]: value });
    const { code } = await server.exited;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(server.output()).toContain(variable);
    expect(server.output()).toMatch(/invalid configuration/);
  });

  it("listens with a good environment and exits 0 on SIGTERM", async () => {
    const port = await closedPort();
    const server = start({ PORT: String(port), HOST: "127.0.0.1" });
    let health: Response | undefined;
    for (let i = 0; i < 200 && !health; i++) {
      health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      if (!health) await new Promise((resolve) => setTimeout(resolve, 50));
      if (server.child.exitCode !== null) throw new Error(`server exited early:\n${server.output()}`);
    }
    expect(health?.status).toBe(200);
    const accepted = await fetch(`http://127.0.0.1:${port}/v1/payments`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${env.serverKey}` },
      body: JSON.stringify({ userId: "server-1", amount: 5 }),
    });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get("location")).toMatch(/^\/v1\/payments\/pay_/);

    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it("on SIGTERM answers /readyz 503 for SHUTDOWN_DRAIN_SECONDS while still serving, then exits 0", async () => {
    const port = await closedPort();
    const server = start({ PORT: String(port), HOST: "127.0.0.1", SHUTDOWN_DRAIN_SECONDS: "3" });
    const url = `http://127.0.0.1:${port}`;
    let ready: Response | undefined;
    for (let i = 0; i < 200 && ready?.status !== 200; i++) {
      ready = await fetch(`${url}/readyz`).catch(() => undefined);
      if (ready?.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
      if (server.child.exitCode !== null) throw new Error(`server exited early:\n${server.output()}`);
    }
    expect(ready?.status).toBe(200);

    server.child.kill("SIGTERM");
    let draining: Response | undefined;
    for (let i = 0; i < 100 && draining?.status !== 503; i++) {
      draining = await fetch(`${url}/readyz`);
      if (draining.status !== 503) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(draining?.status).toBe(503);
    expect(((await draining!.json()) as { status: string }).status).toBe("draining");
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});

describe("each intake process's own metrics port", () => {
  const waitFor = async (url: string, server: ReturnType<typeof start>) => {
    for (let i = 0; i < 200; i++) {
      const response = await fetch(url).catch(() => undefined);
      if (response) return response;
      if (server.child.exitCode !== null) throw new Error(`server exited early:\n${server.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${url} never answered:\n${server.output()}`);
  };

  it("serves this process's /metrics on INTAKE_METRICS_PORT + FLOODGATE_INTAKE_INDEX, counting its own requests", async () => {
    const [port, base] = [await closedPort(), await closedPort()];
    // Index 1: the listener is on base + 1, and nothing on base.
    const metricsPort = base - 1;
    const server = start({
      PORT: String(port),
      HOST: "127.0.0.1",
      INTAKE_METRICS_PORT: String(metricsPort),
      FLOODGATE_INTAKE_INDEX: "1",
    });
    await waitFor(`http://127.0.0.1:${port}/healthz`, server);
    const paid = await fetch(`http://127.0.0.1:${port}/v1/payments`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${env.serverKey}` },
      body: JSON.stringify({ userId: "metrics-1", amount: 5 }),
    });
    expect(paid.status).toBe(202);
    const metrics = await waitFor(`http://127.0.0.1:${base}/metrics`, server);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/floodgate_intake_redis_commands_total(\{[^}]*\})? [1-9]/);
    expect((await fetch(`http://127.0.0.1:${base}/healthz`)).status).toBe(200);
    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it("on a taken metrics port says so in one line naming INTAKE_METRICS_PORT and exits 75 before accepting", async () => {
    const { createServer } = await import("node:net");
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const takenPort = (taken.address() as { port: number }).port;
    const port = await closedPort();
    try {
      const server = start({
        PORT: String(port),
        HOST: "127.0.0.1",
        INTAKE_METRICS_PORT: String(takenPort),
        FLOODGATE_INTAKE_INDEX: "0",
      });
      expect(await server.exited).toEqual({ code: 75, signal: null });
      const named = server
        .output()
        .split("\n")
        .filter((line) => line.includes("INTAKE_METRICS_PORT"));
      expect(named).toHaveLength(1);
      expect(named[0]).toContain(String(takenPort));
      expect(server.output()).not.toMatch(/\n\s+at /); // no stack
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      taken.close();
    }
  });
});
