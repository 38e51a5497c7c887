// One redis-server of a private test cluster: its own port and cluster-bus port (given explicitly, since the
// default bus port, port + 10000, can be past 65535 or taken), its nodes file and log in the cluster's
// temp dir, nothing persisted. Waits until it answers PING.
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Redis } from "ioredis";
import { freePort } from "./free-port.ts";

export interface ClusterNodeProcess {
  port: number;
  logPath: string;
  child: ChildProcess;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>;
}

/** A node's last log lines, for an error that says why a cluster did not form. */
export async function logTail(node: Pick<ClusterNodeProcess, "port" | "logPath">, lines = 15) {
  const text = await readFile(node.logPath, "utf8").catch(() => "(no log)");
  return `--- node ${node.port} (${node.logPath}) ---\n${text.trimEnd().split("\n").slice(-lines).join("\n")}`;
}

/** Starts a node on fresh free ports; a port taken between freePort() and the bind costs one more try. */
export async function startClusterNode(
  dir: string,
  nodeTimeoutMs: number,
  deadline: number,
): Promise<ClusterNodeProcess> {
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(dir, nodeTimeoutMs, deadline);
    } catch (error) {
      lastError = error as Error;
    }
  }
  throw lastError;
}

async function startOnce(dir: string, nodeTimeoutMs: number, deadline: number): Promise<ClusterNodeProcess> {
  const port = await freePort();
  const busPort = await freePort();
  const logPath = path.join(dir, `node-${port}.log`);
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--cluster-port",
      String(busPort),
      "--bind",
      "127.0.0.1",
      "--cluster-enabled",
      "yes",
      "--cluster-config-file",
      `nodes-${port}.conf`,
      "--cluster-node-timeout",
      String(nodeTimeoutMs),
      "--dir",
      dir,
      "--logfile",
      logPath,
      "--save",
      "",
      "--appendonly",
      "no",
    ],
    { stdio: "ignore", detached: false },
  );
  let spawnError: Error | undefined;
  child.on("error", (error) => {
    spawnError = error;
  });
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  const node = { port, logPath, child, kill };
  const client = new Redis(port, "127.0.0.1", {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 50,
  });
  client.on("error", () => {}); // refused until the server listens
  try {
    for (;;) {
      if (spawnError) throw new Error(`redis-server could not be started (on PATH?): ${spawnError.message}`);
      if (child.exitCode !== null) {
        throw new Error(`redis-server on port ${port} exited with ${child.exitCode}\n${await logTail(node)}`);
      }
      if (Date.now() > deadline) {
        await kill();
        throw new Error(`redis-server on port ${port} did not answer PING in time\n${await logTail(node)}`);
      }
      try {
        if (client.status === "wait") await client.connect();
        if ((await client.ping()) === "PONG") return node;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } catch (error) {
    await kill();
    throw error;
  } finally {
    client.disconnect();
  }
}
