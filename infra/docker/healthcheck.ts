// The image's HEALTHCHECK: asks the process the container runs (PID 1, which entrypoint.sh `exec`s, or the pid
// given as the first argument) for its /healthz, on the port that process was configured with: the intake on
// PORT, a worker on its own listener (WORKER_METRICS_PORT + FLOODGATE_WORKER_INDEX). Its command line and
// environment are read from /proc, so the check follows the container's command without being told it. One-off
// commands (migrate, reconcile, dlq) serve nothing and count as healthy while they run. Exit 0 healthy, 1 not.
// No imports from the workspace: it runs with a plain `node` and no export condition.
import { readFileSync } from "node:fs";

const pid = process.argv[2] ?? "1";
const fields = (file: string) => readFileSync(`/proc/${pid}/${file}`, "utf8").split("\0").filter(Boolean);
const argv = fields("cmdline");
const env = new Map(
  fields("environ").map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
);
const int = (name: string, fallback: number) => Number.parseInt(env.get(name) ?? "", 10) || fallback;

function target(): number | undefined {
  if (argv.some((arg) => arg.includes("apps/intake/"))) return int("PORT", 3000);
  if (argv.some((arg) => arg.includes("apps/worker/"))) {
    const base = Number.parseInt(env.get("WORKER_METRICS_PORT") ?? "9464", 10);
    return base > 0 ? base + int("FLOODGATE_WORKER_INDEX", 0) : undefined;
  }
  return undefined;
}

const port = target();
if (port === undefined) process.exit(0);
// A wildcard HOST listens on loopback too; a specific address is asked where it listens.
const host = env.get("HOST") ?? "127.0.0.1";
const address = ["0.0.0.0", "::", "localhost", ""].includes(host) ? "127.0.0.1" : host;
const url = `http://${address.includes(":") ? `[${address}]` : address}:${port}/healthz`;
try {
  const answer = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  if (answer.ok) process.exit(0);
  process.stderr.write(`healthcheck: ${url} answered ${answer.status}\n`);
} catch (error) {
  process.stderr.write(`healthcheck: ${url}: ${(error as Error).message}\n`);
}
process.exit(1);
