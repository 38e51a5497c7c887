// `./floodgate shards add <url>` as an operator runs it against the system under test: the CLI as a child
// process with the system's own environment (its SHARD_URLS, its DATABASE_URL), its output kept line by line so
// a fault can wait for a step ("switched") and the result can say how each run ended.
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { REPO_ROOT } from "../../harness/child-service.ts";

export interface ShardsAddRun {
  /** Lines printed so far (stdout and stderr), without the command's `[shards] ` prefix. */
  readonly lines: string[];
  /** How many buckets the run has switched so far (one progress line each). */
  switched(): number;
  /** The buckets the run said it would move to the new shard, once it has said so. */
  planned(): number | null;
  /** Resolves with the exit status (a signal's name when killed), or null when it still runs after `ms`. */
  exited(ms: number): Promise<number | string | null>;
  /** SIGKILL, as a crash would stop it; resolves once it has exited. */
  kill(): Promise<void>;
}

const SWITCHED = /switched \(map version \d+\)/;
const PLANNED = /^moving (\d+) buckets to shard \d+/;

export function startShardsAdd(options: {
  url: string;
  environment: Record<string, string>;
  logFile: string;
}): ShardsAddRun {
  const child: ChildProcess = spawn(
    process.execPath,
    ["apps/cli/src/shards-command.ts", "add", options.url],
    { cwd: REPO_ROOT, env: { ...process.env, ...options.environment }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const lines: string[] = [];
  let partial = "";
  const take = (chunk: Buffer) => {
    appendFileSync(options.logFile, chunk);
    const parts = (partial + chunk.toString()).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) lines.push(line.replace(/^\[shards\] /, ""));
  };
  child.stdout!.on("data", take);
  child.stderr!.on("data", take);
  let status: number | string | undefined;
  const exit = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => {
      status = code ?? signal ?? "unknown";
      resolve(status);
    }),
  );
  appendFileSync(options.logFile, `\n--- ${new Date().toISOString()} shards add ${options.url}\n`);
  return {
    lines,
    switched: () => lines.filter((line) => SWITCHED.test(line)).length,
    planned: () => {
      for (const line of lines) {
        const match = PLANNED.exec(line);
        if (match) return Number(match[1]);
      }
      return null;
    },
    exited: (ms) =>
      Promise.race([exit, new Promise<null>((resolve) => setTimeout(() => resolve(null), ms).unref())]),
    kill: async () => {
      if (status === undefined) child.kill("SIGKILL");
      await exit;
    },
  };
}
