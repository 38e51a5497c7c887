// The slow, lossy link without netem, on one test host (slow-link-mechanism.ts says when): inside the host's
// namespace, iptables drops a random share of eth0's packets each way (`statistic`), then hands the rest to
// NFQUEUE, where nfqueue-delay.py holds each for its delay before accepting it. The delay program is started and
// bound before the rules send it anything, and the rules go before it stops (it then lets what it holds go), so
// no packet is dropped by the mechanism itself. Counters say what was done: packets dropped and queued per way.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { run } from "./host-command.ts";
import type { LinkImpairment, TestHost } from "./test-network.ts";

const DELAY_PROGRAM = fileURLToPath(new URL("./nfqueue-delay.py", import.meta.url));
const QUEUE = "0";
const READY_WAIT_MS = 10_000;

export interface EmulatedLinkCounts {
  /** Packets that reached the rules, per way (in: to the host, out: from it). */
  seen: { in: number; out: number };
  dropped: { in: number; out: number };
  /** Packets the delay program held, as it counted them: the queue gets a large (GSO) packet, one for the rules,
   * in segments, so this is at least what the rules queued. */
  delayed: number | null;
  /** Whether the delay program was still running when the link was restored (else the link was cut). */
  delayRan: boolean;
}

/** Packet counts of the rules of one chain, in order (iptables -L -v -x: the first column). */
export function rulePackets(listing: string): number[] {
  return listing
    .split("\n")
    .map((line) => /^\s*(\d+)\s+\d+\s+(?:DROP|NFQUEUE)\b/.exec(line)?.[1])
    .filter((count): count is string => count !== undefined)
    .map(Number);
}

export class EmulatedSlowLink {
  readonly #host: TestHost;
  readonly #iptables: string;
  readonly #program: ChildProcess;
  #output = "";

  private constructor(host: TestHost, iptables: string, program: ChildProcess) {
    this.#host = host;
    this.#iptables = iptables;
    this.#program = program;
    for (const stream of [program.stdout!, program.stderr!]) {
      stream.on("data", (chunk) => {
        this.#output += chunk;
      });
    }
  }

  static async start(
    host: TestHost,
    impairment: LinkImpairment,
    tools: { iptables: string; python: string },
  ): Promise<EmulatedSlowLink> {
    const { file, args } = host.command(tools.python, [
      DELAY_PROGRAM,
      "--queue",
      QUEUE,
      "--min-ms",
      String(impairment.delayMs - impairment.jitterMs),
      "--max-ms",
      String(impairment.delayMs + impairment.jitterMs),
    ]);
    const link = new EmulatedSlowLink(
      host,
      tools.iptables,
      spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] }),
    );
    await link.#ready();
    const probability = String(impairment.lossPercent / 100);
    try {
      for (const [chain, way] of [
        ["INPUT", "-i"],
        ["OUTPUT", "-o"],
      ] as const) {
        link.#rule(
          "-A",
          chain,
          way,
          "eth0",
          "-m",
          "statistic",
          "--mode",
          "random",
          "--probability",
          probability,
          "-j",
          "DROP",
        );
        link.#rule("-A", chain, way, "eth0", "-j", "NFQUEUE", "--queue-num", QUEUE);
      }
    } catch (error) {
      await link.stop();
      throw error;
    }
    return link;
  }

  async #ready(): Promise<void> {
    const deadline = Date.now() + READY_WAIT_MS;
    while (!this.#output.includes("ready\n")) {
      if (this.#program.exitCode !== null || Date.now() > deadline) {
        this.#program.kill("SIGKILL");
        throw new Error(`the NFQUEUE delay program did not start: ${this.#output.trim() || "(no output)"}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  #rule(...args: string[]): string {
    const { file, args: argv } = this.#host.command(this.#iptables, ["-w", ...args]);
    return run(file, argv);
  }

  /** Removes the rules (reading their counters first), then stops the delay program once it let go of all. */
  async stop(): Promise<EmulatedLinkCounts> {
    const counts = (chain: string) => {
      try {
        return rulePackets(this.#rule("-L", chain, "-v", "-x", "-n"));
      } catch {
        return [];
      }
    };
    const [droppedIn = 0, queuedIn = 0] = counts("INPUT");
    const [droppedOut = 0, queuedOut = 0] = counts("OUTPUT");
    const delayRan = this.#program.exitCode === null && this.#program.signalCode === null;
    for (const chain of ["INPUT", "OUTPUT"]) {
      try {
        this.#rule("-F", chain);
      } catch {
        // the namespace is gone already (the rig closing): its rules went with it
      }
    }
    if (delayRan) {
      const exited = new Promise((resolve) => this.#program.once("exit", resolve));
      this.#program.kill("SIGTERM");
      await exited;
    }
    const delayed = /delayed (\d+)/.exec(this.#output)?.[1];
    return {
      seen: { in: droppedIn + queuedIn, out: droppedOut + queuedOut },
      dropped: { in: droppedIn, out: droppedOut },
      delayed: delayed === undefined ? null : Number(delayed),
      delayRan,
    };
  }
}
