// Runs a real intake process (apps/intake/src/server.ts) on a free port, so tests can SIGKILL it (the admission
// leader, say) or run several that share one Redis.
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Config } from "@floodgate/config";
import { spawnAppProcess } from "./app-process.ts";
import { configToEnv } from "./config-env.ts";
import { freePort } from "./free-port.ts";

const INTAKE_SERVER = fileURLToPath(new URL("../../../apps/intake/src/server.ts", import.meta.url));

export interface IntakeProcess {
  child: ChildProcess;
  baseUrl: string;
  port: number;
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  output(): string;
}

/** Resolves once the process answers GET /healthz. */
export async function startIntakeProcess(
  config: Config,
  env: Record<string, string> = {},
): Promise<IntakeProcess> {
  const port = await freePort();
  const { child, exited, output } = spawnAppProcess(INTAKE_SERVER, {
    ...configToEnv(config),
    HOST: "127.0.0.1",
    PORT: String(port),
    LOG_LEVEL: "info",
    ...env,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`intake exited early:\n${output()}`);
    const health = await fetch(`${baseUrl}/healthz`).catch(() => undefined);
    if (health?.ok) break;
    if (i > 400) throw new Error(`intake not healthy after 20 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    baseUrl,
    port,
    exited,
    async kill(signal = "SIGKILL") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
    output,
  };
}
