export { type BucketRange, checkShardMap } from "./check-shard-map.ts";
export { createKysely, createPool, type PoolOptions } from "./create-database.ts";
export { dropDatabases, ensureDatabases } from "./ensure-databases.ts";
export { migrateAll } from "./migrate.ts";
export { redactUrl } from "./redact-url.ts";
export type {
  ApiKeysTable,
  CouponsTable,
  GlobalDatabase,
  IssuedCouponsTable,
  OperationsTable,
  OrderItemsTable,
  OrdersTable,
  PaymentsTable,
  ProductsTable,
  ShardDatabase,
  StockMovementsTable,
  StoredOrderStatus,
  WalletsTable,
} from "./shard-tables.ts";
export { auditHolds, auditProducts, type ProductAudit } from "./stock-audit.ts";
