// A redis-server of the test's own, for behaviour the shared one must not be configured for (a tiny maxmemory
// would make every other test file's writes fail). It keeps nothing on disk and is stopped by the test.
import { spawn } from "node:child_process";
import { Redis } from "ioredis";
import { closedPort } from "./intake-test-kit.ts";

export interface PrivateRedis {
  url: string;
  /** A client for the test's own checks and setup. */
  client: Redis;
  stop(): Promise<void>;
  /** SIGKILL, as a crash: whatever it held in memory is gone. */
  kill(): Promise<void>;
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
  const child = spawn("redis-server", args, { stdio: "ignore" });
  const killOnExit = () => child.kill("SIGKILL"); // a test run that dies before stop() must not leave it behind
  process.on("exit", killOnExit);
  let spawnError: Error | undefined;
  child.on("error", (error) => {
    spawnError = error;
  });
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
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
  // Either may be called after the other: a server already gone is not waited for again.
  const end = async (signal: NodeJS.Signals) => {
    process.off("exit", killOnExit);
    client.disconnect();
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill(signal);
    await exited;
  };
  return {
    url,
    client,
    stop: () => end("SIGTERM"),
    kill: () => end("SIGKILL"),
  };
}
