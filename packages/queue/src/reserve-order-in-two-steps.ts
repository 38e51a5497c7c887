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
import { MAX_AMOUNT } from "@floodgate/domain";
import type { ScriptedRedis } from "@floodgate/redis-scripts";
import type { QueueKeys } from "./queue-keys.ts";
import { acceptingScript, NO_REPLICA_WAIT } from "./replica-wait.ts";
import {
  couponIssueKey,
  orderOutcome,
  ReserveOrderCode,
  type ReserveOrderOutcome,
  type ReserveOrderRequest,
} from "./reserve-order.ts";
import {
  ADMITTED,
  COMMIT_TOO_LATE,
  COMMIT_WINDOW_MS,
  CommitTooLateError,
  inBackground,
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
  const stream = keys.stream(partition);
  const wait = request.replicaWait ?? NO_REPLICA_WAIT;
  const idempotencyKey = keys.idempotency(partition, userId, request.idempotencyKey ?? "");
  const ttl = request.idempotencyKey === undefined ? 0 : request.idempotencyTtlSeconds;
  const products = productsOf(request.items);
  const couponKey = couponIssueKey(keys, partition, request.couponIssueId);
  // A coupon issue's record is in its holder's partition: one in another slot is not this user's (or is none).
  const foreignCoupon =
    request.couponIssueId !== undefined && keys.partitionForOperation(request.couponIssueId) !== partition;

  const [admitted, coupon, ...reserved] = await Promise.allSettled([
    acceptingScript(redis, wait, "admitRequest", stream)(
      ...request.admission.keys,
      idempotencyKey,
      ...request.admission.args,
      request.fingerprint,
      ttl,
    ),
    foreignCoupon ? redis.hget(couponKey, "userId") : Promise.resolve(null),
    ...products.map((product) =>
      acceptingScript(redis, wait, "reserveStock", keys.productState(product.productId))(
        keys.productState(product.productId),
        keys.productReservations(product.productId),
        orderId,
        userId,
        product.units,
      ),
    ),
  ]);
  const held = products.filter((_, i) => {
    const reply = reserved[i]!;
    return reply.status === "fulfilled" && reply.value[0] === 1;
  });
  // A refusal answers once its units are back (a refused order changes nothing); a release that fails is left to
  // the worker's sweep, so it never turns the refusal into an error.
  const releaseAll = () =>
    Promise.all(
      held.map((product) =>
        redis
          .releaseStock(
            keys.productState(product.productId),
            keys.productReservations(product.productId),
            orderId,
            userId,
            product.units,
          )
          .catch(() => 0),
      ),
    );
  const failed = [admitted, coupon, ...reserved].find((reply) => reply.status === "rejected");
  if (failed !== undefined) {
    // A reservation whose reply was lost is swept; those that answered are given back now.
    await releaseAll();
    throw (failed as PromiseRejectedResult).reason;
  }
  const [admitCode, admitValue, admitInfo, admitReplayed] = (
    admitted as PromiseFulfilledResult<[number, string, string?, number?]>
  ).value;
  if (admitCode !== ADMITTED) {
    await releaseAll();
    return userSideAnswer(redis, keys, request, partition, admitCode, admitValue, admitInfo, admitReplayed);
  }

  // Refusals decided outside the user's slot, in the order reserve-order-n.lua checks them.
  const refusal = productRefusal(products, reserved) ?? couponRefusal(foreignCoupon, coupon);
  if (refusal !== null) {
    await releaseAll();
    const [code, value] = refusal;
    if (ttl === 0) return orderOutcome(request, code, value, undefined, 0);
    // The refusal is the request's answer: the key records it, as reserve-order-n.lua does on one Redis.
    const [recorded, recordedValue, , replayed] = await redis.recordRefusal(
      idempotencyKey,
      request.fingerprint,
      ttl,
      code,
      value,
    );
    return userSideAnswer(redis, keys, request, partition, recorded, recordedValue, "", replayed);
  }

  const replies = reserved.map(
    (reply) => (reply as PromiseFulfilledResult<[number, string, string, number]>).value,
  );
  const commitKeys = [
    idempotencyKey,
    keys.status(partition, orderId),
    stream,
    keys.orderState(partition, orderId),
    couponKey,
  ];
  const lineArgs = request.items.flatMap((item) => {
    const reply = replies[products.findIndex((product) => product.productId === item.productId)]!;
    return [item.productId, item.quantity, reply[1], reply[2]];
  });
  const [code, value, , replayed] = await acceptingScript(redis, wait, "commitOrder", stream)(
    ...commitKeys,
    orderId,
    userId,
    request.fingerprint,
    ttl,
    request.orderStateTtlSeconds,
    request.createdAt,
    request.expiresAt,
    request.currency,
    request.couponIssueId ?? "",
    MAX_AMOUNT,
    request.defaultMaxUnitsPerUser,
    request.unpaidUnitsTtlSeconds,
    Math.min(...replies.map((reply) => Number(reply[3]))),
    COMMIT_WINDOW_MS,
    request.items.length,
    ...lineArgs,
  );
  if (code === ReserveOrderCode.accepted) {
    // The units are the order's: strike the reservations off their lists (a sweep would, finding it recorded).
    for (const product of products)
      inBackground(
        redis.zrem(
          keys.productReservations(product.productId),
          stockReservationMember(orderId, userId, product.units),
        ),
      );
    return orderOutcome(request, code, value, admitInfo, 0);
  }
  await releaseAll();
  if (code === COMMIT_TOO_LATE) throw new CommitTooLateError(`order ${orderId}`);
  return orderOutcome(request, code, value, admitInfo, replayed);
}

/** An unknown product (its first line), else every short line with what is left, else null. */
function productRefusal(
  products: ProductUnits[],
  reserved: PromiseSettledResult<[number, string, string?, number?]>[],
): [number, string] | null {
  const replies = reserved.map((reply) => (reply as PromiseFulfilledResult<[number, string]>).value);
  const unknown = products.flatMap((product, i) =>
    replies[i]![0] === ReserveOrderCode.unknownProduct ? product.lines : [],
  );
  if (unknown.length > 0) return [ReserveOrderCode.unknownProduct, String(Math.min(...unknown))];
  const short = products
    .flatMap((product, i) =>
      replies[i]![0] === ReserveOrderCode.outOfStock
        ? product.lines.map((line) => [line, replies[i]![1]] as const)
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
  code: number,
  value: string,
  info: string | undefined,
  replayed: number | undefined,
): Promise<ReserveOrderOutcome> {
  if (code === ReserveOrderCode.replayed) {
    const amount = await redis.hget(keys.orderState(partition, value), "amount");
    return orderOutcome(request, code, `${value} ${amount ?? ""}`, info, 0);
  }
  if (code === KEY_CONFLICT) return orderOutcome(request, ReserveOrderCode.conflict, value, info, 0);
  return orderOutcome(request, code, value, info, replayed);
}
