// An intake at its open-files limit loses connections without a word. Past `ulimit -n`, accept(2) fails with
// EMFILE and libuv accepts and closes each waiting connection at once to drain the queue; Node is not told,
// nothing is logged, and the shopper's socket or WebSocket simply closes. Checked with a limit of 300: of 600
// connections, 333 closed unanswered and the log stayed empty. A waiting room's crowd holds one file per socket
// (issue 30's 20,000-socket sale met the limit in the bench's own process), so the log says it here, while there
// is still room, and names the ways out.
import { countOpenFiles, openFilesLimit } from "@floodgate/config";
import type { FastifyBaseLogger } from "fastify";

/** Warned at this share of the limit: a crowd arriving within a few seconds is still ahead. */
export const WARN_SHARE = 0.9;
/** Said to be clear again below this share, so a count hovering at the threshold warns once. */
export const CLEAR_SHARE = 0.8;
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
        `${open} open files of this process's limit of ${limit} (ulimit -n): every connection and WebSocket ` +
        "holds one, and past the limit new connections are closed unanswered with no other log line. Raise the " +
        "limit (ulimit -n, LimitNOFILE= under systemd) or spread the sockets over more intake processes " +
        "(INTAKE_PROCESSES)",
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
  /** Resolves once the check in progress, if any, has logged. */
  stop(): Promise<void>;
}

/**
 * Counts this process's open files every `intervalMs` and logs openFilesNotice's lines. Does nothing where the
 * limit or the count cannot be read (not Linux, an unlimited limit). The timer keeps no process alive.
 */
export function watchOpenFiles(
  log: FastifyBaseLogger,
  options: { limit?: number | null; intervalMs?: number; count?: () => Promise<number | null> } = {},
): OpenFilesWatch {
  const limit = options.limit === undefined ? openFilesLimit() : options.limit;
  if (limit === null) return { stop: async () => {} };
  const count = options.count ?? countOpenFiles;
  let warned = false;
  let checking: Promise<void> = Promise.resolve();
  const check = async () => {
    const open = await count();
    if (open === null) return;
    const notice = openFilesNotice(open, limit, warned);
    if (notice === null) return;
    warned = notice.level === "warn";
    log[notice.level]({ openFiles: open, openFilesLimit: limit }, notice.message);
  };
  const timer = setInterval(() => {
    checking = checking.then(check).catch((error: unknown) => {
      log.debug({ err: error }, "counting open files failed");
    });
  }, options.intervalMs ?? CHECK_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await checking;
    },
  };
}
