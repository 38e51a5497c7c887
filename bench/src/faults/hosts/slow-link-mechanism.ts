// How this machine makes the slow, lossy link: `tc netem` when the kernel has sch_netem (the first choice),
// else an emulation from what the kernel has: loss by iptables' `statistic` match (a random 5 % of the host's
// packets dropped each way) and delay by NFQUEUE, each surviving packet held by a small userspace program
// (nfqueue-delay.py, python3's standard library) for 150-250 ms before its verdict. The result names the one
// that ran; an emulation is never called netem. Neither possible: the fault is unavailable, naming what is missing.

import { commandOnPath, ensureCommand } from "../../harness/debian-package.ts";
import { log } from "../../harness/progress-line.ts";
import { runQuietly } from "./host-command.ts";
import { ownedNames } from "./host-names.ts";
import { missingForNetem } from "./host-preconditions.ts";
import type { LinkImpairment } from "./test-network.ts";

export type SlowLinkMechanism =
  | { kind: "netem" }
  | {
      kind: "iptables-nfqueue";
      /** The iptables command whose rules the kernel took (`iptables`, or `iptables-legacy` beside an nft one). */
      iptables: string;
      python: string;
    };

export type SlowLinkChoice = { mechanism: SlowLinkMechanism } | { unavailable: string };

/** netem when nothing is missing for it, else the emulation when nothing is missing for that. */
export function pickSlowLink(
  netemMissing: readonly string[],
  emulationHere: () => { iptables: string; python: string } | { missing: readonly string[] },
): SlowLinkChoice {
  if (netemMissing.length === 0) return { mechanism: { kind: "netem" } };
  const emulation = emulationHere();
  if ("iptables" in emulation) return { mechanism: { kind: "iptables-nfqueue", ...emulation } };
  return {
    unavailable: `unavailable: the kernel has no sch_netem (${netemMissing.join("; ")}), and the emulation cannot run (${emulation.missing.join("; ")})`,
  };
}

/** What ran, in the words of the result (the emulation's never says netem). */
export function describeSlowLink(mechanism: SlowLinkMechanism, impairment: LinkImpairment): string {
  const { delayMs, jitterMs, lossPercent } = impairment;
  if (mechanism.kind === "netem") {
    return `tc netem on both ends of the host's link: delay ${delayMs}ms ${jitterMs}ms, loss ${lossPercent}%`;
  }
  return (
    `emulated in the host's namespace: ${mechanism.iptables} \`-m statistic --mode random --probability ${lossPercent / 100} -j DROP\` on eth0 in and out (loss), ` +
    `then NFQUEUE, each surviving packet held an independent uniform ${delayMs - jitterMs}-${delayMs + jitterMs} ms by nfqueue-delay.py before its verdict (delay; packets may be reordered)`
  );
}

/** Whether `iptables` takes the emulation's rules (the statistic match, the NFQUEUE target) in a scratch host. */
function iptablesTakesRules(iptables: string): boolean {
  const namespace = ownedNames().namespace("iptables-probe");
  if (!runQuietly("ip", ["netns", "add", namespace])) return false;
  try {
    const rule = (...args: string[]) =>
      runQuietly("ip", ["netns", "exec", namespace, iptables, "-w", ...args]);
    return (
      rule(
        "-A",
        "OUTPUT",
        "-o",
        "lo",
        "-m",
        "statistic",
        "--mode",
        "random",
        "--probability",
        "0.05",
        "-j",
        "DROP",
      ) && rule("-A", "OUTPUT", "-o", "lo", "-j", "NFQUEUE", "--queue-num", "0", "--queue-bypass")
    );
  } finally {
    runQuietly("ip", ["netns", "del", namespace]);
  }
}

/** What the emulation needs, installing iptables when it is missing (as root, as the benches install wrk). */
export function slowLinkEmulationHere(): { iptables: string; python: string } | { missing: string[] } {
  const python = ensureCommand("python3", "python3", log);
  const installed = ensureCommand("iptables", "iptables", log) !== null;
  // Debian's `iptables` is the nft variant; a kernel with only the legacy tables takes `iptables-legacy`'s.
  const iptables = installed
    ? ["iptables", "iptables-legacy"].find((command) => commandOnPath(command) && iptablesTakesRules(command))
    : undefined;
  if (python !== null && iptables !== undefined) return { iptables, python };
  return {
    missing: [
      ...(python === null ? ["python3 (for the NFQUEUE delay)"] : []),
      ...(!installed
        ? ["iptables (not on PATH, and apt-get install iptables failed or this is not root)"]
        : iptables === undefined
          ? ["iptables rules with the statistic match and the NFQUEUE target (the kernel refused them)"]
          : []),
    ],
  };
}

let chosen: SlowLinkChoice | undefined;

/** The mechanism this machine uses, probed once per run. */
export function slowLinkHere(): SlowLinkChoice {
  chosen ??= pickSlowLink(missingForNetem(), slowLinkEmulationHere);
  return chosen;
}
