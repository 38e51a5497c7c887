// An intake at its open-files limit loses connections without a word. Past the limit, accept(2) fails with
// EMFILE and libuv accepts and closes each waiting connection at once to drain the queue; Node is not told,
// nothing is logged, and the shopper's socket or WebSocket simply closes. Checked with a limit of 300: of 600
// connections, 333 closed unanswered and the log stayed empty. A waiting room's crowd holds one file per socket
// (issue 30's 20,000-socket sale met the limit in the bench's own process), so the log says it here, and names
// the ways out. Node raises its soft limit to the hard one as it starts: the hard limit is the one that counts.
import { countOpenFiles, OpenFilesExhaustedError, openFilesLimit } from "@floodgate/config";
import type { FastifyBaseLogger } from "fastify";

/** Warned at this share of the limit: a crowd still arriving has some room left. */
export const WARN_SHARE = 0.9;
/** Said to be clear again below this share, so a count hovering at the threshold warns once. */
export const CLEAR_SHARE = 0.8;
/** Listing 20,000 descriptors takes a few milliseconds: every 5 s is a negligible share of a core, and a crowd
 * that fills the limit between two checks is still reported (a full process is counted as full). */
export const CHECK_INTERVAL_MS = 5_000;

export interface OpenFilesNotice {
  level: "warn" | "info";
  message: string;
}

/**
 * What to log for `open` files of `limit`, given whether the last notice was a warning; null for nothing. Pure,
 * so the thresholds are tested without holding thousands of files.
 */
export function openFilesNotice(open: number, limit: number, warned: boolean): OpenFilesNotice | null {
  if (!warned && open >= limit * WARN_SHARE) {
    return {
      level: "warn",
      message:
        `${open} open files of this process's limit of ${limit}: every connection and WebSocket holds one, and ` +
        "past the limit new connections are closed unanswered with no other log line. Raise the hard limit " +
        "(LimitNOFILE= under systemd, --ulimit nofile= for a container, limits.conf) or spread the sockets over " +
        "more intake processes (INTAKE_PROCESSES)",
    };
  }
  if (warned && open < limit * CLEAR_SHARE) {
    return {
      level: "info",
      message: `${open} open files of the limit of ${limit}: back under ${CLEAR_SHARE * 100} %`,
    };
  }
  return null;
}

export interface OpenFilesWatch {
  /** Stops the checks; resolves once the one in progress, if any, has logged. */
  stop(): Promise<void>;
}

/**
 * Counts this process's open files every `intervalMs` and logs openFilesNotice's lines. A process with no
 * descriptor left to count with is at its limit, and is said to be. Does nothing where the limit cannot be
 * read (not Linux, unlimited). The timer keeps no process alive.
 */
export function watchOpenFiles(
  log: FastifyBaseLogger,
  options: { limit?: number | null; intervalMs?: number; count?: () => Promise<number | null> } = {},
): OpenFilesWatch {
  const limit = options.limit === undefined ? openFilesLimit() : options.limit;
  if (limit === null) return { stop: async () => {} };
  const count = options.count ?? countOpenFiles;
  let warned = false;
  let failureLogged = false;
  let running: Promise<void> | null = null;
  const check = async () => {
    let open: number | null;
    try {
      open = await count();
    } catch (error) {
      if (!(error instanceof OpenFilesExhaustedError)) throw error;
      open = limit;
    }
    if (open === null) return;
    const notice = openFilesNotice(open, limit, warned);
    if (notice === null) return;
    warned = notice.level === "warn";
    log[notice.level]({ openFiles: open, openFilesLimit: limit }, notice.message);
  };
  const timer = setInterval(() => {
    // A check still listing a slow /proc is not queued behind: the next tick counts afresh.
    if (running !== null) return;
    running = check()
      .catch((error: unknown) => {
        if (failureLogged) return;
        failureLogged = true;
        log.warn(
          { err: error },
          "counting this process's open files failed; the open-files watch goes on trying",
        );
      })
      .finally(() => {
        running = null;
      });
  }, options.intervalMs ?? CHECK_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
