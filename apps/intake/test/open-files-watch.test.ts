import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";
import { countOpenFiles } from "@floodgate/config";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { CLEAR_SHARE, openFilesNotice, WARN_SHARE, watchOpenFiles } from "../src/open-files-watch.ts";

describe("openFilesNotice", () => {
  it("warns once at 90 % of the limit, naming the limit and the ways out", () => {
    expect(openFilesNotice(17_999, 20_000, false)).toBeNull();
    const notice = openFilesNotice(18_000, 20_000, false);
    expect(notice?.level).toBe("warn");
    expect(notice?.message).toContain("18000 open files of this process's limit of 20000");
    expect(notice?.message).toContain("closed unanswered");
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

// Real sockets in this process, counted from /proc: the watcher's count is the kernel's.
const sockets: Socket[] = [];
let server: Server | undefined;

async function openConnections(count: number): Promise<void> {
  server ??= createServer((socket) => sockets.push(socket));
  if (!server.listening) {
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
  }
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  for (let i = 0; i < count; i++) {
    const socket = connect(address.port, "127.0.0.1");
    sockets.push(socket);
    await once(socket, "connect");
  }
}

async function closeConnections(): Promise<void> {
  for (const socket of sockets.splice(0)) socket.destroy();
  if (server?.listening) {
    server.close();
    await once(server, "close");
  }
  server = undefined;
}

afterEach(closeConnections);

describe("countOpenFiles", () => {
  it("counts this process's descriptors: each connection adds its two ends", async () => {
    const before = await countOpenFiles();
    expect(before).toBeGreaterThan(0);
    await openConnections(5);
    // Both ends of five connections and the listening socket.
    expect(await countOpenFiles()).toBeGreaterThanOrEqual((before ?? 0) + 11);
  });
});

describe("watchOpenFiles", () => {
  it("logs a warning when the sockets pass 90 % of the limit, and again when they are closed", async () => {
    const lines: { level: number; msg: string; openFiles: number; openFilesLimit: number }[] = [];
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
    const next = () =>
      new Promise<void>((resolve) => {
        heard = resolve;
      });
    const now = (await countOpenFiles()) ?? 0;
    // A limit the test reaches with a few connections: today's count sits under the clear line.
    const limit = Math.ceil(now / (CLEAR_SHARE - 0.1));
    const connections = Math.ceil((limit * WARN_SHARE - now) / 2) + 1;

    const warned = next();
    const watch = watchOpenFiles(log, { limit, intervalMs: 10 });
    try {
      await openConnections(connections);
      await warned;
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, openFilesLimit: limit });
      expect(lines[0]?.openFiles).toBeGreaterThanOrEqual(limit * WARN_SHARE);

      const cleared = next();
      await closeConnections();
      await cleared;
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatchObject({ level: 30, openFilesLimit: limit });
      expect(lines[1]?.msg).toContain("back under 80 %");
    } finally {
      await watch.stop();
    }
  });

  it("does nothing where the limit cannot be read", async () => {
    const lines: string[] = [];
    const log = pino({ level: "debug" }, { write: (line: string) => lines.push(line) });
    const watch = watchOpenFiles(log, { limit: null, intervalMs: 1, count: async () => 1_000_000 });
    await watch.stop();
    expect(lines).toEqual([]);
  });
});
