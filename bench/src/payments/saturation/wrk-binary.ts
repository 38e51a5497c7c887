// wrk, the C load generator of --generator wrk: on PATH, else installed from Debian's package when the bench runs
// as root, else an error saying how to get it.
import { ensureCommand } from "../../harness/debian-package.ts";

const HOW_TO_GET_IT =
  "--generator wrk needs wrk (https://github.com/wg/wrk): `apt-get install wrk` on Debian/Ubuntu, `brew install wrk` on macOS, or run the bench as root to have it installed";

/** The wrk binary's path, installing it first when it is missing and this process may. */
export function ensureWrk(log: (line: string) => void): string {
  const wrk = ensureCommand("wrk", "wrk", log);
  if (wrk === null) throw new Error(`wrk is not on PATH (and could not be installed). ${HOW_TO_GET_IT}`);
  return wrk;
}
