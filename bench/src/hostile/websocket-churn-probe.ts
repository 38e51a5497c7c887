// 5,000 status WebSockets (WS /v1/operations/:id/ws with a valid ?access_token=) opened and dropped without a
// close handshake, in five ways a crowd's browsers and networks drop them: right after the 101, after the first
// status message, mid-handshake with half a request written, with the whole request written but before the
// 101 is read, and a bare TCP connect. At most a few hundred at once (two cores, shared).
import { connect } from "node:net";
import { LeanWebSocket } from "../harness/lean-websocket.ts";
import { eachLimited } from "./bounded-lanes.ts";
import type { HostileTarget } from "./hostile-target.ts";
import { ProbeTally } from "./probe-tally.ts";

export interface WebSocketChurnOptions {
  total: number;
  parallel: number;
}

export const WEBSOCKET_CHURN_DEFAULTS: WebSocketChurnOptions = { total: 5000, parallel: 200 };
const SOCKET_TIMEOUT_MS = 10_000;

const WAYS = [
  "after the 101",
  "after the first message",
  "half a request",
  "before the 101",
  "bare connect",
] as const;
type Way = (typeof WAYS)[number];

/** The upgrade's status (101, or what refused it); "dropped unread" when the probe hung up first on purpose. */
interface Dropped {
  status: number | "dropped unread" | null;
  error: string | null;
}

function openAndDrop(t: HostileTarget, path: string, way: Way): Promise<Dropped> {
  if (way === "after the 101" || way === "after the first message") {
    return new Promise((resolve) => {
      const socket = new LeanWebSocket(`ws://${t.host}:${t.port}${path}`);
      const done = (outcome: Dropped) => {
        clearTimeout(timer);
        socket.terminate();
        resolve(outcome);
      };
      const timer = setTimeout(() => done({ status: null, error: "timeout" }), SOCKET_TIMEOUT_MS);
      if (way === "after the 101") socket.once("open", () => done({ status: 101, error: null }));
      else socket.once("message", () => done({ status: 101, error: null }));
      socket.on("error", (error) => {
        const refused = /unexpected handshake answer: HTTP\/1\.1 (\d{3})/.exec(error.message);
        done(refused ? { status: Number(refused[1]), error: null } : { status: null, error: error.message });
      });
      socket.on("close", () => done({ status: null, error: "closed before the drop" }));
    });
  }
  return new Promise((resolve) => {
    const socket = connect({ host: t.host, port: t.port });
    const request =
      `GET ${path} HTTP/1.1\r\nHost: ${t.host}:${t.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    socket.on("error", () => {});
    socket.on("connect", () => {
      if (way === "half a request") socket.write(request.slice(0, Math.floor(request.length / 2)));
      if (way === "before the 101") socket.write(request);
      socket.destroy();
      resolve({ status: "dropped unread", error: null });
    });
    setTimeout(() => {
      if (!socket.destroyed) {
        socket.destroy();
        resolve({ status: null, error: "connect timeout" });
      }
    }, SOCKET_TIMEOUT_MS);
  });
}

export async function runWebSocketChurnProbe(
  t: HostileTarget,
  options: WebSocketChurnOptions = WEBSOCKET_CHURN_DEFAULTS,
): Promise<ProbeTally> {
  const tally = new ProbeTally("WebSockets opened and dropped");
  const path = `/v1/operations/${t.operationId}/ws?access_token=${encodeURIComponent(t.customerToken)}`;
  const byWay = new Map<Way, number>();
  const started = performance.now();
  await eachLimited(
    Array.from({ length: options.total }, (_, i) => WAYS[i % WAYS.length]!),
    options.parallel,
    async (way) => {
      const outcome = await openAndDrop(t, path, way);
      tally.count(outcome.status, outcome.error, `WS ${way}`);
      if (outcome.status === 101) byWay.set(way, (byWay.get(way) ?? 0) + 1);
    },
  );
  tally.note(
    `${options.total} sockets in ${((performance.now() - started) / 1000).toFixed(1)} s, at most ${options.parallel} at once; upgraded: ${[...byWay].map(([way, n]) => `${n} ${way}`).join(", ")}`,
  );
  return tally;
}
