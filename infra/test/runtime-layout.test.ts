// The production image's runtime stage, assembled by the Dockerfile's own script into a temporary folder (no
// Docker engine here), then run as the image runs: migrate and reconcile (the Job's two steps) on fresh
// databases, the intake answering /healthz and /readyz and the worker consuming, both passing the image's
// HEALTHCHECK; and none of the repository's development tools in the layout's node_modules.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropDatabases } from "@floodgate/db";
import { configToEnv, createTestEnvironment, freePort, type TestEnvironment } from "@floodgate/test-fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeCommands, ROOT } from "./deploy-files.ts";
import {
  assembleRuntime,
  healthcheck,
  type ImageProcess,
  installedPackages,
  outputContains,
  runImageCommand,
} from "./runtime-layout.ts";

// What only develops, tests or builds: the issue named the first two, found in the image before.
const DEV_ONLY = [
  "vitest",
  "playwright-core",
  "typescript",
  "@biomejs/biome",
  "turbo",
  "esbuild",
  "vite",
  "@apidevtools/swagger-parser",
  "@floodgate/test-fixtures",
  "@floodgate/package-build",
];
const APPS = ["intake", "worker", "cli"];

let env: TestEnvironment;
let layout: string;
let databases: { global: string; shards: string[] };
let imageEnv: Record<string, string>;
const running: ImageProcess[] = [];

beforeAll(async () => {
  layout = mkdtempSync(join(tmpdir(), "floodgate-runtime-"));
  env = await createTestEnvironment("runtime-layout", { shards: 1 });
  // Databases nothing has migrated, beside the environment's own: the image's migrate makes and migrates them.
  const fresh = (name: string) => env.config.databaseUrl.replace(/\/([^/?]+)(\?|$)/, `/$1_${name}$2`);
  databases = { global: fresh("img"), shards: [fresh("img_s0"), fresh("img_s1")] };
  imageEnv = {
    ...configToEnv(env.config),
    DATABASE_URL: databases.global,
    SHARD_URLS: databases.shards.join(","),
    ADMIN_API_KEY: "image-test-admin-key",
    LOG_LEVEL: "info",
  };
  await assembleRuntime(layout);
}, 120_000);

afterAll(async () => {
  for (const run of running) if (run.child.exitCode === null) run.child.kill("SIGKILL");
  await Promise.all(running.map((run) => run.exited));
  await dropDatabases([databases.global, ...databases.shards]);
  await env?.cleanup();
  rmSync(layout, { recursive: true, force: true });
});

async function runToEnd(args: string[]) {
  const run = runImageCommand(layout, args, imageEnv);
  running.push(run);
  return { code: await run.exited, output: run.output() };
}

