// The test files that run a second time, against a Redis Cluster of 3 masters and 3 replicas: vitest's
// "cluster" project (vitest.config.ts). Every file of the repo runs once in the "single" project against the
// shared Redis; the files listed here run again with FLOODGATE_TEST_REDIS=cluster, so createTestEnvironment
// gives them one cluster shared by the whole run (started by cluster-global-setup.ts only when at least one of
// them is to run, stopped at the end). Each file still keeps to its own key prefix; its cleanup deletes that
// prefix's keys on every master.
//
// To add a file (when the code it tests is cluster-safe):
//   1. add its path below, relative to the repository's root: an exact path, no glob, so the list says what
//      is proven and no file joins by accident;
//   2. run the project with it: pnpm exec vitest run --project cluster path/to/file.test.ts (--project cluster
//      picks only listed files, hence step 1 first), and keep it only when it passes;
//   3. commit the line with the change that made it pass.
// A file belongs here only if it gets its Redis from createTestEnvironment (env.config.redisUrl and
// connections made from it: createRedis/createSubscriber from @floodgate/redis-connections, connectRedis or testRedisUrl
// from here), never `new Redis(url)`, which cannot open a cluster URL. A test that must know where it runs
// reads process.env.FLOODGATE_TEST_REDIS ("cluster" here). Files that kill, restart or reconfigure Redis
// need a Redis of their own and stay out: the cluster is shared by every listed file.
// The reporter names the project of each file: "|single|" or "|cluster|".
export const clusterSuites: string[] = [
  // The per-master tooling itself: cleanup, key listings, key counts, settings.
  "packages/test-fixtures/test/redis-masters.test.ts",
  "bench/test/redis-tooling.test.ts",
  "packages/queue/test/stream-consumer.test.ts",
  "packages/queue/test/trim-acknowledged.test.ts",
  // A worker reads, claims, finishes and trims per partition (payments, deposits; no orders, coupons yet).
  "apps/worker/test/graceful-stop.test.ts",
  "apps/worker/test/busy-shard.test.ts",
  "apps/worker/test/wallet-invariant.test.ts",
  "apps/worker/test/shard-routing.test.ts",
  "apps/worker/test/read-only-shard.test.ts",
  "apps/intake/test/operation-reads.test.ts",
  "apps/intake/test/server-key-cache.test.ts",
  "apps/intake/test/store-errors.test.ts",
  "apps/intake/test/webhook-endpoints.test.ts",
  "apps/intake/test/websocket-upgrades.test.ts",
  "apps/intake/test/health-routes.test.ts",
  "apps/intake/test/request-id.test.ts",
  "apps/intake/test/cors.test.ts",
  "apps/intake/test/request-validation.test.ts",
  "apps/intake/test/openapi.test.ts",
  // The waiting room: a guarded payment admitted (token, pass) and refused (no token, revoked, expired).
  "packages/admission/test/admission-gate.test.ts",
  "packages/admission/test/waiting-room.test.ts",
  "packages/admission/test/admission-leader.test.ts",
  "apps/intake/test/waiting-room.test.ts",
  "apps/intake/test/waiting-room-sockets.test.ts",
  // A scheduled room's pre-queue ordered from a committed seed, recomputed from its public proof.
  "apps/intake/test/shuffle-proof.test.ts",
  // Rooms per sale: each sale's room guards its own products and coupons.
  "apps/intake/test/waiting-room-sales.test.ts",
  "apps/intake/test/waiting-room-stock.test.ts",
  "apps/intake/test/waiting-room-sold-out.test.ts",
  // Room events: each transition recorded once in the events feed and the webhook outbox.
  "apps/intake/test/room-events.test.ts",
  // admitPerSecond "auto": the leader's rate follows the workers.
  "packages/admission/test/auto-admit-rate.test.ts",
  "apps/intake/test/waiting-room-auto-rate.test.ts",
  // One-shot admission: the token consumed by the order's (the issue's) commit step.
  "apps/intake/test/waiting-room-one-shot.test.ts",
  // Admission tokens admitted by their digest in the user's pass: one token per admission, every other refused.
  "apps/intake/test/admission-token-digest.test.ts",
  // Room controls: endsAt closes and reopens, method reject and random, joins by the shop's server only.
  "apps/intake/test/waiting-room-controls.test.ts",
  "apps/intake/test/waiting-room-random.test.ts",
  // Join passes (a bypass, lanes by share): minted, verified at the join, the lanes split by the tick.
  "apps/intake/test/waiting-room-passes.test.ts",
  // Sessions that end on their order (a worker batch ends them in the room's slot) and on idleness.
  "apps/intake/test/waiting-room-session-ends.test.ts",
  "packages/admission/test/room-sessions.test.ts",
  "apps/intake/test/payments-accept.test.ts",
  // Payments, deposits and refunds end to end (a worker applying them), their idempotency, the queue gauges and
  // backpressure read per partition, webhook events staged with them.
  "apps/intake/test/payments-idempotency.test.ts",
  "apps/intake/test/wallets.test.ts",
  "apps/intake/test/refunds.test.ts",
  "apps/intake/test/metrics.test.ts",
  "apps/intake/test/backpressure.test.ts",
  "apps/intake/test/readiness-under-backlog.test.ts",
  "packages/admission/test/backlog-gauge.test.ts",
  "apps/worker/test/apply-shard-batch.test.ts",
  "apps/worker/test/shard-outage.test.ts",
  "apps/worker/test/refunds-concurrent.test.ts",
  "apps/worker/test/webhook-outbox.test.ts",
  // Coupon issues: a reservation in the coupon's slot and a commit in the user's (issue-coupon-in-two-steps.ts).
  "apps/intake/test/coupon-issues.test.ts",
  "apps/intake/test/coupon-reads.test.ts",
  "apps/intake/test/coupons-admin.test.ts",
  "packages/reservations/test/coupon-two-steps.test.ts",
  "packages/redis-connections/test/hash-slot.test.ts",
  "packages/queue/test/queue-keys.test.ts",
  // The enqueue call with compact (no room) and full blocks side by side, every key in one partition's slot.
  "packages/queue/test/enqueue-compact-blocks.test.ts",
  // Orders: stock reserved in each product's slot, the order recorded in the user's (reserve-order-in-two-steps.ts);
  // ended orders give their stock back per product (release-order.ts).
  "packages/reservations/test/order-two-steps.test.ts",
  "apps/intake/test/idempotent-refusals.test.ts",
  "apps/intake/test/orders-accept.test.ts",
  "apps/intake/test/orders-unit-limit.test.ts",
  "apps/intake/test/order-reads.test.ts",
  "apps/worker/test/orders-expiry.test.ts",
  "apps/worker/test/orders-lifecycle.test.ts",
  "apps/worker/test/orders-unit-limit.test.ts",
  // (Not refunds-worker-killed.test.ts: it holds the worker's Redis traffic behind a proxy to one Redis; nor
  // legacy-job-drain.test.ts: the untagged BullMQ prefix it drains only ever existed on one Redis; nor
  // replica-wait.test.ts: it runs on a private master and replica of its own, never on the cluster.)
  "apps/worker/test/orders-worker-killed.test.ts",
  "apps/worker/test/refunds-orders.test.ts",
  "apps/worker/test/webhooks-events.test.ts",
  "apps/intake/test/operation-socket.test.ts",
  "apps/intake/test/auth-callers.test.ts",
  "packages/checkout-sdk/test/operations.test.ts",
  "packages/checkout-sdk/test/join-room.test.ts",
  // Reconcile's repairs, one WATCH + MULTI per slot: on drift seeded without the intake, and end to end.
  "packages/reconcile/test/cluster-repairs.test.ts",
  "packages/reconcile/test/reconcile.test.ts",
];
