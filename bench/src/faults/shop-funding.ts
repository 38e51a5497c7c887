// Before the faults: every shopper's wallet funded by the shop's server (its API key) with far more than the
// run's payments can spend (a payment's amount is its key's sequence number), and a customer token minted for
// each; the same for the overload burst's users, a crowd of their own (`burst-user-N`, never a shop client) so
// their payments are audited apart. Setup, not measured.
import { KeepAliveClient } from "../harness/keep-alive-client.ts";
import { benchUserId } from "../harness/payment-requests.ts";
import { formatCount, log } from "../harness/progress-line.ts";
import type { BurstUser } from "./burst-request-template.ts";
import type { SystemRig } from "./fault-rig.ts";

/** 10^10 minor units per wallet: a million payments of at most 10^6 each stay within it. */
const FUNDING_AMOUNT = 10_000_000_000;
const PARALLEL = 16;
const FUNDING_ATTEMPTS = 60;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ShopSetup {
  users: number;
  fundingSeconds: number;
  tokensMinted: number;
  tokenSeconds: number;
}

/** The overload burst's users: their ids all start with this (the audit selects their rows by it). */
export const BURST_USER_PREFIX = "burst-user-";

export async function setUpShop(rig: SystemRig, users: number): Promise<ShopSetup> {
  const userIds = Array.from({ length: users }, (_, i) => benchUserId(i));
  return fundAndMint(rig, userIds);
}

/** The burst's users funded and given tokens; with them, what the burst thread sends as. */
export async function setUpBurstUsers(
  rig: SystemRig,
  users: number,
): Promise<{ setup: ShopSetup; users: BurstUser[] }> {
  const userIds = Array.from({ length: users }, (_, i) => `${BURST_USER_PREFIX}${i}`);
  const setup = await fundAndMint(rig, userIds);
  const identity = rig.system.identity;
  return { setup, users: userIds.map((userId) => ({ userId, token: identity.shopperToken(userId) })) };
}

async function fundAndMint(rig: SystemRig, userIds: readonly string[]): Promise<ShopSetup> {
  const users = userIds.length;
  const started = Date.now();
  const alreadyFunded = (await rig.system.shards.walletUserIds()).size;
  const client = new KeepAliveClient(rig.system.baseUrl, PARALLEL);
  const headers = rig.system.identity.serverHeaders();
  let next = 0;
  const lane = async () => {
    while (next < userIds.length) {
      const userId = userIds[next++]!;
      // Refusals (backpressure while the workers' drain rate is still being learnt, a busy machine) are
      // retried with the same key, as a shop's server would, for a while.
      for (let attempt = 1; ; attempt++) {
        const answer = await client.send(
          "POST",
          `/v1/wallets/${userId}/deposits`,
          { amount: FUNDING_AMOUNT },
          { ...headers, "idempotency-key": `fund-${userId}` },
        );
        if (answer.status === 202) break;
        if ((answer.status !== 503 && answer.status !== 429) || attempt >= FUNDING_ATTEMPTS) {
          throw new Error(`deposit for ${userId}: ${answer.status} ${answer.body}`);
        }
        await sleep(1000);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: PARALLEL }, lane));
  } finally {
    client.close();
  }
  const deadline = Date.now() + 120_000;
  for (;;) {
    const funded = (await rig.system.shards.walletUserIds()).size - alreadyFunded;
    if (funded >= users) break;
    if (Date.now() > deadline) throw new Error(`only ${funded} of ${users} wallets funded after 120 s`);
    await sleep(1000);
  }
  const fundingSeconds = (Date.now() - started) / 1000;
  log(`funded ${formatCount(users)} wallets in ${fundingSeconds.toFixed(1)} s`);
  const minted = await rig.system.identity.addShoppers(userIds);
  return { users, fundingSeconds, tokensMinted: minted.minted, tokenSeconds: minted.seconds };
}
