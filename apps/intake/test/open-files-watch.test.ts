import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { countOpenFiles, OpenFilesExhaustedError } from "@floodgate/config";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLEAR_SHARE, openFilesNotice, WARN_SHARE, watchOpenFiles } from "../src/open-files-watch.ts";

describe("openFilesNotice", () => {
  it("warns once at 90 % of the limit, naming the limit and the ways out", () => {
    expect(openFilesNotice(17_999, 20_000, false)).toBeNull();
    const notice = openFilesNotice(18_000, 20_000, false);
    expect(notice?.level).toBe("warn");
    expect(notice?.message).toContain("18000 open files of this process's limit of 20000");
    expect(notice?.message).toContain("closed unanswered");
    expect(notice?.message).toContain("LimitNOFILE=");
    expect(notice?.message).toContain("INTAKE_PROCESSES");
    // Still above the clear line: no second warning.
    expect(openFilesNotice(19_500, 20_000, true)).toBeNull();
    expect(openFilesNotice(16_000, 20_000, true)).toBeNull();
  });

  it("says the count is back under 80 % once, after a warning", () => {
    expect(openFilesNotice(15_999, 20_000, true)).toEqual({
      level: "info",
      message: "15999 open files of the limit of 20000: back under 80 %",
    });
    expect(openFilesNotice(100, 20_000, false)).toBeNull();
  });
});

interface LogLine {
  level: number;
  msg: string;
  openFiles: number;
  openFilesLimit: number;
}

/** A real pino logger whose lines the test reads, and a wait for the next one that fails fast. */
function capturedLog() {
  const lines: LogLine[] = [];
  let heard: () => void = () => {};
  const log = pino(
    { level: "debug" },
    {
      write(line: string) {
        lines.push(JSON.parse(line));
        heard();
      },
    },
  );
  const nextLine = () =>
    new Promise<void>((resolve, reject) => {
      const timeout = setTimeout(
        () => reject(new Error(`no log line after ${JSON.stringify(lines)}`)),
        10_000,
      );
      heard = () => {
        clearTimeout(timeout);
        resolve();
      };
    });
  return { log, lines, nextLine };
}

describe("watchOpenFiles", () => {
  it("warns as soon as the process cannot count for want of a descriptor: it is at its limit", async () => {
    const { log, lines, nextLine } = capturedLog();
    const heard = nextLine();
    const watch = watchOpenFiles(log, {
      limit: 20_000,
      intervalMs: 5,
      count: async () => {
        throw new OpenFilesExhaustedError(Object.assign(new Error("EMFILE"), { code: "EMFILE" }));
      },
    });
    try {
      await heard;
    } finally {
      await watch.stop();
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, openFiles: 20_000, openFilesLimit: 20_000 });
  });

  it("does nothing where the limit cannot be read: no count, no line", () => {
    vi.useFakeTimers();
    try {
      const { log, lines } = capturedLog();
      const count = vi.fn(async () => 1_000_000);
      const watch = watchOpenFiles(log, { limit: null, intervalMs: 1, count });
      vi.advanceTimersByTime(1_000);
      expect(count).not.toHaveBeenCalled();
      expect(lines).toEqual([]);
      void watch.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

// Real sockets in this process, counted from /proc: the watcher's count is the kernel's. Linux only (/proc).
const sockets: Socket[] = [];
let server: Server | undefined;

/** Opens `count` connections to a server of this process and returns once both ends of each exist. */
async function openConnections(count: number): Promise<void> {
  let accepted = 0;
  let allAccepted: () => void = () => {};
  const acceptedAll = new Promise<void>((resolve) => {
    allAccepted = resolve;
  });
  server = createServer((socket) => {
    sockets.push(socket);
    if (++accepted === count) allAccepted();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  for (let i = 0; i < count; i++) {
    const socket = connect(address.port, "127.0.0.1");
    sockets.push(socket);
    await once(socket, "connect");
  }
  await acceptedAll;
}

async function closeConnections(): Promise<void> {
  const closing = sockets.splice(0).map((socket) => {
    const closed = once(socket, "close");
    socket.destroy();
    return closed;
  });
  await Promise.all(closing);
  if (server?.listening) {
    server.close();
    await once(server, "close");
  }
  server = undefined;
}

afterEach(closeConnections);

describe.skipIf(process.platform !== "linux")("open files counted from /proc", () => {
  it("countOpenFiles counts both ends of each connection and the listening socket", async () => {
    const before = await countOpenFiles();
    expect(before).toBeGreaterThan(0);
    await openConnections(5);
    expect(await countOpenFiles()).toBeGreaterThanOrEqual((before ?? 0) + 11);
  });

  it("watchOpenFiles warns when the sockets pass 90 % of the limit, and says so once they are closed", async () => {
    const { log, lines, nextLine } = capturedLog();
    const now = (await countOpenFiles()) ?? 0;
    // A limit a few connections reach, with today's count 10 descriptors under the clear line.
    const limit = Math.ceil((now + 10) / CLEAR_SHARE);
    const connections = Math.ceil((limit * WARN_SHARE - now) / 2) + 1;

    const warned = nextLine();
    const watch = watchOpenFiles(log, { limit, intervalMs: 10 });
    try {
      await openConnections(connections);
      await warned;
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, openFilesLimit: limit });
      expect(lines[0]?.openFiles).toBeGreaterThanOrEqual(limit * WARN_SHARE);

      const cleared = nextLine();
      await closeConnections();
      await cleared;
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatchObject({ level: 30, openFilesLimit: limit });
      expect(lines[1]?.msg).toContain("back under 80 %");
    } finally {
      await watch.stop();
    }
  });
});
