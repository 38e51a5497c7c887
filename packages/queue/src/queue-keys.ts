// The Redis key layout. Every key of one partition carries the hash tag `{p<n>}`, so a Redis Cluster keeps a
// partition's stream, idempotency keys and statuses in one slot (one Lua call may touch them all) and spreads
// the partitions over the cluster.
import { bucketOfMintedId, operationTailOf, parseOperationId } from "@floodgate/domain";
import { bucketForUser } from "@floodgate/shard-router";

export const CONSUMER_GROUP = "workers";

const TAIL_KEYED_PREFIXES: ReadonlySet<string> = new Set(["pay_", "dep_", "rfd_", "ppy_"]);

/**
 * Whether the operation's status is named by bucket and tail (QueueKeys.status): payments, deposits, refunds,
 * provider payments.
 */
export const isTailKeyed = (operationId: string): boolean => TAIL_KEYED_PREFIXES.has(operationId.slice(0, 4));

export class QueueKeys {
  readonly prefix: string;
  readonly partitions: number;

  constructor(prefix: string, partitions: number) {
    this.prefix = prefix;
    this.partitions = partitions;
  }

  partitionForBucket(bucket: number): number {
    return bucket % this.partitions;
  }

  partitionForUser(userId: string): number {
    return this.partitionForBucket(bucketForUser(userId));
  }

  /** The partition of an id this process minted (bucketOfMintedId: read, not parsed). */
  partitionForMintedOperation(operationId: string): number {
    return this.partitionForBucket(bucketOfMintedId(operationId));
  }

  /** Null for a malformed id. */
  partitionForOperation(operationId: string): number | null {
    const parsed = parseOperationId(operationId);
    return parsed === null ? null : this.partitionForBucket(parsed.bucket);
  }

  stream(partition: number): string {
    // Named on every accepted request: each partition's name is made once.
    let name = this.#streams[partition];
    if (name === undefined) {
      name = `${this.prefix}{p${partition}}:ops`;
      this.#streams[partition] = name;
    }
    return name;
  }

  readonly #streams: string[] = [];

  allStreams(): string[] {
    return Array.from({ length: this.partitions }, (_, p) => this.stream(p));
  }

  idempotency(partition: number, userId: string, idempotencyKey: string): string {
    return `${this.prefix}{p${partition}}:idem:${userId}:${idempotencyKey}`;
  }

  /**
   * A refund's Idempotency-Key, scoped by its payment. Its own segment, `refund-idem:`, which no user's key
   * (`idem:<userId>:`) starts with, whatever the key holds: keys may contain `:`, and `refund` is a valid user id.
   */
  refundIdempotency(partition: number, paymentId: string, idempotencyKey: string): string {
    return `${this.prefix}{p${partition}}:refund-idem:${paymentId}:${idempotencyKey}`;
  }

  /**
   * A provider payment's former-record key (enqueue-operations-n.lua's KEYS +5): never written, its own segment
   * so that no user's or refund's key can name it.
   */
  providerPaymentIdempotency(partition: number, orderId: string, idempotencyKey: string): string {
    return `${this.prefix}{p${partition}}:provider-idem:${orderId}:${idempotencyKey}`;
  }

  /**
   * Where the previous release kept a refund's key (the user `refund`'s keys can be here too): read by the
   * intake until IDEMPOTENCY_TTL_SECONDS after an upgrade (legacy-refund-key.ts), never written.
   */
  legacyRefundIdempotency(partition: number, paymentId: string, idempotencyKey: string): string {
    return this.idempotency(partition, `refund:${paymentId}`, idempotencyKey);
  }

  /**
   * An operation's status hash. A payment's, deposit's or refund's is named by its id's bucket and tail
   * (`{p}:st:<16 chars>`): with an Idempotency-Key the tail is the key's (idempotentTail), so the one hash is
   * both the status and the key's record, found by id and by a retry alike (one key per payment, not two).
   * Every other kind keeps `{p}:op:<operationId>`.
   */
  status(partition: number, operationId: string): string {
    return isTailKeyed(operationId)
      ? `${this.prefix}{p${partition}}:st:${operationTailOf(operationId)}`
      : this.formerStatus(partition, operationId);
  }

  /**
   * Where a payment's, deposit's or refund's status was kept before tail-keyed statuses (and every other kind's
   * still is): read when the status hash is missing, for operations accepted before the upgrade.
   */
  formerStatus(partition: number, operationId: string): string {
    return `${this.prefix}{p${partition}}:op:${operationId}`;
  }

