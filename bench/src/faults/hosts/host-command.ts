// The test hosts are made with iproute2 (`ip`, `tc`) as root: each call runs to its end and a failure throws
// with the command and what it printed, so a half-made network is never taken for a made one.
import { execFileSync } from "node:child_process";

export function run(command: string, args: readonly string[]): string {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const failed = error as { stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")}: ${(failed.stderr || failed.message).trim()}`);
  }
}

/** For cleanup: a link or namespace already gone is what cleanup wanted. */
export function runQuietly(command: string, args: readonly string[]): boolean {
  try {
    run(command, args);
    return true;
  } catch {
    return false;
  }
}

/** `ip` followed by `args`. */
export const ip = (...args: string[]): string => run("ip", args);
