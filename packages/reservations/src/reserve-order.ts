import type { QueueKeys } from "@floodgate/queue";
import { acceptInTurn, NO_REPLICA_WAIT } from "@floodgate/redis-connections";
import { ONE_REDIS_GROUP, reserveOrders, type ScriptedRedis } from "@floodgate/redis-scripts";
import { reserveOrderInTwoSteps } from "./reserve-order-in-two-steps.ts";
import { orderOutcome, type ReserveOrderOutcome } from "./reserve-order-outcome.ts";
import { orderFieldsOf, orderKeysOf, type ReserveOrderRequest } from "./reserve-order-request.ts";

/**
 * The intake's whole Redis budget for an order on one Redis: ONE script call (admission, idempotency, per-user cap
 * and stock of every line, coupon, amount, reservation, unpaid units, status and XADD), shared with the orders of
 * the same turn (turn-batches.ts in @floodgate/redis-scripts). Do not add calls here; put new checks inside the Lua
 * script. With REDIS_WAIT_REPLICAS an accepted order is answered once its master's next replica confirmation
 * covers it (replica-wait.ts in @floodgate/redis-connections).
 */
export function reserveOrder(
  redis: ScriptedRedis,
  keys: QueueKeys,
  request: ReserveOrderRequest,
): Promise<ReserveOrderOutcome> {
  // A cluster keeps each product and the user in their own slots: reservations and a commit instead.
  if (redis.isCluster) return reserveOrderInTwoSteps(redis, keys, request);
  const partition = keys.partitionForUser(request.userId);
  const input = {
    admission: request.admission,
    keys: orderKeysOf(keys, partition, request),
    fields: orderFieldsOf(request),
    lines: request.items.map((item) => ({
      productStateKey: keys.productState(item.productId),
      unpaidUnitsKey: keys.unpaidUnits(item.productId, request.userId),
      quantity: item.quantity,
    })),
  };
  const wait = request.replicaWait ?? NO_REPLICA_WAIT;
  return acceptInTurn(redis, wait, keys.stream(partition), reserveOrders, ONE_REDIS_GROUP, input, (answer) =>
    orderOutcome(request, answer),
  );
}
