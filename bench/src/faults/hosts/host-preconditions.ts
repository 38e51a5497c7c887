// What making test hosts needs, checked before anything is made: each missing piece is named, and the caller
// stops with the list (a test fails, the bench ends with it), never skips in silence.
import { run, runQuietly } from "./host-command.ts";
import { ownedNames } from "./host-names.ts";

export class HostsUnavailableError extends Error {
  readonly missing: string[];

  constructor(missing: string[]) {
    super(`cannot make test hosts (network namespaces) on this machine: ${missing.join("; ")}`);
    this.name = "HostsUnavailableError";
    this.missing = missing;
  }
}

/** What is missing to make namespaces, a bridge and veth pairs; empty when the machine can. */
export function missingForHosts(): string[] {
  if (typeof process.getuid === "function" && process.getuid() !== 0) {
    return [`root (this process runs as uid ${process.getuid()}; namespaces and links need CAP_NET_ADMIN)`];
  }
  const tools = [
    ["ip", "iproute2's `ip` (apt-get install iproute2)"],
    ["tc", "iproute2's `tc` (apt-get install iproute2)"],
  ].flatMap(([tool, what]) => (runQuietly(tool!, ["-V"]) ? [] : [`${what} is not on PATH`]));
  if (tools.length > 0) return tools;
  const names = ownedNames();
  const probe = names.namespace("probe");
  try {
    run("ip", ["netns", "add", probe]);
  } catch (error) {
    return [`network namespace support (ip netns add failed: ${(error as Error).message})`];
  } finally {
    runQuietly("ip", ["netns", "del", probe]);
  }
  const missing: string[] = [];
  const bridge = `${names.bridge}p`;
  if (!runQuietly("ip", ["link", "add", bridge, "type", "bridge"]))
    missing.push("bridge links (CONFIG_BRIDGE)");
  runQuietly("ip", ["link", "del", bridge]);
  const veth = names.rootLink(99);
  if (!runQuietly("ip", ["link", "add", veth, "type", "veth", "peer", "name", names.peerLink(99)])) {
    missing.push("veth pairs (CONFIG_VETH)");
  }
  runQuietly("ip", ["link", "del", veth]);
  return missing;
}

/** Throws HostsUnavailableError naming what is missing. */
export function requireHosts(): void {
  const missing = missingForHosts();
  if (missing.length > 0) throw new HostsUnavailableError(missing);
}

/** What a slow, lossy link (tc netem) needs beyond the hosts: the kernel's netem queueing discipline. */
export function missingForNetem(): string[] {
  const names = ownedNames();
  const link = names.rootLink(98);
  if (!runQuietly("ip", ["link", "add", link, "type", "veth", "peer", "name", names.peerLink(98)])) {
    return ["veth pairs (CONFIG_VETH)"];
  }
  try {
    run("tc", ["qdisc", "add", "dev", link, "root", "netem", "delay", "1ms"]);
    return [];
  } catch (error) {
    return [
      `the kernel's netem queueing discipline (CONFIG_NET_SCH_NETEM; tc said: ${(error as Error).message})`,
    ];
  } finally {
    runQuietly("ip", ["link", "del", link]);
  }
}
