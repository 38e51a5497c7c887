// Runs a server (Floodgate's start command, or the baseline) as a child process: output goes to a log file,
// readiness is an HTTP probe, and every child is tracked so Ctrl-C on the bench stops them all.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface ServiceSpec {
  name: string;
  /** Script path relative to the repository root, run with this Node. */
  script: string;
  /** The checkout the script runs from (another worktree of this repository); default this one. */
  checkout?: string;
  env: Record<string, string>;
  port: number;
  readyPath: string;
  readyTimeoutMs: number;
  logFile: string;
  /** Runs the script through another command (e.g. `ip netns exec <host>`: a process on a test host). */
  launcher?: (file: string, args: string[]) => { file: string; args: string[] };
  /** Where it is reached (default 127.0.0.1). */
  host?: string;
}

export interface RunningService {
  name: string;
  baseUrl: string;
  pid: number;
  spawnedAt: number;
  readyAt: number;
  stop(): Promise<void>;
}

const running = new Set<RunningService>();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("could not pick a free port");
  return address.port;
}

export async function startService(spec: ServiceSpec): Promise<RunningService> {
  const log = createWriteStream(spec.logFile, { flags: "a" });
  log.write(`\n--- ${new Date().toISOString()} ${spec.name}: ${JSON.stringify(spec.env)}\n`);
  let tail = "";
  const spawnedAt = Date.now();
  // Its own process group, so a stuck child and its own children can be killed together as a last resort.
  const launched = spec.launcher?.(process.execPath, [spec.script]) ?? {
    file: process.execPath,
    args: [spec.script],
  };
  const child = spawn(launched.file, launched.args, {
    cwd: spec.checkout ?? REPO_ROOT,
    env: { ...process.env, ...spec.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  for (const stream of [child.stdout, child.stderr]) {
    stream.on("data", (chunk: Buffer) => {
      log.write(chunk);
      tail = (tail + chunk.toString()).slice(-2000);
    });
  }
  let exitCode: number | string | null | undefined;
  const exited = once(child, "exit").then(([code, signal]) => {
    exitCode = code ?? signal;
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${spec.name}: could not spawn ${spec.script}`);
  const baseUrl = `http://${spec.host ?? "127.0.0.1"}:${spec.port}`;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= terminate();
    return stopping;
  };
  const terminate = async (): Promise<void> => {
    if (exitCode === undefined) {
      child.kill("SIGTERM");
      const gracefully = await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)]);
      if (!gracefully) log.write(`--- ${spec.name} ignored SIGTERM for 30 s; killing its process group\n`);
    }
    // Children of the child (intake, workers) must not outlive it: give them a moment, then kill the group.
    for (let i = 0; i < 50 && groupAlive(pid); i++) await sleep(100);
    if (groupAlive(pid)) process.kill(-pid, "SIGKILL");
    await exited;
    running.delete(service);
    log.end();
  };

  const service: RunningService = { name: spec.name, baseUrl, pid, spawnedAt, readyAt: 0, stop };
  running.add(service);
  const deadline = Date.now() + spec.readyTimeoutMs;
  while (true) {
    if (exitCode !== undefined) {
      await stop();
      throw new Error(`${spec.name} exited (${exitCode}) before it was ready; last output:\n${tail}`);
    }
    if (await probe(`${baseUrl}${spec.readyPath}`)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${spec.name} not ready after ${spec.readyTimeoutMs / 1000} s; last output:\n${tail}`);
    }
    await sleep(250);
  }
  service.readyAt = Date.now();
  return service;
}

async function probe(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops every child still running (used on Ctrl-C and on errors). */
export async function stopAllServices(): Promise<void> {
  await Promise.all([...running].map((service) => service.stop()));
}
