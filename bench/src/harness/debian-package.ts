// A tool a bench needs and the machine lacks: found on PATH, else installed from Debian's package when the bench
// runs as root (as `./floodgate test` installs Chromium), else null and the caller says how to get it.
import { execFileSync } from "node:child_process";

export function commandOnPath(command: string): string | null {
  try {
    return execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim() || null;
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

/** The command's path, installing `debianPackage` first when it is missing and this process is root; null when
 * it is still missing (not root, or apt-get failed: its errors went to stderr). */
export function ensureCommand(
  command: string,
  debianPackage: string,
  log: (line: string) => void,
): string | null {
  const found = commandOnPath(command);
  if (found !== null || process.getuid?.() !== 0) return found;
  log(`${command} is not on PATH: apt-get install -y ${debianPackage}`);
  // A fresh container has no package lists yet: update only when the install needs it.
  const installed =
    aptGet("install", "-y", "-qq", debianPackage) ||
    (aptGet("update", "-qq") && aptGet("install", "-y", "-qq", debianPackage));
  return installed ? commandOnPath(command) : null;
}
