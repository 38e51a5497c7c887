// 1,000 bad upgrades: paths the router refuses (bad percent-encoding, a parameter over its 512 limit, unknown
// paths), sockets whose caller or id the route refuses (no token, a forged one, a malformed id), and upgrade
// requests that are not WebSocket handshakes (wrong version, no key, a POST). Expected: a 4xx, or a 101 whose
// socket the server then closes with a 44xx code; never 5xx, and each socket let go (the fd count shows it).

import { readFrame } from "../harness/lean-websocket.ts";
import { eachLimited } from "./bounded-lanes.ts";
import type { HostileTarget } from "./hostile-target.ts";
import { ProbeTally } from "./probe-tally.ts";
import { answerComplete, rawExchange, requestHead } from "./raw-http-exchange.ts";

export interface BadUpgradeOptions {
  total: number;
  parallel: number;
}

export const BAD_UPGRADE_DEFAULTS: BadUpgradeOptions = { total: 1000, parallel: 50 };

interface BadUpgrade {
  name: string;
  method: string;
  path: string;
  /** Handshake headers replaced or dropped (value null). */
  overrides?: Record<string, string | null>;
}

export function badUpgrades(t: HostileTarget): BadUpgrade[] {
  const token = `access_token=${encodeURIComponent(t.customerToken)}`;
  const op = t.operationId;
  return [
    { name: "bad percent-encoding", method: "GET", path: `/v1/operations/%ZZ/ws?${token}` },
    {
      name: "a parameter over 512 characters",
      method: "GET",
      path: `/v1/operations/${"a".repeat(600)}/ws?${token}`,
    },
    { name: "a 10 KB parameter", method: "GET", path: `/v1/operations/${"b".repeat(10 * 1024)}/ws?${token}` },
    { name: "an unknown path", method: "GET", path: `/v1/nothing-here/ws?${token}` },
    { name: "a malformed id", method: "GET", path: `/v1/operations/not-an-id/ws?${token}` },
    {
      name: "percent-encoded control characters in the id",
      method: "GET",
      path: `/v1/operations/%00%01%1b%7f/ws?${token}`,
    },
    { name: "no token", method: "GET", path: `/v1/operations/${op}/ws` },
    {
      name: "a forged token",
      method: "GET",
      path: `/v1/operations/${op}/ws?access_token=eyJhbGciOiJIUzI1NiJ9.e30.forged`,
    },
    {
      name: "a 10 KB token",
      method: "GET",
      path: `/v1/operations/${op}/ws?access_token=${"t".repeat(10 * 1024)}`,
    },
    { name: "a bad ticket socket", method: "GET", path: `/v1/rooms/%ZZ/tickets/x/ws?${token}` },
    {
      name: "unsupported Sec-WebSocket-Version",
      method: "GET",
      path: `/v1/operations/${op}/ws?${token}`,
      overrides: { "Sec-WebSocket-Version": "7" },
    },
    {
      name: "no Sec-WebSocket-Key",
      method: "GET",
      path: `/v1/operations/${op}/ws?${token}`,
      overrides: { "Sec-WebSocket-Key": null },
    },
    { name: "a POST upgrade", method: "POST", path: `/v1/operations/${op}/ws?${token}` },
  ];
}

export async function runBadUpgradeProbe(
  t: HostileTarget,
  options: BadUpgradeOptions = BAD_UPGRADE_DEFAULTS,
): Promise<ProbeTally> {
  const tally = new ProbeTally("bad upgrades");
  const kinds = badUpgrades(t);
  const seen = new Map<string, Set<string>>();
  await eachLimited(
    Array.from({ length: options.total }, (_, i) => kinds[i % kinds.length]!),
    options.parallel,
    async ({ name, method, path, overrides = {} }) => {
      const handshake: Record<string, string | null> = {
        Host: `${t.host}:${t.port}`,
        Upgrade: "websocket",
        Connection: "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
        ...overrides,
      };
      const headers = Object.entries(handshake).flatMap(([k, v]) =>
        v === null ? [] : [[k, v] as [string, string]],
      );
      // A 101 is read up to the server's close frame (the route refuses on the socket), then the client hangs
      // up without answering it, as a dropped browser would.
      const answer = await rawExchange({
        host: t.host,
        port: t.port,
        head: requestHead(method, path, headers),
        timeoutMs: 10_000,
        complete: upgradeAnswered,
      });
      const label = `upgrade with ${name}`;
      let outcome: string;
      if (answer.status === 101) {
        const code = closeCodeOf(answer.raw);
        outcome = `101 close ${code ?? "none"}`;
        tally.count(outcome, null, label);
        if (code === 1011) tally.serverFailure(`${label}: 101 then close 1011 (internal error)`);
        if (code === null) tally.example(`${label}: 101 and no close frame within 10 s (${answer.error})`);
      } else {
        outcome = String(answer.status ?? answer.error);
        tally.add(answer, label);
      }
      const statuses = seen.get(name) ?? new Set<string>();
      statuses.add(outcome);
      seen.set(name, statuses);
    },
  );
  tally.note(`answers by kind: ${[...seen].map(([name, s]) => `${name}: ${[...s].join("/")}`).join("; ")}`);
  return tally;
}

const frameBytes = (bytes: Buffer): Buffer => {
  const end = bytes.indexOf("\r\n\r\n");
  return end === -1 ? Buffer.alloc(0) : bytes.subarray(end + 4);
};

/** The code of the server's close frame after a 101 (null until one arrived or if it had none). */
export function closeCodeOf(bytes: Buffer): number | null {
  let rest = frameBytes(bytes);
  while (true) {
    const frame = readFrame(rest);
    if (frame === null || frame === "masked") return null;
    if (frame.opcode === 0x8) return frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005;
    rest = rest.subarray(frame.length);
  }
}

/** An HTTP answer is whole as usual; a 101 once the server's close frame is in. */
function upgradeAnswered(bytes: Buffer): boolean {
  if (!/^HTTP\/1\.1 101 /.test(bytes.subarray(0, 16).toString("latin1"))) return answerComplete(bytes);
  return closeCodeOf(bytes) !== null;
}
