// Where a webhook may be sent: not into the network Floodgate runs in (SSRF). An endpoint URL whose host is,
// or resolves to, a loopback, private, link-local, unique-local, CGNAT or unspecified address is refused,
// unless the deployment allows private targets (WEBHOOK_ALLOW_PRIVATE=true, for tests and closed networks).
// Checked when the endpoint is created and again when each delivery connects (DNS can change in between).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

const V4_BLOCKED: [number, number, number][] = [
  // [first octet, second octet from, second octet to]
  [0, 0, 255], // "this" network, unspecified
  [10, 0, 255], // private
  [100, 64, 127], // carrier-grade NAT
  [127, 0, 255], // loopback
  [169, 254, 254], // link-local (cloud metadata endpoints live here)
  [172, 16, 31], // private
  [192, 168, 168], // private
  [198, 18, 19], // benchmarking
  [224, 0, 255], // multicast
  [240, 0, 255], // reserved, broadcast
];

function blockedV4(address: string): boolean {
  const [a, b] = address.split(".").map(Number) as [number, number];
  if (a === 192 && b === 0 && address.startsWith("192.0.0.")) return true; // IETF protocol assignments
  return V4_BLOCKED.some(([first, from, to]) => a === first && b >= from && b <= to);
}

/** True when `address` (an IP literal) is one a webhook must not reach. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blockedV4(address);
  if (family !== 6) return true; // not an address at all: refuse rather than guess
  const lower = address.toLowerCase();
  const mapped = /^(?:0*:)*:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return blockedV4(mapped[1]!);
  if (lower === "::" || lower === "::1") return true;
  const first = Number.parseInt(lower.split(":")[0] || "0", 16);
  return (
    (first & 0xfe00) === 0xfc00 || // unique-local fc00::/7
    (first & 0xffc0) === 0xfe80 || // link-local fe80::/10
    (first & 0xff00) === 0xff00 || // multicast
    first === 0 // ::/8 and the rest of the IPv4-compatible space
  );
}

/** The scheme rule alone (no DNS): http or https, no credentials in the URL. */
export function webhookUrlShapeProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must use https or http";
  if (url.username !== "" || url.password !== "") return "must not carry credentials";
  return null;
}

/**
 * Null when `raw` may receive webhooks; else why not. Resolves the host (every address it has must be public)
 * unless private targets are allowed.
 */
export async function webhookUrlProblem(raw: string, allowPrivate: boolean): Promise<string | null> {
  const shape = webhookUrlShapeProblem(raw);
  if (shape !== null || allowPrivate) return shape;
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    return `host ${host} does not resolve`;
  }
  const blocked = addresses.find(isPrivateAddress);
  return blocked === undefined
    ? null
    : `resolves to ${blocked}, a private, loopback or link-local address (WEBHOOK_ALLOW_PRIVATE=true allows it)`;
}
