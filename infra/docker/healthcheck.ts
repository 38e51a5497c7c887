// The image's HEALTHCHECK: asks the process the container runs (PID 1, which entrypoint.sh `exec`s, or the pid
// given as the first argument; under `docker run --init`, that init's child) for its /healthz, on the port that
// process was configured with: the intake on PORT, a worker on its own listener (WORKER_METRICS_PORT +
// FLOODGATE_WORKER_INDEX). Its command line and environment are read from /proc, so the check follows the
// container's command without being told it. One-off commands (migrate, reconcile, dlq) serve nothing and count
// as healthy while they run. Exit 0 healthy, 1 not.
// No imports from the workspace: it runs with a plain `node` and no export condition.
import { existsSync, readFileSync } from "node:fs";

const fields = (pid: string, file: string) =>
  readFileSync(`/proc/${pid}/${file}`, "utf8").split("\0").filter(Boolean);
const children = (pid: string) => {
  const file = `/proc/${pid}/task/${pid}/children`;
  return existsSync(file) ? readFileSync(file, "utf8").split(" ").filter(Boolean) : [];
};

function unhealthy(message: string): never {
  process.stderr.write(`healthcheck: ${message}\n`);
  process.exit(1);
}

interface Target {
  app: "intake" | "worker";
  env: Map<string, string>;
}

function findTarget(pid: string): Target | undefined {
  for (const candidate of [pid, ...children(pid)]) {
    const argv = fields(candidate, "cmdline");
    const app = argv.some((arg) => arg.includes("apps/intake/"))
      ? "intake"
      : argv.some((arg) => arg.includes("apps/worker/"))
        ? "worker"
        : undefined;
    if (app === undefined) continue;
    const env = new Map(
      fields(candidate, "environ").map((entry) => {
        const equals = entry.indexOf("=");
        return [entry.slice(0, equals), entry.slice(equals + 1)] as const;
      }),
    );
    return { app, env };
  }
  return undefined;
}

const pid = process.argv[2] ?? "1";
if (!existsSync(`/proc/${pid}`)) unhealthy(`no process ${pid}`);
const target = findTarget(pid);
if (target === undefined) process.exit(0);
const { app, env } = target;
const int = (name: string, fallback: number) => {
  const value = Number.parseInt(env.get(name) ?? "", 10);
  return Number.isNaN(value) ? fallback : value;
};
const port = app === "intake" ? int("PORT", 3000) : int("WORKER_METRICS_PORT", 9464);
// A worker with WORKER_METRICS_PORT=0 has no listener to ask.
if (port === 0) process.exit(0);
const listening = app === "intake" ? port : port + int("FLOODGATE_WORKER_INDEX", 0);
// A wildcard HOST listens on loopback too; a specific address is asked where it listens.
const host = env.get("HOST") ?? "127.0.0.1";
const address = ["0.0.0.0", "::", "localhost", ""].includes(host) ? "127.0.0.1" : host;
const url = `http://${address.includes(":") ? `[${address}]` : address}:${listening}/healthz`;
try {
  const answer = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  if (!answer.ok) unhealthy(`${app}: ${url} answered ${answer.status}`);
} catch (error) {
  unhealthy(`${app}: ${url}: ${(error as Error).message}`);
}
