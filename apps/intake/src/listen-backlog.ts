// The accept queue a flash crowd needs, and whether the kernel grants it. listen(2) silently caps the backlog
// at net.core.somaxconn; past the cap the kernel drops connections and clients retry after 1, 3, 7 s. The
// default flash-sale bench saw that on a machine capped at 4,096: 3,150 listen overflows and 2,618 SYN
// retransmissions in one run, sockets opening p50 2.9 s after they were created.
import { readFile } from "node:fs/promises";
import { INTAKE_LISTEN_BACKLOG } from "@floodgate/config";

const SOMAXCONN_PATH = "/proc/sys/net/core/somaxconn";

/** net.core.somaxconn, or null where it cannot be read (not Linux, or no /proc). */
export async function readSomaxconn(path = SOMAXCONN_PATH): Promise<number | null> {
  try {
    const value = Number.parseInt(await readFile(path, "utf8"), 10);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/** A warning for the start-up log when the kernel caps the backlog below `requested`, else null. */
export function backlogCapWarning(
  somaxconn: number | null,
  requested = INTAKE_LISTEN_BACKLOG,
): string | null {
  if (somaxconn === null || somaxconn >= requested) return null;
  return (
    `net.core.somaxconn is ${somaxconn}: the listen backlog of ${requested} is capped to it, and a crowd that ` +
    `fills the accept queue beyond it has its connections dropped and retried by clients after 1-7 s ` +
    `(raise it: sysctl -w net.core.somaxconn=${requested})`
  );
}
