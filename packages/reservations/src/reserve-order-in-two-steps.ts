// An order on a Redis Cluster. Each product's stock lives in its own slot, the user's admission, idempotency
// record, unpaid units, coupon record, order state, status and stream in the user's partition slot, and no
// script may span two slots. So an order is reservations with a commit (two-step-request.ts):
//   1. admit-request-4.lua (user's slot) beside reserve-stock-2.lua in every product's slot (all at once, one
//      round trip): the product known and its stock enough, its units held and the reservation listed;
//   2. commit-order-5.lua (user's slot): per-user cap, coupon, amount, then everything reserve-order-n.lua
//      writes on one Redis; only when every product held its units;
//   3. after the answer, the reservations are struck off their lists.
// All or nothing to the client: a refusal anywhere gives back every unit held (at once; a worker's sweep if the
// intake died between the steps). Never oversold: stock is taken in the product's slot, atomically, before the
// order is recorded; units held by an order not yet recorded count as taken, so a sale may answer out of stock a
// moment early, never late. An accepted order costs two round trips here (one on one Redis).

import type { QueueKeys } from "@floodgate/queue";
import { acceptingScript, NO_REPLICA_WAIT } from "@floodgate/redis-connections";
import {
  admitRequest,
  commitOrder,
  type ReserveStockResult,
  recordRefusal,
  releaseStock,
  reserveStock,
  type ScriptAnswer,
  type ScriptedRedis,
} from "@floodgate/redis-scripts";
import { strikeOffReservation } from "./reservation-strike-offs.ts";
import { orderOutcome, ReserveOrderCode, type ReserveOrderOutcome } from "./reserve-order-outcome.ts";
import { orderFieldsOf, orderKeysOf, type ReserveOrderRequest } from "./reserve-order-request.ts";
import { settleOrderProducts } from "./settle-unpaid-units.ts";
import {
  ADMITTED,
  COMMIT_TOO_LATE,
  COMMIT_WINDOW_MS,
  CommitTooLateError,
  KEY_CONFLICT,
  stockReservationMember,
} from "./two-step-request.ts";

interface ProductUnits {
  productId: string;
  /** 1-based lines of this product, in order. */
  lines: number[];
  units: number;
}

/** The order's products, each once, in the order of their first line, with all their lines' units. */
function productsOf(items: ReserveOrderRequest["items"]): ProductUnits[] {
  const products = new Map<string, ProductUnits>();
  items.forEach((item, index) => {
    const product = products.get(item.productId) ?? { productId: item.productId, lines: [], units: 0 };
    product.lines.push(index + 1);
    product.units += item.quantity;
    products.set(item.productId, product);
  });
  return [...products.values()];
}

