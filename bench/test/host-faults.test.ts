// The faults between hosts judge things without a network: how many COMMIT answers a held reply stream carries
// (the commit cut's proof that an outcome was unknown), which mechanism slows a link (netem first, an emulation
// named as such, or unavailable naming what is missing), and the emulation's packet counters.
import { describe, expect, it } from "vitest";
import { rulePackets } from "../src/faults/hosts/emulated-slow-link.ts";
import { heldCommits } from "../src/faults/hosts/host-faults.ts";
import { describeSlowLink, pickSlowLink } from "../src/faults/hosts/slow-link-mechanism.ts";
import { SLOW_LOSSY_LINK } from "../src/faults/hosts/test-network.ts";

/** A backend message: its type byte, its length (itself included) and its body. */
function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type, "latin1"), length, body]);
}

const complete = (tag: string) => message("C", Buffer.from(`${tag}\0`, "latin1"));
const ready = message("Z", Buffer.from("I", "latin1"));

describe("faults between hosts", () => {
  it("counts the COMMIT answers in held replies, and nothing else", () => {
    const committed = Buffer.concat([complete("INSERT 0 1"), complete("COMMIT"), ready]);
    const rolledBack = Buffer.concat([complete("ROLLBACK"), ready]);
    // A row whose text says COMMIT is data, not a CommandComplete.
    const data = message("D", Buffer.from("COMMIT\0", "latin1"));
    expect(heldCommits([committed, rolledBack, data])).toBe(1);
    expect(heldCommits([Buffer.concat([committed, committed]), committed])).toBe(3);
    expect(heldCommits([])).toBe(0);
  });

  const NO_NETEM = ["the kernel's netem queueing discipline (CONFIG_NET_SCH_NETEM)"];
  const EMULATION = { iptables: "iptables-legacy", python: "/usr/bin/python3" };

  it("slows a link with netem whenever the kernel has it, without probing the emulation", () => {
    const choice = pickSlowLink([], () => {
      throw new Error("the emulation was probed");
    });
    expect(choice).toEqual({ mechanism: { kind: "netem" } });
    if (!("mechanism" in choice)) throw new Error("no mechanism");
    expect(describeSlowLink(choice.mechanism, SLOW_LOSSY_LINK)).toBe(
      "tc netem on both ends of the host's link: delay 200ms 50ms, loss 5%",
    );
  });

  it("emulates the link without netem, and never calls the emulation netem", () => {
    const choice = pickSlowLink(NO_NETEM, () => EMULATION);
    expect(choice).toEqual({ mechanism: { kind: "iptables-nfqueue", ...EMULATION } });
    if (!("mechanism" in choice)) throw new Error("no mechanism");
    const described = describeSlowLink(choice.mechanism, SLOW_LOSSY_LINK);
    expect(described).not.toMatch(/netem/i);
    expect(described).toContain("iptables-legacy `-m statistic --mode random --probability 0.05 -j DROP`");
    expect(described).toContain("held an independent uniform 150-250 ms");
  });

  it("reports the slow link unavailable, naming what netem and the emulation lack", () => {
    expect(pickSlowLink(NO_NETEM, () => ({ missing: ["python3 (for the NFQUEUE delay)"] }))).toEqual({
      unavailable:
        "unavailable: the kernel has no sch_netem (the kernel's netem queueing discipline (CONFIG_NET_SCH_NETEM)), and the emulation cannot run (python3 (for the NFQUEUE delay))",
    });
  });

  it("reads the emulation's drop and queue counters from iptables -L -v -x", () => {
    const listing = [
      "Chain INPUT (policy ACCEPT 0 packets, 0 bytes)",
      "    pkts      bytes target     prot opt in     out     source               destination",
      "      52     3120 DROP       all  --  eth0   *       0.0.0.0/0            0.0.0.0/0            statistic mode random probability 0.05000000000",
      "    1003    61220 NFQUEUE    all  --  eth0   *       0.0.0.0/0            0.0.0.0/0            NFQUEUE num 0",
      "",
    ].join("\n");
    expect(rulePackets(listing)).toEqual([52, 1003]);
    expect(rulePackets("Chain OUTPUT (policy ACCEPT 0 packets, 0 bytes)\n")).toEqual([]);
  });
});
