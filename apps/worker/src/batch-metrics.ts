// What one applied shard batch adds to the worker's metrics.
import type { WorkerMetrics } from "@floodgate/metrics";
import type { ShardBatchResult } from "./shard-batch-result.ts";

export function recordShardBatch(metrics: WorkerMetrics, result: ShardBatchResult): void {
  const now = Date.now();
  metrics.sqlStatements.inc(result.statements);
  metrics.duplicates.inc(result.redelivered);
  for (const { message, status } of result.applied) {
    metrics.applied.inc({ kind: message.kind, status });
    metrics.endToEndSeconds.observe((now - message.createdAt) / 1000);
    if (message.kind === "order" && status === "failed") metrics.ordersEnded.inc({ status: "failed" });
  }
  metrics.orderSqlStatements.inc(result.orders.statements);
  metrics.ordersPaid.inc(result.orders.paid);
  for (const { status } of result.orders.endedNow) metrics.ordersEnded.inc({ status });
}
