// A redis-server of the test's own, for behaviour the shared one must not be configured for (a tiny maxmemory
// would make every other test file's writes fail) or must not suffer (a SIGKILL, a restart). It keeps nothing
// on disk and is stopped by the test.
import { type ChildProcess, spawn } from "node:child_process";
import { Redis } from "ioredis";
import { closedPort } from "./intake-test-kit.ts";

export interface PrivateRedis {
  url: string;
  /** A client for the test's own checks and setup (a new one after a restart). */
  client: Redis;
  stop(): Promise<void>;
  /** SIGKILL, as a crash: whatever it held in memory is gone. */
  kill(): Promise<void>;
  /** SIGKILL, then a new server on the same port: Redis restarted without persistence, empty. */
  restartEmpty(): Promise<void>;
}

interface Running {
  child: ChildProcess;
  client: Redis;
  killOnExit: () => void;
}

async function launch(port: number, args: string[]): Promise<Running> {
  const child = spawn("redis-server", args, { stdio: "ignore" });
  const killOnExit = () => child.kill("SIGKILL"); // a test run that dies before stop() must not leave it behind
  process.on("exit", killOnExit);
  let spawnError: Error | undefined;
  child.on("error", (error) => {
    spawnError = error;
  });
  const client = new Redis(`redis://127.0.0.1:${port}`, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 50,
  });
  client.on("error", () => {}); // refused until the server listens; the loop below reports a server that never does
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (spawnError)
      throw new Error(`redis-server could not be started (is it on PATH?): ${spawnError.message}`);
    if (child.exitCode !== null)
      throw new Error(`redis-server exited with ${child.exitCode} (args: ${args.join(" ")})`);
    if (Date.now() > deadline) {
      process.off("exit", killOnExit);
      child.kill("SIGKILL");
      throw new Error(`redis-server on port ${port} did not answer PING within 10 s`);
    }
    try {
      if (client.status === "wait") await client.connect();
      if ((await client.ping()) === "PONG") break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { child, client, killOnExit };
}

export async function startPrivateRedis(extraArgs: string[]): Promise<PrivateRedis> {
  const port = await closedPort();
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    ...extraArgs,
  ];
  let running = await launch(port, args);
  // Either may be called after the other: a server already gone is not waited for again.
  const end = async (signal: NodeJS.Signals) => {
    const { child, client, killOnExit } = running;
    process.off("exit", killOnExit);
    client.disconnect();
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    await exited;
  };
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    client: running.client,
    stop: () => end("SIGTERM"),
    kill: () => end("SIGKILL"),
    restartEmpty: async () => {
      await end("SIGKILL");
      running = await launch(port, args);
      redis.client = running.client;
    },
  };
  return redis;
}
