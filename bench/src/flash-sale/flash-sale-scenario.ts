// `./floodgate bench flash-sale`: a limited drop behind a waiting room. Floodgate starts fresh; the shoppers'
// wallets are funded (the shop's server key) and each shopper gets a customer token; a room in mode `on` guards payments at --admit per second; --users shoppers join over
// --join-seconds, --websockets of them watch over a WebSocket and the rest poll; each pays once admitted. A
// probe keeps sending payments without a valid admission meanwhile. Then the payments are audited on the
// shards, FIFO is checked against the room's records, and Redis round trips per accepted payment are counted
// with rate limits on and off.
import { Redis } from "ioredis";
import { awaitDelivery } from "../audits/delivery-wait.ts";
import { intakeProcesses } from "../audits/intake-budget.ts";
import { measureRoundTrips } from "../audits/redis-round-trips.ts";
import { adminRequest } from "../harness/admin-client.ts";
import { startCpuMeter } from "../harness/cpu-meter.ts";
import { freshFloodgate } from "../harness/fresh-floodgate.ts";
import { KeepAliveClient } from "../harness/keep-alive-client.ts";
import { summarizeLatencies } from "../harness/latency-summary.ts";
import { startLoopLateness } from "../harness/loop-lateness.ts";
import { benchUserId } from "../harness/payment-requests.ts";
import { log } from "../harness/progress-line.ts";
import { resultHeader } from "../harness/result-head.ts";
import { finishRun } from "../harness/scenario-run.ts";
import { fundWallets } from "../harness/wallet-funding.ts";
import type { Scenario, ScenarioContext, ScenarioOutcome } from "../scenario.ts";
import { Crowd } from "./flash-sale-crowd.ts";
import { auditFifo, parseTicketRecords } from "./flash-sale-fifo.ts";
import { FLASH_SALE_OPTION_SPECS, type FlashSaleOptions, toFlashSaleOptions } from "./flash-sale-options.ts";
import { PROBE_USERS, probeUserId, startGuardProbe } from "./flash-sale-probe.ts";
import {
  checkFlashSale,
  type FlashSaleResult,
  type FlashSaleRun,
  summarizeFlashSale,
} from "./flash-sale-summary.ts";
import { warmUp } from "./flash-sale-warm-up.ts";
import { buyOneUnit, checkStockSale, createSaleProduct, summarizeStockSale } from "./stock-sale.ts";

const ROOM = "flash";
const SESSION_SECONDS = 600;
/** A stock sale's room admits no one beyond the units left (issue 31's default margin). */
const ADMIT_BEYOND_STOCK = 0;

export const flashSaleScenario: Scenario = {
  name: "flash-sale",
  description:
    "a waiting room: 20,000 shoppers join within 2 s, 10,000 watch over WebSockets and the rest poll, each pays once admitted at 2,000/s",
  options: FLASH_SALE_OPTION_SPECS,
  run: (values, context) => runFlashSale(toFlashSaleOptions(values), context),
};

