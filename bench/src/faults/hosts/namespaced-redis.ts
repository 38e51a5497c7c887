// A redis-server inside a test host, listening on the host's address: the system reaches it over the bridge, so
// a partition of the host is one the kernel makes (no proxy in between). AOF with `appendfsync always`, as the
// fault suite claims "0 lost" under, in a folder the network's leftover cleanup recognises.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { ownedNames } from "./host-names.ts";
import type { TestHost } from "./test-network.ts";

export interface NamespacedRedis {
  url: string;
  host: TestHost;
  stop(): Promise<void>;
}

const PORT = 6379;

/** `extraArgs` follow the defaults (a cluster node's `--cluster-enabled yes` and its settings). */
export async function startNamespacedRedis(
  host: TestHost,
  extraArgs: readonly string[] = [],
): Promise<NamespacedRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), ownedNames().folder("redis")));
  const { file, args } = host.command("redis-server", [
    "--bind",
    host.address,
    "--port",
    String(PORT),
    // Clients come from other addresses, without a password: this Redis lives on a private bridge.
    "--protected-mode",
    "no",
    "--dir",
    dir,
    "--appendonly",
    "yes",
    "--appendfsync",
    "always",
    "--save",
    "",
    ...extraArgs,
  ]);
  const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) {
    stream!.on("data", (chunk) => {
      output += chunk;
    });
  }
  const url = `redis://${host.address}:${PORT}`;
  const stop = async () => {
    await exitOf(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await answersPing(url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, host, stop };
}

async function answersPing(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
  client.on("error", () => {});
  const deadline = Date.now() + 15_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server in its host exited:\n${output()}`);
      if (Date.now() > deadline) throw new Error(`redis-server at ${url} did not answer PING in 15 s`);
      try {
        if (client.status === "wait") await client.connect();
        if ((await client.ping()) === "PONG") return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    client.disconnect();
  }
}

async function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}
