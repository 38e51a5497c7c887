// The accept-queue meter reads the kernel's TcpExt counters: parsed by name from /proc/net/netstat's two lines,
// and counted over a phase in which this test makes the kernel drop SYNs for real (a listener whose thread
// sleeps, with a backlog of 1).
import { once } from "node:events";
import { existsSync } from "node:fs";
import net from "node:net";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import {
  describeListenQueueDrops,
  parseTcpExt,
  startListenQueueMeter,
} from "../src/harness/listen-queue-meter.ts";

describe("parseTcpExt", () => {
  it("reads each TcpExt counter by its name, leaving the other protocols' lines alone", () => {
    const netstat = [
      "TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPSynRetrans",
      "TcpExt: 0 99965 99970 47715",
      "IpExt: InNoRoutes InTruncatedPkts",
      "IpExt: 0 0",
      "",
    ].join("\n");
    expect(parseTcpExt(netstat)).toEqual({
      SyncookiesSent: 0,
      ListenOverflows: 99965,
      ListenDrops: 99970,
      TCPSynRetrans: 47715,
    });
    expect(parseTcpExt("IpExt: A\nIpExt: 1\n")).toEqual({});
  });
});

describe("describeListenQueueDrops", () => {
  it("says what was dropped and the cap, or that nothing was, or that it could not be read", () => {
    expect(describeListenQueueDrops({ somaxconn: 4096, overflows: 13272, synRetransmits: 6422 })).toBe(
      "13,272 SYNs dropped by a full accept queue (net.core.somaxconn 4096), 6,422 sent again " +
        "(1, 3 and 7 s after a client's first); to measure the server alone, raise it to the intake's 16384 " +
        "(sysctl -w net.core.somaxconn=16384)",
    );
    expect(describeListenQueueDrops({ somaxconn: 16384, overflows: 12, synRetransmits: 12 })).toBe(
      "12 SYNs dropped by a full accept queue (net.core.somaxconn 16384), 12 sent again " +
        "(1, 3 and 7 s after a client's first)",
    );
    expect(describeListenQueueDrops({ somaxconn: 4096, overflows: 0, synRetransmits: 3 })).toBe(
      "no SYN dropped by a full accept queue (net.core.somaxconn 4096)",
    );
    expect(describeListenQueueDrops(null)).toBe("not measured (no /proc/net/netstat)");
  });
});

describe("startListenQueueMeter", () => {
  // Linux is where the bench measures; elsewhere the meter answers null and there is nothing to count.
  it.runIf(existsSync("/proc/net/netstat"))(
    "counts the SYNs the kernel drops at a listener whose accept queue is full",
    async () => {
      // A listener on a thread that then sleeps, so nothing accepts: its queue (backlog 1) fills, and the kernel
      // drops every further SYN until the thread wakes.
      const wake = new Int32Array(new SharedArrayBuffer(4));
      const listener = new Worker(
        `const { parentPort, workerData } = require("node:worker_threads");
         const server = require("node:net").createServer();
         server.listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => {
           parentPort.postMessage(server.address().port);
           Atomics.wait(workerData, 0, 0);
           server.close();
         });`,
        { eval: true, workerData: wake },
      );
      const sockets: net.Socket[] = [];
      try {
        const [port] = (await once(listener, "message")) as [number];
        const meter = startListenQueueMeter();
        for (let i = 0; i < 20; i++) {
          sockets.push(net.connect({ port, host: "127.0.0.1" }).on("error", () => {}));
        }
        // Past the first two connections each SYN is dropped (and sent again a second later): read the counters
        // until the kernel has counted one, however slowly this busy machine sends the SYNs.
        let drops = meter.stop();
        for (let i = 0; i < 300 && drops !== null && drops.overflows === 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          drops = meter.stop();
        }
        expect(drops).not.toBeNull();
        expect(drops!.overflows).toBeGreaterThan(0);
        expect(drops!.somaxconn).toBeGreaterThan(0);
      } finally {
        for (const socket of sockets) socket.destroy();
        Atomics.store(wake, 0, 1);
        Atomics.notify(wake, 0);
        await listener.terminate();
      }
    },
  );
});
