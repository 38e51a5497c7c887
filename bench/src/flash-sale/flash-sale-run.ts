// One flash sale on one Floodgate, from its start to its stop: the shoppers' wallets are funded (the shop's
// server key) and each shopper gets a customer token; after a warm-up sale, a room in mode `on` guards payments
// at --admit per second; --users shoppers join over --join-seconds, --websockets of them watch over a WebSocket
// and the rest poll; each pays once admitted. A probe keeps sending payments without a valid admission
// meanwhile. Then the payments are audited on the shards, FIFO is checked against the room's records, and
// Redis round trips per accepted payment are counted with rate limits on and off. The single run and each
// sale of a comparison (flash-sale-comparison.ts) are this.
import { Redis } from "ioredis";
import { awaitDelivery } from "../audits/delivery-wait.ts";
import { intakeProcesses } from "../audits/intake-budget.ts";
import { measureRoundTrips } from "../audits/redis-round-trips.ts";
import { adminRequest } from "../harness/admin-client.ts";
import { startCpuMeter } from "../harness/cpu-meter.ts";
import type { FreshFloodgate, RecordedSystem } from "../harness/fresh-floodgate.ts";
import { KeepAliveClient } from "../harness/keep-alive-client.ts";
import { startListenQueueMeter } from "../harness/listen-queue-meter.ts";
import { startLoopLateness } from "../harness/loop-lateness.ts";
import { benchUserId } from "../harness/payment-requests.ts";
import { log } from "../harness/progress-line.ts";
import { fundWallets } from "../harness/wallet-funding.ts";
import { CrowdPartProcess } from "./crowd-part-process.ts";
import { latestLoop } from "./crowd-parts.ts";
import { Crowd } from "./flash-sale-crowd.ts";
import { auditFifo, parseTicketRecords } from "./flash-sale-fifo.ts";
import type { FlashSaleOptions } from "./flash-sale-options.ts";
import { PROBE_USERS, probeUserId, startGuardProbe } from "./flash-sale-probe.ts";
import { checkFlashSale, type SaleMeasures } from "./flash-sale-summary.ts";
import { tallySale } from "./flash-sale-tally.ts";
import { warmUp } from "./flash-sale-warm-up.ts";
import { buyOneUnit, checkStockSale, createSaleProduct, summarizeStockSale } from "./stock-sale.ts";

const ROOM = "flash";
const SESSION_SECONDS = 600;
/** A stock sale's room admits no one beyond the units left (issue 31's default margin). */
const ADMIT_BEYOND_STOCK = 0;

/** How the sale's load is made, for the result's head. */
export const describeSaleLoad = (options: FlashSaleOptions): string =>
  `joins: autocannon 8 on a worker thread of the bench process, ${options.slices} staggered instance(s); ` +
  (options.crowdProcesses === 1
    ? "sockets, polls and payments (ws, keep-alive HTTP) on its main thread"
    : `sockets, polls and payments (ws, keep-alive HTTP) shared by its main thread and ${options.crowdProcesses - 1} child process(es), shopper i in process i % ${options.crowdProcesses}`) +
  "; on the same machine as everything it measures";

/** What one sale records: the system it ran on (environment, services) and what it measured and checked. */
export interface SaleRecord extends RecordedSystem, SaleMeasures {}

/**
 * Starts `floodgate`, runs the sale and fills `record` as it goes (a sale that throws leaves what it reached);
 * always stops the system and deletes its Redis keys before returning. `keyPrefix` starts every Idempotency-Key
 * of the sale.
 */
