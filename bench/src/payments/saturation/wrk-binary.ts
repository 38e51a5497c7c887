// wrk, the C load generator of --generator wrk: on PATH, else installed from Debian's package when the bench runs
// as root (as `./floodgate test` installs Chromium), else an error saying how to get it.
import { execFileSync } from "node:child_process";

const HOW_TO_GET_IT =
  "--generator wrk needs wrk (https://github.com/wg/wrk): `apt-get install wrk` on Debian/Ubuntu, `brew install wrk` on macOS, or run the bench as root to have it installed";

function wrkOnPath(): string | null {
  try {
    return execFileSync("sh", ["-c", "command -v wrk"], { encoding: "utf8" }).trim() || null;
  } catch {
    return null;
  }
}

function aptGet(...args: string[]): boolean {
  try {
    execFileSync("apt-get", ["-o", "DPkg::Lock::Timeout=120", ...args], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    return true;
  } catch {
    return false;
  }
}

/** The wrk binary's path, installing it first when it is missing and this process may. */
export function ensureWrk(log: (line: string) => void): string {
  const found = wrkOnPath();
  if (found !== null) return found;
  if (process.getuid?.() !== 0) throw new Error(`wrk is not on PATH. ${HOW_TO_GET_IT}`);
  log("wrk is not on PATH: apt-get install -y wrk");
  // A fresh container has no package lists yet: update only when the install needs it.
  if (
    !aptGet("install", "-y", "-qq", "wrk") &&
    !(aptGet("update", "-qq") && aptGet("install", "-y", "-qq", "wrk"))
  ) {
    throw new Error(`apt-get could not install wrk (see above). ${HOW_TO_GET_IT}`);
  }
  const installed = wrkOnPath();
  if (installed === null) throw new Error(`wrk is still not on PATH after apt-get. ${HOW_TO_GET_IT}`);
  return installed;
}