async function runFlashSale(options: FlashSaleOptions, context: ScenarioContext): Promise<ScenarioOutcome> {
  const floodgate = freshFloodgate(context);
  const { system } = floodgate;
  const { adminKey } = system;
  const result: FlashSaleResult = {
    ...resultHeader(
      "flash-sale",
      context,
      options,
      `joins: autocannon 8 on a worker thread of the bench process, ${options.slices} staggered instance(s); ` +
        "sockets, polls and payments (ws, keep-alive HTTP) on its main thread; on the same machine as everything it measures",
    ),
    funding: null,
    customerTokens: null,
    sale: null,
    stockSale: null,
    roundTrips: null,
    checks: [],
    error: null,
  };
  const clients: KeepAliveClient[] = [];
  const newClient = (baseUrl: string, connections: number) => {
    const client = new KeepAliveClient(baseUrl, connections);
    clients.push(client);
    return client;
  };
  let crowd: Crowd | null = null;
  return finishRun(
    result,
    async () => {
      await floodgate.start(options.workers, result);
      const { baseUrl, shards, identity } = system.target;
      const client = newClient(baseUrl, 50);
      result.funding = await fundWallets({
        baseUrl,
        shards,
        users: options.users,
        connections: options.connections,
        identity,
      });
      // Setup, not measured: every shopper's token, and the probe's users' (the room, not auth, must refuse them).
      result.customerTokens = await identity.addShoppers([
        ...Array.from({ length: options.users }, (_, i) => benchUserId(i)),
        ...Array.from({ length: PROBE_USERS }, (_, i) => probeUserId(i)),
      ]);

      await warmUp(identity, baseUrl, adminKey, options, `flash-${context.stamp}-warm-up`, newClient);

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
      const keyPrefix = `flash-${context.stamp}`;
      const payClient = newClient(baseUrl, options.connections);
      crowd = new Crowd({
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
      });
      const shoppers = crowd.shoppers;
      const probe = startGuardProbe({
        client: newClient(baseUrl, 10),
        identity,
        roomId: ROOM,
        everyMs: 20,
        someoneElsesToken: () => crowd?.someToken() ?? null,
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
      // The crowd's sockets, polls and payments all run on this loop, from the first join to the last payment.
      const crowdLoop = startLoopLateness();
      const joins = await crowd.join();
      const joinCpu = meter.stop();
      const idealSeconds = options.users / options.admit;
      if (startsAt !== null)
        log(`the room starts at ${new Date(startsAt).toISOString()}: earlier joins wait in the pre-queue`);
      log(
        `joins done; waiting for every shopper to be admitted and pay (ideal ${idealSeconds} s at ${options.admit}/s)`,
      );
      const settled = await Promise.race([
        crowd.settled.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), (idealSeconds * 3 + 60) * 1000)),
      ]);
      const crowdLoopDelayMs = crowdLoop.stop();
      const probes = await probe.stop();
      if (!settled) log("gave up waiting: some shoppers were neither admitted nor refused");

      const redis = new Redis(floodgate.environment.redisUrl);
      const records = parseTicketRecords(
        await redis.hgetall(`${system.config.redisPrefix}{room-${ROOM}}:tickets`),
      );
      redis.disconnect();
      const fifo = auditFifo(records, shoppers, startsAt);
      const accepted = shoppers.flatMap((s) => (s.paymentId ? [s.paymentId] : []));
      log("waiting for the workers to apply the shoppers' payments");
      const { audit, allApplied } = await awaitDelivery({
        label: "flash-sale payments applied",
        shards,
        since,
        acceptedIds: accepted,
        timeoutMs: 120_000,
      });
      const sockets = shoppers.filter((s) => s.watch === "websocket");
      const pollers = shoppers.filter((s) => s.watch === "polling");
      const delays = (watchers: typeof shoppers) =>
        summarizeLatencies(
          watchers.flatMap((s) =>
            s.noticedAt !== null && s.admittedAt !== null ? [s.noticedAt - s.admittedAt] : [],
          ),
        );
      // A push needs an open socket: a shopper admitted while its socket was still connecting learns of it in
      // the socket's first message, which measures the connection, not the push.
      const pushed = new Set(
        sockets.filter(
          (s) => s.socketOpenedAt !== null && s.admittedAt !== null && s.socketOpenedAt < s.admittedAt,
        ),
      );
      const connectedLate = sockets.filter((s) => s.admittedAt !== null && !pushed.has(s));
      const statusCounts = (values: (number | null)[]) =>
        values.reduce<Record<string, number>>((counts, value) => {
          const key = String(value ?? "none");
          counts[key] = (counts[key] ?? 0) + 1;
          return counts;
        }, {});
      const sale: FlashSaleRun = {
        joins: {
          offeredRate: Math.ceil(options.users / options.joinSeconds),
          // Over each slice's own time (the slices start 1/slices s apart, so the wall time from the first
          // start overstates a 2 s join phase by up to half), and never over less than the schedule: autocannon
          // sends each second's quota at the start of the second, so a server that keeps pace finishes a
          // little before --join-seconds, which says nothing of a rate above the offered one.
          answeredRate: Math.round(joins.responses / Math.max(options.joinSeconds, joins.activeS)),
          activeS: joins.activeS,
          wallS: Math.round((joins.finishedAt - joins.startedAt) / 10) / 100,
          statusCounts: joins.statusCounts,
          latencyMs: summarizeLatencies(joins.latencies),
          cpu: joinCpu,
          loadGeneratorLoopDelayMs: joins.loopDelayMs,
          retried: (() => {
            const again = shoppers.filter((s) => s.joinAttempts > 1);
            return {
              shoppers: again.length,
              attempts: again.reduce((n, s) => n + s.joinAttempts - 1, 0),
              finalStatusCounts: statusCounts(again.map((s) => s.joinStatus)),
            };
          })(),
        },
        sockets: {
          watchers: sockets.length,
          // A stock sale's late shoppers find it sold out at the join (410): they never wait, so open no socket.
          refusedSoldOut: sockets.filter((s) => s.joinStatus === 410).length,
          ...crowd.sockets,
          positionMessages: sockets.reduce((n, s) => n + s.updates, 0),
        },
        pollers: { watchers: pollers.length, polls: pollers.reduce((n, s) => n + s.updates, 0) },
        admission: {
          ...fifo,
          users: options.users,
          admitPerSecond: options.admit,
          seconds:
            fifo.firstAdmittedAt !== null
              ? Math.round((fifo.lastAdmittedAt! - fifo.firstAdmittedAt) / 10) / 100
              : null,
          idealSeconds,
        },
        pushDelayMs: delays([...pushed]),
        admittedBeforeSocketOpened: connectedLate.length,
        crowdLoopDelayMs,
        connectAfterAdmissionMs: delays(connectedLate),
        socketCreateAfterJoinMs: summarizeLatencies(
          sockets.flatMap((s) =>
            s.socketRequestedAt !== null ? [s.socketRequestedAt - s.joinAnsweredAt] : [],
          ),
        ),
        socketHandshakeMs: summarizeLatencies(
          sockets.flatMap((s) =>
            s.socketRequestedAt !== null && s.socketOpenedAt !== null
              ? [s.socketOpenedAt - s.socketRequestedAt]
              : [],
          ),
        ),
        pollDiscoveryMs: delays(pollers),
        payments: {
          attempted: shoppers.filter((s) => s.paymentStatus !== null).length,
          statusCounts: statusCounts(
            shoppers.filter((s) => s.paymentStatus !== null).map((s) => s.paymentStatus),
          ),
          latencyMs: summarizeLatencies(
            shoppers.flatMap((s) => (s.paymentLatencyMs === null ? [] : [s.paymentLatencyMs])),
          ),
        },
        delivery: audit,
        allApplied,
        probes,
      };
      result.sale = sale;
      if (productId !== null) {
        result.stockSale = summarizeStockSale({
          productId,
          stock: options.stock,
          admitBeyondStock: ADMIT_BEYOND_STOCK,
          admitted: fifo.admitted,
          shoppers,
          sales: await shards.productSales(productId),
        });
      }
      crowd.close();

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
      result.roundTrips = { limitsOn, limitsOff };
      result.checks = [
        ...checkFlashSale(sale, result.roundTrips, { everyoneAdmitted: productId === null }),
        ...(result.stockSale ? checkStockSale(result.stockSale) : []),
      ];
      if (result.checks.some((c) => c.ok === false))
        result.error = "some flash-sale checks fail (see checks)";
    },
    async () => {
      crowd?.close();
      for (const client of clients) client.close();
      await floodgate.close();
    },
    summarizeFlashSale,
  );
}
