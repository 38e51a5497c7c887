// The faults between hosts judge two things without a network: how many COMMIT answers a held reply stream
// carries (the commit cut's proof that an outcome was unknown), and the words a fault netem cannot make is
// reported with.
import { describe, expect, it } from "vitest";
import { heldCommits, netemUnavailable } from "../src/faults/hosts/host-faults.ts";

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

  it("reports a machine without netem as unavailable, naming what it lacks", () => {
    expect(netemUnavailable([])).toBeNull();
    expect(netemUnavailable(["the kernel's netem queueing discipline (CONFIG_NET_SCH_NETEM)"])).toBe(
      "unavailable: the kernel has no sch_netem (the kernel's netem queueing discipline (CONFIG_NET_SCH_NETEM))",
    );
  });
});
