// Prometheus's promtool for the observability kit's tests: PROMTOOL_PATH, else the first on PATH. Missing, it
// fails the test with how to get one, never a skip (`./floodgate test` installs Debian's prometheus package).
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

const HOW_TO_GET_ONE =
  "The observability tests need promtool: `./floodgate test` installs it (as root with apt-get), or install " +
  "Prometheus's tools yourself (Debian/Ubuntu: apt-get install prometheus; macOS: brew install prometheus) " +
  "or set PROMTOOL_PATH to a promtool binary.";

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function promtoolPath(): string {
  const configured = process.env.PROMTOOL_PATH;
  if (configured) {
    if (!executable(configured))
      throw new Error(`PROMTOOL_PATH=${configured} is not executable. ${HOW_TO_GET_ONE}`);
    return configured;
  }
  const found = (process.env.PATH ?? "")
    .split(delimiter)
    .map((dir) => join(dir, "promtool"))
    .find(executable);
  if (!found) throw new Error(`No promtool on PATH. ${HOW_TO_GET_ONE}`);
  return found;
}

/** Runs promtool; its exit code and everything it printed (a failure is an answer, not a throw). */
export async function promtool(cwd: string, ...args: string[]): Promise<{ code: number; output: string }> {
  const path = promtoolPath();
  try {
    const { stdout, stderr } = await promisify(execFile)(path, args, { cwd });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (typeof failed.code !== "number") throw error;
    return { code: failed.code, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}
