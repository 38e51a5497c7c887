// Where a webhook may be sent: not into the network Floodgate runs in (SSRF). An endpoint URL whose host is,
// or resolves to, an address that is not plain public unicast (loopback, private, link-local, unique-local,
// CGNAT, multicast, broadcast, reserved, documentation, ...) is refused, unless the deployment allows private
// targets (WEBHOOK_ALLOW_PRIVATE=true, for tests and closed networks).
// Checked when the endpoint is created and again when each delivery connects (DNS can change in between).
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

// The ranges come from ipaddr.js (its `range()` names every special-purpose block in the IANA registries):
// only what it calls "unicast" may be reached, plus ::/8, which it calls unicast (IPv4-compatible and other
// IETF-reserved addresses, routed nowhere). An IPv6 address that stands for an IPv4 one is judged by that IPv4
// address: the rest of NAT64's space (the local-use 64:ff9b:1::/48, where only the network's own translator
// knows where the IPv4 address sits) is refused. A translator with a network-specific prefix (any unicast /96
// of the operator's) cannot be recognised from the address alone: such networks need an egress firewall.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");
const IETF_RESERVED_V6 = ipaddr.parseCIDR("::/8");

/** The IPv4 address an IPv6 one stands for (mapped, translated, NAT64, 6to4), else null. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const range = address.range();
  if (range === "ipv4Mapped") return address.toIPv4Address();
  if (range === "rfc6145" || address.match(NAT64_WELL_KNOWN)) return ipv4Of(parts[6]!, parts[7]!);
  if (range === "6to4") return ipv4Of(parts[1]!, parts[2]!);
  return null;
}

function ipv4Of(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function blocked(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === "ipv4") return address.range() !== "unicast";
  const v6 = address as ipaddr.IPv6;
  const inside = embeddedIpv4(v6);
  if (inside !== null) return blocked(inside);
  return v6.range() !== "unicast" || v6.match(IETF_RESERVED_V6);
}

/** True when `address` (an IP literal) is one a webhook must not reach. */
export function isPrivateAddress(address: string): boolean {
  // node:net's isIP first: ipaddr.js alone also reads "0x7f.1" or "127.1" as addresses.
  if (isIP(address) === 0) return true; // not an address at all: refuse rather than guess
  try {
    return blocked(ipaddr.parse(address));
  } catch {
    return true;
  }
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
