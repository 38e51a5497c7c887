// A short shop load on a faults --hosts rig, for the tests of the faults between hosts: shoppers funded, shop
// clients paying at a steady rate and retrying with the same Idempotency-Key, and afterwards the audit every
// fault gets (each 202 applied exactly once, the wallets adding up).
import { auditFault, type FaultAudit } from "../../src/faults/fault-audit.ts";
import type { HostsFaultRig } from "../../src/faults/hosts/hosts-fault-rig.ts";
import type { WalletInvariant } from "../../src/faults/ledger-reads.ts";
import { ShopClient } from "../../src/faults/shop-client.ts";
import { setUpShop } from "../../src/faults/shop-funding.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
