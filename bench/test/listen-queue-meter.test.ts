// The accept-queue meter reads the kernel's TcpExt counters: parsed by name from /proc/net/netstat's two lines,
// and counted over a phase in which this test makes the kernel drop handshakes for real (a listener whose thread
// sleeps, with a backlog of 1).
import { once } from "node:events";
import { readFileSync } from "node:fs";
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
      "13,272 handshakes dropped by a full accept queue (net.core.somaxconn 4096), 6,422 SYNs sent again " +
        "(each 1 s, then 3 s, after the last); to measure the server alone, raise it to the intake's 16384 " +
        "(sysctl -w net.core.somaxconn=16384)",
    );
    expect(describeListenQueueDrops({ somaxconn: 16384, overflows: 12, synRetransmits: 12 })).toBe(
      "12 handshakes dropped by a full accept queue (net.core.somaxconn 16384), 12 SYNs sent again " +
        "(each 1 s, then 3 s, after the last)",
    );
    expect(describeListenQueueDrops({ somaxconn: 4096, overflows: 0, synRetransmits: 3 })).toBe(
      "no handshake dropped by a full accept queue (net.core.somaxconn 4096)",
    );
    expect(describeListenQueueDrops(null)).toBe("not measured (no /proc/net/netstat)");
  });
});

describe("startListenQueueMeter", () => {
  it("counts the handshakes the kernel drops at a listener whose accept queue is full", async () => {
    // Linux is where the bench measures; the meter answers null elsewhere.
    expect(readFileSync("/proc/net/netstat", "utf8")).toContain("ListenOverflows");
    // A listener on a thread that then sleeps, so nothing accepts: its queue (backlog 1) fills, and the kernel
    // drops every further handshake until the thread wakes.
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
    const [port] = (await once(listener, "message")) as [number];
    const meter = startListenQueueMeter();
    const sockets = Array.from({ length: 20 }, () =>
      net.connect({ port, host: "127.0.0.1" }).on("error", () => {}),
    );
    // Past the first two handshakes each is dropped; a client sends its SYN again after a second.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const drops = meter.stop();
    for (const socket of sockets) socket.destroy();
    Atomics.store(wake, 0, 1);
    Atomics.notify(wake, 0);
    await listener.terminate();
    expect(drops).not.toBeNull();
    expect(drops!.overflows).toBeGreaterThan(0);
    expect(drops!.somaxconn).toBeGreaterThan(0);
  });
});
