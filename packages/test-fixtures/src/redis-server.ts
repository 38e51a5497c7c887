// A redis-server of the test's own, which the test can kill and start again on the same port, for faults the
// shared Redis must never see. By default it keeps nothing on disk (a restart starts empty); `persistence`
// arguments (e.g. AOF with `appendfsync always`) with a `dir` of the caller's make a restart load what it kept.
import { type ChildProcess, spawn } from "node:child_process";
import { Redis } from "ioredis";
import { freePort } from "./free-port.ts";

export interface RedisServer {
  url: string;
  /** SIGKILL, and wait for the exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port (after kill), and waits until it answers PING; `persistence` replaces the
   * persistence arguments it was started with, from this start on. */
  start(persistence?: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}

export interface RedisServerOptions {
  /** Persistence arguments; default none (`--save "" --appendonly no`). */
  persistence?: readonly string[];
  /** Its working directory (`--dir`), where persistence files go; the caller creates and removes it. */
  dir?: string;
}

const NO_PERSISTENCE = ["--save", "", "--appendonly", "no"];

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let persistence = options.persistence ?? NO_PERSISTENCE;
  const args = () => [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    ...(options.dir ? ["--dir", options.dir] : []),
    ...persistence,
  ];
  let child: ChildProcess | undefined;
  const killOnExit = () => child?.kill("SIGKILL"); // a run that dies before stop() must not leave it behind
  process.on("exit", killOnExit);

  const kill = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  const start = async (replaced?: readonly string[]) => {
    if (replaced) persistence = replaced;
    const spawned = spawn("redis-server", args(), { stdio: "ignore" });
    child = spawned;
    let spawnError: Error | undefined;
    spawned.on("error", (error) => {
      spawnError = error;
    });
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    client.on("error", () => {}); // refused until the server listens
    // Loading a large append-only file takes a while.
    const deadline = Date.now() + 30_000;
    try {
      for (;;) {
        if (spawnError)
          throw new Error(`redis-server could not be started (on PATH?): ${spawnError.message}`);
        if (spawned.exitCode !== null) throw new Error(`redis-server exited with ${spawned.exitCode}`);
        if (Date.now() > deadline)
          throw new Error(`redis-server on port ${port} did not answer PING in 30 s`);
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
  };
  await start();
  return {
    url,
    kill,
    start,
    stop: async () => {
      await kill();
      process.off("exit", killOnExit);
    },
  };
}