describe("the runtime image's layout", () => {
  it("holds each app's production dependencies and none of the development tools", () => {
    // The check reads names as the repository's own install holds them, where the tools are.
    const repository = installedPackages(join(ROOT, "node_modules"));
    for (const name of DEV_ONLY.filter((n) => !n.startsWith("@floodgate/"))) {
      expect(repository.has(name), `the repository installs ${name}`).toBe(true);
    }
    for (const app of APPS) {
      const installed = installedPackages(join(layout, "apps", app, "node_modules"));
      expect(installed.size, app).toBeGreaterThan(0);
      for (const name of DEV_ONLY) expect(installed.has(name), `${app}: ${name}`).toBe(false);
    }
    // And each app's own devDependencies: none is linked for its code to import.
    for (const app of APPS) {
      const manifest = JSON.parse(readFileSync(join(ROOT, "apps", app, "package.json"), "utf8"));
      for (const name of Object.keys(manifest.devDependencies ?? {})) {
        expect(existsSync(join(layout, "apps", app, "node_modules", name)), `${app}: ${name}`).toBe(false);
      }
      for (const name of Object.keys(manifest.dependencies)) {
        expect(existsSync(join(layout, "apps", app, "node_modules", name)), `${app}: ${name}`).toBe(true);
      }
    }
    expect(installedPackages(join(layout, "apps/intake/node_modules")).has("fastify")).toBe(true);
    expect(installedPackages(join(layout, "apps/worker/node_modules")).has("@floodgate/node")).toBe(true);
  });

  it("holds every script the entry point runs", () => {
    const scripts = [...nodeCommands("infra/docker/entrypoint.sh").values()];
    expect(scripts).toContain("apps/intake/src/server.ts");
    for (const script of scripts) expect(existsSync(join(layout, script)), script).toBe(true);
  });

  it("carries the workspace libraries as JavaScript only: Node strips no types under node_modules", () => {
    for (const app of APPS) {
      const scope = join(layout, "apps", app, "node_modules/@floodgate");
      for (const library of readdirSync(scope)) {
        const files = readdirSync(join(scope, library), { recursive: true }) as string[];
        const typescript = files.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"));
        expect(typescript, `${app}: @floodgate/${library}`).toEqual([]);
        const manifest = JSON.parse(readFileSync(join(scope, library, "package.json"), "utf8"));
        const entry = manifest.exports["."];
        const target = typeof entry === "string" ? entry : (entry["floodgate-dist"] ?? entry.default);
        expect(existsSync(join(scope, library, target)), `${app}: @floodgate/${library} ${target}`).toBe(
          true,
        );
      }
    }
  });

  it("migrates and reconciles new databases, as the Job does", async () => {
    const migrate = await runToEnd(["migrate"]);
    expect(migrate.output).toContain("done: global + 2 shards");
    expect(migrate.code).toBe(0);
    const reconcile = await runToEnd(["reconcile", "--dry-run"]);
    expect(reconcile.code, reconcile.output).toBe(0);
  });

  it("runs the intake, which answers /healthz and /readyz and passes the HEALTHCHECK", async () => {
    const port = await freePort();
    const intake = runImageCommand(layout, ["intake"], { ...imageEnv, PORT: String(port) });
    running.push(intake);
    await outputContains(intake, "Server listening at");
    for (const path of ["/healthz", "/readyz"]) {
      const answer = await fetch(`http://127.0.0.1:${port}${path}`);
      expect(answer.status, `${path}: ${await answer.clone().text()}`).toBe(200);
    }
    const pid = intake.child.pid as number;
    expect(await healthcheck(layout, pid)).toEqual({ code: 0, stderr: "" });
    intake.child.kill("SIGTERM");
    expect(await intake.exited).toBe(0);
    // The process gone, the same check fails.
    expect(await healthcheck(layout, pid)).toEqual({ code: 1, stderr: `healthcheck: no process ${pid}\n` });
  });

  it("runs a worker, which consumes and passes the HEALTHCHECK on its own listener", async () => {
    const metricsPort = await freePort();
    const worker = runImageCommand(layout, ["worker"], {
      ...imageEnv,
      WORKER_METRICS_PORT: String(metricsPort),
    });
    running.push(worker);
    await outputContains(worker, "worker consuming");
    const answer = await fetch(`http://127.0.0.1:${metricsPort}/healthz`);
    expect(answer.status).toBe(200);
    expect(await healthcheck(layout, worker.child.pid as number)).toEqual({ code: 0, stderr: "" });
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  });

  it("finds the process under an init (docker run --init), and fails while its listener does not answer", async () => {
    const metricsPort = await freePort();
    const wrapped = runImageCommand(
      layout,
      ["worker"],
      { ...imageEnv, WORKER_METRICS_PORT: String(metricsPort) },
      { init: true },
    );
    running.push(wrapped);
    const group = -(wrapped.child.pid as number);
    try {
      await outputContains(wrapped, "worker consuming");
      expect(await healthcheck(layout, wrapped.child.pid as number)).toEqual({ code: 0, stderr: "" });
      // Paused, the worker takes the connection (the kernel does) and never answers: the check times out.
      process.kill(group, "SIGSTOP");
      const stopped = await healthcheck(layout, wrapped.child.pid as number);
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toMatch(
        new RegExp(`^healthcheck: worker: http://127\\.0\\.0\\.1:${metricsPort}/healthz: `),
      );
    } finally {
      process.kill(group, "SIGKILL");
    }
    await wrapped.exited;
  });
});
