// A short shop load on a faults --hosts rig, for the tests of the faults between hosts: shoppers funded, shop
// clients paying at a steady rate and retrying with the same Idempotency-Key, and afterwards the audit every
// fault gets (each 202 applied exactly once, the wallets adding up).
import { afterAll, beforeAll } from "vitest";
import { auditFault, type FaultAudit } from "../../src/faults/fault-audit.ts";
import { type HostsFaultRig, startHostsFaultRig } from "../../src/faults/hosts/hosts-fault-rig.ts";
import type { WalletInvariant } from "../../src/faults/ledger-reads.ts";
import { ShopClient } from "../../src/faults/shop-client.ts";
import { setUpShop } from "../../src/faults/shop-funding.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The file's rig, started before its tests and closed after: returns a getter (the rig exists once beforeAll
 * ran). Starting servers on several hosts, migrating and starting the system outlasts the default hook timeout
 * on two cores shared by the suite's other files.
 */
export function hostsRigForFile(
  options: Omit<Parameters<typeof startHostsFaultRig>[0], "logFile" | "intakeProcesses" | "workers">,
): () => HostsFaultRig {
  let rig: HostsFaultRig | undefined;
  beforeAll(async () => {
    rig = await startHostsFaultRig({ logFile: "/dev/null", intakeProcesses: 1, workers: 2, ...options });
  }, 300_000);
  afterAll(async () => {
    await rig?.close();
  }, 120_000);
  return () => {
    if (rig === undefined) throw new Error("the hosts rig is not started (its beforeAll failed)");
    return rig;
  };
}

/** Waits until the shop clients have at least `count` keys accepted: load that moves, not a moment's wait. */
export async function acceptedAtLeast(client: ShopClient, count: number, what: string): Promise<number> {
  const deadline = Date.now() + 60_000;
  while (client.acceptedKeys < count) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}: ${client.acceptedKeys} of ${count} keys accepted`);
    }
    await sleep(100);
  }
  return client.acceptedKeys;
}

export async function startShopLoad(rig: HostsFaultRig, users: number, rate: number): Promise<ShopClient> {
  await setUpShop(rig, users);
  const client = new ShopClient({
    baseUrl: rig.system.baseUrl,
    identity: rig.system.identity,
    users,
    keyPrefix: `hosts-test-${process.pid}`,
    firstSeq: 1,
    connections: 8,
  });
  client.pace(rate);
  return client;
}

/** Waits until every accepted payment is applied (or 60 s went by), then audits them and the wallets. */
export async function auditShopLoad(
  rig: HostsFaultRig,
  client: ShopClient,
): Promise<{ audit: FaultAudit; wallets: WalletInvariant }> {
  for (let i = 0; i < 120 && (await rig.ledger.appliedSince(1)) < client.acceptedKeys; i++) await sleep(500);
  const rows = await rig.ledger.paymentRows(1, client.nextSeq - 1);
  return { audit: auditFault(client.records, rows), wallets: await rig.ledger.walletInvariant() };
}
