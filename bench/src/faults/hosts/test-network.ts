// Test hosts on one machine: each host is a network namespace with its own address on a bridge the root
// namespace also sits on (at the gateway address), so a process in the root namespace or in any host reaches
// any other host over the bridge, through the kernel's TCP stack. A partition takes a host's bridge port down:
// packets are dropped both ways, no RST is sent, senders retransmit until they give up or the link heals.
import { readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ip, run, runQuietly } from "./host-command.ts";
import { isAlive, ownedNames, ownerOf } from "./host-names.ts";
import { HostsUnavailableError, missingForNetem, requireHosts } from "./host-preconditions.ts";

export interface TestHost {
  name: string;
  namespace: string;
  /** Its IPv4 address on the bridge. */
  address: string;
  /** The root side of its veth pair, a port of the bridge. */
  rootLink: string;
  /** The argv that runs `command` inside the host. */
  command(command: string, args: readonly string[]): { file: string; args: string[] };
}

/** `tc netem` settings for a slow, lossy link. */
export interface LinkImpairment {
  delayMs: number;
  jitterMs: number;
  lossPercent: number;
}

/** The slow shard link: 200 ms +/- 50 ms and 5 % loss. */
export const SLOW_LOSSY_LINK: LinkImpairment = { delayMs: 200, jitterMs: 50, lossPercent: 5 };

export class TestNetwork {
  /** The root namespace's own address on the bridge. */
  readonly gateway: string;
  readonly hosts: TestHost[] = [];
  readonly #names = ownedNames();
  readonly #subnet: string;
  #closed = false;
  readonly #closeOnExit = () => this.close();

  private constructor(subnet: string) {
    this.#subnet = subnet;
    this.gateway = `${subnet}.1`;
  }

  /** Checks the machine can (throws HostsUnavailableError naming what is missing), removes what crashed runs
   * left, and makes the bridge. */
  static create(): TestNetwork {
    requireHosts();
    removeLeftoverHosts();
    const network = new TestNetwork(freeSubnet());
    process.once("exit", network.#closeOnExit);
    try {
      const bridge = network.#names.bridge;
      ip("link", "add", bridge, "type", "bridge");
      ip("addr", "add", `${network.gateway}/24`, "dev", bridge);
      ip("link", "set", bridge, "up");
    } catch (error) {
      network.close();
      throw error;
    }
    return network;
  }

  /** A new host on the bridge, with the next free address. */
  addHost(name: string): TestHost {
    const index = this.hosts.length;
    const namespace = this.#names.namespace(name);
    const rootLink = this.#names.rootLink(index);
    const peer = this.#names.peerLink(index);
    const address = `${this.#subnet}.${index + 2}`;
    const host: TestHost = {
      name,
      namespace,
      address,
      rootLink,
      command: (command, args) => ({ file: "ip", args: ["netns", "exec", namespace, command, ...args] }),
    };
    this.hosts.push(host);
    ip("netns", "add", namespace);
    ip("link", "add", rootLink, "type", "veth", "peer", "name", peer);
    ip("link", "set", rootLink, "master", this.#names.bridge);
    ip("link", "set", rootLink, "up");
    ip("link", "set", peer, "netns", namespace);
    ip("-n", namespace, "link", "set", peer, "name", "eth0");
    ip("-n", namespace, "addr", "add", `${address}/24`, "dev", "eth0");
    ip("-n", namespace, "link", "set", "eth0", "up");
    ip("-n", namespace, "link", "set", "lo", "up");
    ip("-n", namespace, "route", "add", "default", "via", this.gateway);
    return host;
  }

  /** Cuts the host off from every other host and the root namespace, both ways, at the packet level. */
  partition(host: TestHost): void {
    ip("link", "set", host.rootLink, "down");
  }

  heal(host: TestHost): void {
    ip("link", "set", host.rootLink, "up");
  }

  /** Delay, jitter and loss on the host's link, both ways (netem on each side's egress). */
  impair(host: TestHost, impairment: LinkImpairment = SLOW_LOSSY_LINK): void {
    const missing = missingForNetem();
    if (missing.length > 0) throw new HostsUnavailableError(missing);
    const netem = [
      "netem",
      "delay",
      `${impairment.delayMs}ms`,
      `${impairment.jitterMs}ms`,
      "loss",
      `${impairment.lossPercent}%`,
    ];
    run("tc", ["qdisc", "replace", "dev", host.rootLink, "root", ...netem]);
    run("ip", ["netns", "exec", host.namespace, "tc", "qdisc", "replace", "dev", "eth0", "root", ...netem]);
  }

  /** Takes the impairment off again. */
  restore(host: TestHost): void {
    runQuietly("tc", ["qdisc", "del", "dev", host.rootLink, "root"]);
    runQuietly("ip", ["netns", "exec", host.namespace, "tc", "qdisc", "del", "dev", "eth0", "root"]);
  }

  /** Kills what still runs in the hosts, removes them and the bridge; safe to call twice, and runs at exit. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    process.off("exit", this.#closeOnExit);
    for (const host of this.hosts) removeNamespace(host.namespace);
    for (const host of this.hosts) runQuietly("ip", ["link", "del", host.rootLink]);
    runQuietly("ip", ["link", "del", this.#names.bridge]);
  }
}

/** Kills the processes left in a namespace (a process keeps a deleted namespace alive), then deletes it. */
function removeNamespace(namespace: string): void {
  let pids: number[] = [];
  try {
    pids = run("ip", ["netns", "pids", namespace]).split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // already gone
  }
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // exited meanwhile
    }
  }
  runQuietly("ip", ["netns", "del", namespace]);
}

/** Namespaces, links and temporary folders of runs whose owner process is gone (a crash, a SIGKILL). */
export function removeLeftoverHosts(): string[] {
  const removed: string[] = [];
  const orphaned = (name: string) => {
    const owner = ownerOf(name);
    return owner !== null && !isAlive(owner);
  };
  for (const line of run("ip", ["netns", "list"]).split("\n")) {
    const namespace = line.split(" ")[0] ?? "";
    if (!orphaned(namespace)) continue;
    removeNamespace(namespace);
    removed.push(namespace);
  }
  for (const line of run("ip", ["-o", "link", "show"]).split("\n")) {
    const link = /^\d+:\s+([^:@\s]+)/.exec(line)?.[1] ?? "";
    if (!orphaned(link)) continue;
    runQuietly("ip", ["link", "del", link]);
    removed.push(link);
  }
  for (const entry of readdirSync(os.tmpdir())) {
    if (!orphaned(entry)) continue;
    rmSync(path.join(os.tmpdir(), entry), { recursive: true, force: true });
    removed.push(entry);
  }
  return removed;
}

/** A 10.x.y.0/24 no interface of this machine uses, starting from one the pid picks (runs side by side differ). */
function freeSubnet(): string {
  const used = run("ip", ["-o", "-4", "addr", "show"]);
  const routes = run("ip", ["-4", "route", "show"]);
  for (let step = 0; step < 25_000; step++) {
    const slot = (process.pid + step) % 25_000;
    const subnet = `10.${100 + Math.floor(slot / 250)}.${slot % 250}`;
    if (!used.includes(` ${subnet}.`) && !routes.includes(`${subnet}.0/24`)) return subnet;
  }
  throw new Error("no free 10.x.y.0/24 subnet for the test hosts");
}