export async function reserveOrderInTwoSteps(
  redis: ScriptedRedis,
  keys: QueueKeys,
  request: ReserveOrderRequest,
): Promise<ReserveOrderOutcome> {
  const { orderId, userId } = request;
  const partition = keys.partitionForUser(userId);
  const wait = request.replicaWait ?? NO_REPLICA_WAIT;
  const orderKeys = orderKeysOf(keys, partition, request);
  const fields = orderFieldsOf(request);
  const ttl = fields.idempotencyTtlSeconds;
  const products = productsOf(request.items);
  const reservations = products.map((product) => ({
    product: {
      stateKey: keys.productState(product.productId),
      reservationsKey: keys.productReservations(product.productId),
    },
    orderId,
    userId,
    units: product.units,
  }));
  // A coupon issue's record is in its holder's partition: one in another slot is not this user's (or is none).
  const foreignCoupon =
    request.couponIssueId !== undefined && keys.partitionForOperation(request.couponIssueId) !== partition;

  const [admitted, coupon, ...reserved] = await Promise.allSettled([
    acceptingScript(
      redis,
      wait,
      admitRequest,
      orderKeys.streamKey,
    )({
      admission: request.admission,
      idempotencyKey: orderKeys.idempotencyKey,
      fingerprint: request.fingerprint,
      idempotencyTtlSeconds: ttl,
    }),
    foreignCoupon ? redis.hget(orderKeys.couponRedemptionKey, "userId") : Promise.resolve(null),
    ...reservations.map((reservation) =>
      acceptingScript(redis, wait, reserveStock, reservation.product.stateKey)(reservation),
    ),
  ]);
  const held = reservations.filter((_, i) => {
    const reply = reserved[i]!;
    return reply.status === "fulfilled" && reply.value.held !== null;
  });
  // A refusal answers once its units are back (a refused order changes nothing); a release that fails is left to
  // the worker's sweep, so it never turns the refusal into an error.
  const releaseAll = () =>
    Promise.all(held.map((reservation) => releaseStock.run(redis, reservation).catch(() => false)));
  const failed = [admitted, coupon, ...reserved].find((reply) => reply.status === "rejected");
  if (failed !== undefined) {
    // A reservation whose reply was lost is swept; those that answered are given back now.
    await releaseAll();
    throw (failed as PromiseRejectedResult).reason;
  }
  const admit = (admitted as PromiseFulfilledResult<ScriptAnswer>).value;
  if (admit.code !== ADMITTED) {
    await releaseAll();
    return userSideAnswer(redis, keys, request, partition, admit);
  }

  const answers = reserved.map((reply) => (reply as PromiseFulfilledResult<ReserveStockResult>).value);
  // Refusals decided outside the user's slot, in the order reserve-order-n.lua checks them.
  const refusal = productRefusal(products, answers) ?? couponRefusal(foreignCoupon, coupon);
  if (refusal !== null) {
    await releaseAll();
    const [code, value] = refusal;
    if (ttl === 0) return orderOutcome(request, { code, value, admission: undefined, replayed: false });
    // The refusal is the request's answer: the key records it, as reserve-order-n.lua does on one Redis.
    const recorded = await recordRefusal.run(redis, {
      idempotencyKey: orderKeys.idempotencyKey,
      fingerprint: request.fingerprint,
      idempotencyTtlSeconds: ttl,
      code,
      value,
    });
    return userSideAnswer(redis, keys, request, partition, { ...recorded, admission: undefined });
  }

  // Every product held its units (no refusal above), so each answer carries what the commit needs.
  const heldStock = answers.map((answer) => answer.held!);
  const committed = await acceptingScript(
    redis,
    wait,
    commitOrder,
    orderKeys.streamKey,
  )({
    keys: orderKeys,
    fields,
    reservedAtMs: Math.min(...heldStock.map((stock) => stock.reservedAtMs)),
    commitWindowMs: COMMIT_WINDOW_MS,
    admission: request.admission,
    lines: request.items.map((item) => {
      const stock = heldStock[products.findIndex((product) => product.productId === item.productId)]!;
      return {
        productId: item.productId,
        quantity: item.quantity,
        unitPrice: stock.price,
        maxUnitsPerUser: stock.maxUnitsPerUser,
      };
    }),
  });
  if (committed.code === ReserveOrderCode.accepted) {
    // The units are the order's: strike the reservations off their lists (a sweep would, finding it recorded).
    for (const reservation of reservations)
      strikeOffReservation(
        redis,
        reservation.product.reservationsKey,
        stockReservationMember(orderId, userId, reservation.units),
      );
    // Nothing to pay: the order is paid once recorded, so its units are no longer unpaid in the products'
    // states (reserve-stock-2.lua counted them before the amount was known). Not awaited, like the strike-offs;
    // one lost keeps its product's room from telling sold out (never tells it early).
    if (Number(committed.value) === 0)
      for (const settled of settleOrderProducts(redis, keys, orderId, request.items)) settled.catch(() => {});
    return orderOutcome(request, { ...committed, admission: admit.admission, replayed: false });
  }
  await releaseAll();
  if (committed.code === COMMIT_TOO_LATE) throw new CommitTooLateError(`order ${orderId}`);
  return orderOutcome(request, { ...committed, admission: admit.admission });
}

/** An unknown product (its first line), else every short line with what is left, else null. */
function productRefusal(products: ProductUnits[], answers: ReserveStockResult[]): [number, string] | null {
  const unknown = products.flatMap((product, i) =>
    answers[i]!.code === ReserveOrderCode.unknownProduct ? product.lines : [],
  );
  if (unknown.length > 0) return [ReserveOrderCode.unknownProduct, String(Math.min(...unknown))];
  const short = products
    .flatMap((product, i) =>
      answers[i]!.code === ReserveOrderCode.outOfStock
        ? product.lines.map((line) => [line, answers[i]!.value] as const)
        : [],
    )
    .sort(([a], [b]) => a - b);
  if (short.length > 0)
    return [ReserveOrderCode.outOfStock, short.map(([line, left]) => `${line}:${left}`).join(",")];
  return null;
}

/** A coupon issue of another partition: unknown when it has no record, someone else's when it has. */
function couponRefusal(
  foreign: boolean,
  holder: PromiseSettledResult<string | null>,
): [number, string] | null {
  if (!foreign) return null;
  const userId = (holder as PromiseFulfilledResult<string | null>).value;
  return userId === null ? [ReserveOrderCode.unknownCoupon, ""] : [ReserveOrderCode.couponNotYours, ""];
}

/** The user's slot answered instead of going on: an accepted replay (its amount read), a conflict, a refusal. */
async function userSideAnswer(
  redis: ScriptedRedis,
  keys: QueueKeys,
  request: ReserveOrderRequest,
  partition: number,
  answer: ScriptAnswer,
): Promise<ReserveOrderOutcome> {
  if (answer.code === ReserveOrderCode.replayed) {
    const amount = await redis.hget(keys.orderState(partition, answer.value), "amount");
    return orderOutcome(request, { ...answer, value: `${answer.value} ${amount ?? ""}`, replayed: false });
  }
  if (answer.code === KEY_CONFLICT)
    return orderOutcome(request, { ...answer, code: ReserveOrderCode.conflict, replayed: false });
  return orderOutcome(request, answer);
}
