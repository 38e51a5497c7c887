// The worker's HTTP listener: /healthz and /readyz beside /metrics, and a taken WORKER_METRICS_PORT is one
// clear line and a distinct exit code (the supervisor backs off on it) before the worker reads anything.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { fileURLToPath } from "node:url";
import { EXIT_METRICS_PORT_IN_USE } from "@floodgate/metrics";
import {
  configToEnv,
  createTestEnvironment,
  startWorkerProcess,
  type TestEnvironment,
} from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const WORKER_MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));

let env: TestEnvironment;

beforeAll(async () => {
  env = await createTestEnvironment("worker-metrics-server");
});

afterAll(async () => {
  await env?.cleanup();
});

async function listening(): Promise<Server> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return server;
}

async function freePort(): Promise<number> {
  const server = await listening();
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

describe("the worker's listener", () => {
  it("serves /healthz, /readyz and /metrics once it consumes", async () => {
    const port = await freePort();
    const worker = await startWorkerProcess(env.config, {
      WORKER_METRICS_PORT: String(port),
      HOST: "127.0.0.1",
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: "ok" });
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready" });
      expect((await fetch(`${base}/metrics`)).status).toBe(200);
      expect((await fetch(`${base}/nothing`)).status).toBe(404);
    } finally {
      await worker.stop();
    }
  });

  it("on a taken port says so in one line naming WORKER_METRICS_PORT and exits with its own code", async () => {
    const taken = await listening();
    const { port } = taken.address() as { port: number };
    try {
      const child = spawn(process.execPath, [WORKER_MAIN], {
        env: {
          ...process.env,
          ...configToEnv(env.config),
          HOST: "127.0.0.1",
          WORKER_METRICS_PORT: String(port),
          LOG_LEVEL: "info",
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
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code, output).toBe(EXIT_METRICS_PORT_IN_USE);
      const lines = output.trim().split("\n");
      const named = lines.filter((line) => line.includes("WORKER_METRICS_PORT"));
      expect(named, output).toHaveLength(1);
      expect(named[0]).toContain(`port ${port}`);
      expect(output).not.toMatch(/\n\s+at /);
      expect(output).not.toContain("worker consuming");
    } finally {
      taken.close();
    }
  });
});