export async function runSale(
  floodgate: FreshFloodgate,
  options: FlashSaleOptions,
  keyPrefix: string,
  record: SaleRecord,
): Promise<void> {
  const { system } = floodgate;
  const { adminKey } = system;
  const clients: KeepAliveClient[] = [];
  const newClient = (baseUrl: string, connections: number) => {
    const client = new KeepAliveClient(baseUrl, connections);
    clients.push(client);
    return client;
  };
  let crowd: Crowd | null = null;
  // Held here as well as by the crowd: a part started before a later step threw is still closed.
  let otherParts: CrowdPartProcess[] = [];
  try {
    await floodgate.start(options.workers, record);
    const { baseUrl, shards, identity } = system.target;
    const client = newClient(baseUrl, 50);
    record.funding = await fundWallets({
      baseUrl,
      shards,
      users: options.users,
      connections: options.connections,
      identity,
    });
    // Setup, not measured: every shopper's token, and the probe's users' (the room, not auth, must refuse them).
    record.customerTokens = await identity.addShoppers([
      ...Array.from({ length: options.users }, (_, i) => benchUserId(i)),
      ...Array.from({ length: PROBE_USERS }, (_, i) => probeUserId(i)),
    ]);

    await warmUp(identity, baseUrl, adminKey, options, `${keyPrefix}-warm-up`, newClient);

    // --stock: a sale room over one product (it guards the orders naming it, and knows the units left).
    const productId = options.stock > 0 ? await createSaleProduct(baseUrl, adminKey, options.stock) : null;
    const guarding =
      productId === null
        ? { guards: ["payments"] }
        : { products: [productId], admitBeyondStock: ADMIT_BEYOND_STOCK };
    const startsAt = options.startsInSeconds > 0 ? Date.now() + options.startsInSeconds * 1000 : null;
    await adminRequest(baseUrl, adminKey, "PUT", `/v1/rooms/${ROOM}`, {
      mode: "on",
      admitPerSecond: options.admit,
      sessionSeconds: SESSION_SECONDS,
      ...guarding,
      ...(startsAt === null ? {} : { startsAt: new Date(startsAt).toISOString() }),
    });
    const since = new Date();
    const payClient = newClient(baseUrl, options.connections);
    const parts = options.crowdProcesses;
    // Each other part gets its own shoppers' tokens only (setup: the joins wait until every part is ready).
    otherParts = Array.from({ length: parts - 1 }, (_, i) => {
      const part = { index: i + 1, count: parts };
      let tokens: Record<string, string> | null = null;
      if (identity.auth === "on") {
        tokens = {};
        for (let shopper = part.index; shopper < options.users; shopper += parts) {
          const userId = benchUserId(shopper);
          tokens[userId] = identity.shopperToken(userId)!;
        }
      }
      return new CrowdPartProcess({
        baseUrl,
        roomId: ROOM,
        users: options.users,
        websockets: options.websockets,
        connections: options.connections,
        pollIntervalMs: options.pollIntervalMs,
        sessionMs: SESSION_SECONDS * 1000,
        keyPrefix,
        part,
        tokens,
        productId,
      });
    });
    const theCrowd = new Crowd({
      baseUrl,
      roomId: ROOM,
      users: options.users,
      websockets: options.websockets,
      joinRate: Math.ceil(options.users / options.joinSeconds),
      connections: options.connections,
      slices: options.slices,
      pollIntervalMs: options.pollIntervalMs,
      sessionMs: SESSION_SECONDS * 1000,
      keyPrefix,
      identity,
      pollClient: newClient(baseUrl, options.connections),
      payClient,
      ...(productId === null
        ? {}
        : { purchase: buyOneUnit({ client: payClient, identity, productId, keyPrefix }) }),
      part: { index: 0, count: parts },
      otherParts,
    });
    crowd = theCrowd;
    const probe = startGuardProbe({
      client: newClient(baseUrl, 10),
      identity,
      roomId: ROOM,
      everyMs: 20,
      someoneElsesToken: () => theCrowd.someToken(),
      ...(productId === null
        ? {}
        : {
            guarded: (userId: string) => ({
              path: "/v1/orders",
              body: { userId, items: [{ productId, quantity: 1 }] },
            }),
          }),
    });
    const meter = startCpuMeter();
    const listenQueue = startListenQueueMeter();
    // This part's sockets, polls and payments run on this loop (the other parts' on theirs), from the first join
    // to the last payment.
    const crowdLoop = startLoopLateness();
    const joins = await theCrowd.join();
    const joinCpu = meter.stop();
    const joinListenDrops = listenQueue.stop();
    const idealSeconds = options.users / options.admit;
    if (startsAt !== null)
      log(`the room starts at ${new Date(startsAt).toISOString()}: earlier joins wait in the pre-queue`);
    log(
      `joins done; waiting for every shopper to be admitted and pay (ideal ${idealSeconds} s at ${options.admit}/s)`,
    );
    const settled = await Promise.race([
      theCrowd.settled.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), (idealSeconds * 3 + 60) * 1000)),
    ]);
    const ownLoopDelayMs = crowdLoop.stop();
    const saleListenDrops = listenQueue.stop();
    const probes = await probe.stop();
    if (!settled) log("gave up waiting: some shoppers were neither admitted nor refused");
    if (parts > 1) log(`gathering what the shoppers of the crowd's ${parts - 1} other process(es) saw`);
    await theCrowd.gather();
    const crowdLoopDelayMs = latestLoop([ownLoopDelayMs, ...theCrowd.otherLoops]);

    const redis = new Redis(floodgate.environment.redisUrl);
    const records = parseTicketRecords(
      await redis.hgetall(`${system.config.redisPrefix}{room-${ROOM}}:tickets`),
    );
    redis.disconnect();
    const fifo = auditFifo(records, theCrowd.shoppers, startsAt);
    const accepted = theCrowd.shoppers.flatMap((s) => (s.paymentId ? [s.paymentId] : []));
    log("waiting for the workers to apply the shoppers' payments");
    const delivery = await awaitDelivery({
      label: "flash-sale payments applied",
      shards,
      since,
      acceptedIds: accepted,
      timeoutMs: 120_000,
    });
    const sale = tallySale({
      options,
      crowd: theCrowd,
      joins,
      joinCpu,
      joinListenDrops,
      saleListenDrops,
      crowdLoopDelayMs,
      fifo,
      delivery,
      probes,
    });
    record.sale = sale;
    if (productId !== null) {
      record.stockSale = summarizeStockSale({
        productId,
        stock: options.stock,
        admitBeyondStock: ADMIT_BEYOND_STOCK,
        admitted: fifo.admitted,
        shoppers: theCrowd.shoppers,
        sales: await shards.productSales(productId),
      });
    }
    theCrowd.close();

    // Round trips per accepted payment, the room set aside: with the configured limits, then with none.
    await adminRequest(baseUrl, adminKey, "PUT", `/v1/rooms/${ROOM}`, {
      mode: "off",
      admitPerSecond: options.admit,
      sessionSeconds: SESSION_SECONDS,
      ...guarding,
    });
    const phase = (name: string) =>
      measureRoundTrips({
        client,
        baseUrl,
        intakeProcesses: intakeProcesses(system, options.workers),
        payments: options.roundTripPayments,
        userId: (i) => benchUserId(i % options.users),
        identity,
        keyPrefix: `${keyPrefix}-${name}`,
        parallel: 50,
      });
    log("counting Redis round trips per accepted payment with rate limits on");
    const limitsOn = await phase("limits-on");
    await adminRequest(baseUrl, adminKey, "PUT", "/v1/rate-limits/payments", { user: null, ip: null });
    log("counting Redis round trips per accepted payment with rate limits off");
    const limitsOff = await phase("limits-off");
    record.roundTrips = { limitsOn, limitsOff };
    record.checks = [
      ...checkFlashSale(sale, record.roundTrips, { everyoneAdmitted: productId === null }),
      ...(record.stockSale ? checkStockSale(record.stockSale) : []),
    ];
  } finally {
    crowd?.close();
    for (const part of otherParts) part.close();
    for (const client of clients) client.close();
    await floodgate.close();
  }
}
