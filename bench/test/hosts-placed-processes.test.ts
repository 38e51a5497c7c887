// Issue 35's placement: faults --hosts runs the intakes and the workers on test hosts of their own (network
// namespaces), not in the root namespace, and the load generator reaches the intakes over the bridge. The
// workers' host cut from Redis's host (iptables, both ways) while the intakes still reach it: payments go on
// being accepted and wait for the workers, then every 202 is applied exactly once after the heal. A machine that
// cannot make namespaces fails this file with what it lacks.
import { describe, expect, it } from "vitest";
import { run } from "../src/faults/hosts/host-command.ts";
import { cutLinks } from "../src/faults/hosts/host-link-cut.ts";
import { childPids } from "../src/faults/process-tree.ts";
import { acceptedAtLeast, auditShopLoad, hostsRigForFile, startShopLoad } from "./support/rig-shop-load.ts";

const USERS = 10;
const RATE = 40;
const rigOf = hostsRigForFile({ redis: "single", waitReplicas: 0 });

/** The network namespace a process runs in, by `ip netns identify` ("" for the root namespace). */
const namespaceOf = (pid: number) => run("ip", ["netns", "identify", String(pid)]).trim();

describe("the intakes and the workers on hosts of their own", () => {
  it("runs each in its host's namespace, reached over the bridge", async () => {
    const rig = rigOf();
    const intakes = childPids(rig.supervisorPid, "intake");
    expect(intakes.length).toBe(1);
    expect(namespaceOf(rig.supervisorPid)).toBe(rig.intakesHost.namespace);
    for (const pid of intakes) expect(namespaceOf(pid)).toBe(rig.intakesHost.namespace);
    expect(childPids(rig.supervisorPid, "worker")).toEqual([]);
    const workers = rig.workerPids();
    expect(workers.length).toBe(2);
    for (const pid of workers) expect(namespaceOf(pid)).toBe(rig.workersHost.namespace);
    expect(new URL(rig.system.baseUrl).hostname).toBe(rig.intakesHost.address);
  });

  it("keeps accepting while the workers' host is cut from Redis, and applies every 202 once after the heal", async () => {
    const rig = rigOf();
    const client = await startShopLoad(rig, USERS, RATE);
    await acceptedAtLeast(client, RATE, "payments accepted before the cut");
    const redisHost = rig.redisHost!;
    const cut = cutLinks(rig.workersHost, [redisHost]);
    let acceptedDuring: number;
    let appliedAtHeal: number;
    try {
      const acceptedAtCut = client.acceptedKeys;
      await acceptedAtLeast(client, acceptedAtCut + RATE, "payments accepted while the workers' host is cut");
      acceptedDuring = client.acceptedKeys - acceptedAtCut;
      appliedAtHeal = await rig.ledger.appliedSince(1);
    } finally {
      cut.heal();
    }
    const acceptedAtHeal = client.acceptedKeys;
    await acceptedAtLeast(client, acceptedAtHeal + RATE, "payments accepted after the heal");
    await client.stop();
    const { audit, wallets } = await auditShopLoad(rig, client);

    // The intakes still reached Redis: payments were accepted during the cut, and waited for the workers.
    expect(acceptedDuring).toBeGreaterThan(0);
    expect(appliedAtHeal).toBeLessThan(acceptedAtHeal);
    expect(audit.examples).toEqual({ lost: [], appliedTwice: [] });
    expect(audit).toMatchObject({ lost: 0, appliedTwice: 0, keysWithTwoIds: 0, foreignRows: 0 });
    expect(wallets.difference).toBe(0);
  }, 240_000);
});