  /** A coupon's state: quantity, window and issued count (its own hash tag: one coupon, one slot). */
  couponState(couponId: string): string {
    return `${this.prefix}{${couponId}}:coupon`;
  }

  /** Who holds a coupon: userId -> issue id. */
  couponHolders(couponId: string): string {
    return `${this.prefix}{${couponId}}:holders`;
  }

  /**
   * Units reserved in the item's slot by the first step of a coupon issue / order on a Redis Cluster, until the
   * user's slot records the request (or a sweep gives them back): a sorted set, member "<issue or order id>
   * <user id>", score the reserved-at time (epoch ms, the item's master's clock). Always empty on one Redis.
   */
  couponReservations(couponId: string): string {
    return `${this.prefix}{${couponId}}:reservations`;
  }

  /** As couponReservations, for a product's stock. */
  productReservations(productId: string): string {
    return `${this.prefix}{${productId}}:reservations`;
  }

  /**
   * A coupon issue's redemption record, in the holder's partition (same slot as their orders): couponId,
   * userId, discount, and `orderId` while an order holds it. Written by issue-coupon, read by reserve-order.
   */
  couponIssue(partition: number, issueId: string): string {
    return `${this.prefix}{p${partition}}:cis:${issueId}`;
  }

  /**
   * A product's state: `price`, `available` (stock for new orders) and, when it has its own, `maxUnitsPerUser`.
   * Its own hash tag, like a coupon.
   */
  productState(productId: string): string {
    return `${this.prefix}{${productId}}:product`;
  }

  /**
   * The units of a product one user holds in orders awaiting payment (the per-user cap). In the user's partition
   * slot, beside the order's state that marks them counted, so paying or ending an order lowers them in one
   * slot. (Before they were in the product's slot, `{prd_...}:unpaid:<userId>`: left to their TTL on upgrade.)
   */
  unpaidUnits(productId: string, userId: string): string {
    return `${this.prefix}{p${this.partitionForUser(userId)}}:unpaid:${productId}:${userId}`;
  }

  /**
   * On a Redis Cluster, set once an ended order's units of this product went back to its stock
   * (return-stock-2.lua): a redelivered release returns nothing twice.
   */
  stockReturned(productId: string, orderId: string): string {
    return `${this.prefix}{${productId}}:returned:${orderId}`;
  }

  /** What an accepted order reserved (lines, coupon) and whether it was released: release runs once. */
  orderState(partition: number, orderId: string): string {
    return `${this.prefix}{p${partition}}:order:${orderId}`;
  }

  /**
   * When an operation's message first failed for a reason of its own (epoch ms; a string that expires), so its
   * dead letter can say when the trouble began: the failures before the last leave no other trace.
   */
  firstFailure(partition: number, operationId: string): string {
    return `${this.prefix}{p${partition}}:ffail:${operationId}`;
  }

  /**
   * Messages that failed MAX_DELIVERIES times for a reason of their own: one stream for all partitions, under
   * its own hash tag, so it is never in a call with a partition's keys (the worker copies to it first, then
   * acknowledges per partition: dead-letter.ts). Before the tag it was `dead-letters` (legacy-dead-letters.ts).
   */
  deadLetters(): string {
    return `${this.prefix}{dlq}:dead-letters`;
  }

  /**
   * Who settled a dead letter (`replay` or `drop`, by `./floodgate dlq`): in the operation's partition, so the
   * claim, the status and the stream append share one slot (claim-dead-letter-3.lua).
   */
  deadLetterClaim(partition: number, deadLetterEntryId: string): string {
    return `${this.prefix}{p${partition}}:dlq:${deadLetterEntryId}`;
  }

  /**
   * The last reconcile's figures, a hash (drift, unrepaired, finishedAt in ms) written by each run that may
   * repair (not a dry run) and served by the intake's /metrics: a one-shot command has nothing to scrape.
   */
  reconcileResult(): string {
    return `${this.prefix}reconcile:last`;
  }

  /**
   * Entries each worker holds for a shard that cannot take them now: consumer -> `<count> <ms>` (the backlog
   * gauge leaves them out of the workers' backlog).
   */
  stalledEntries(): string {
    return `${this.prefix}workers:stalled`;
  }

  /** Pub/sub channel that carries final statuses (for the status WebSocket). */
  statusChannel(): string {
    return `${this.prefix}operation-status`;
  }
}
