// A partition between some hosts while the others still reach all of them (a Redis master cut from its replica
// and the other masters, its clients still reaching it): each side's namespace drops, on input, every packet
// from the other side's addresses (iptables `-A INPUT -s <address> -j DROP`). Dropped at the receiver, so
// neither side gets an error: its packets just never arrive, both ways, and TCP retransmits until the heal.
// A bridge port down (TestNetwork.partition) cannot do this: it cuts the host from everyone.
import { commandOnPath, ensureCommand } from "../../harness/debian-package.ts";
import { log } from "../../harness/progress-line.ts";
import { run, runQuietly } from "./host-command.ts";
import { ownedNames } from "./host-names.ts";
import type { TestHost } from "./test-network.ts";

export interface LinkCut {
  /** Removes the rules; the hosts reach each other again. */
  heal(): void;
}

/** Whether `iptables` takes a plain DROP rule in a scratch namespace. */
function iptablesWorks(iptables: string): boolean {
  const namespace = ownedNames().namespace("iptables-drop-probe");
  if (!runQuietly("ip", ["netns", "add", namespace])) return false;
  try {
    return runQuietly("ip", [
      "netns",
      "exec",
      namespace,
      iptables,
      "-w",
      "-A",
      "INPUT",
      "-s",
      "192.0.2.1",
      "-j",
      "DROP",
    ]);
  } finally {
    runQuietly("ip", ["netns", "del", namespace]);
  }
}

let found: string | null | undefined;

/** The iptables command whose rules this kernel takes (installed with apt-get when missing, as root), or why
 * there is none. */
export function iptablesForCuts(): { iptables: string } | { missing: string } {
  if (found === undefined) {
    const installed = ensureCommand("iptables", "iptables", log) !== null;
    // Debian's `iptables` is the nft variant; a kernel with only the legacy tables takes `iptables-legacy`'s.
    found = installed
      ? (["iptables", "iptables-legacy"].find(
          (command) => commandOnPath(command) && iptablesWorks(command),
        ) ?? null)
      : null;
  }
  return found === null
    ? {
        missing:
          "iptables taking INPUT DROP rules in a namespace (not installed, or the kernel refused them)",
      }
    : { iptables: found };
}

/** Why links cannot be cut here ("unavailable: ..."), or null. */
export function cutLinksUnavailable(): string | null {
  const choice = iptablesForCuts();
  return "missing" in choice ? `unavailable: ${choice.missing}` : null;
}

/** Cuts `host` off from every host of `others`, both ways; everything else still reaches both sides. */
export function cutLinks(host: TestHost, others: readonly TestHost[]): LinkCut {
  const choice = iptablesForCuts();
  if ("missing" in choice) throw new Error(`cannot cut links between hosts: ${choice.missing}`);
  const rules: { at: TestHost; from: string }[] = [
    ...others.map((other) => ({ at: host, from: other.address })),
    ...others.map((other) => ({ at: other, from: host.address })),
  ];
  const rule = (action: "-A" | "-D", { at, from }: { at: TestHost; from: string }) => {
    const { file, args } = at.command(choice.iptables, ["-w", action, "INPUT", "-s", from, "-j", "DROP"]);
    return { file, args };
  };
  const added: typeof rules = [];
  const heal = () => {
    for (const entry of added.splice(0)) {
      const { file, args } = rule("-D", entry);
      runQuietly(file, args);
    }
  };
  try {
    for (const entry of rules) {
      const { file, args } = rule("-A", entry);
      run(file, args);
      added.push(entry);
    }
  } catch (error) {
    heal();
    throw error;
  }
  return { heal };
}
