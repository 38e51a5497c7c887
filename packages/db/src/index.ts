export {
  type CheckShardIdentitiesOptions,
  checkShardIdentities,
  readDeploymentId,
  readShardIdentity,
  type ShardIdentity,
  ShardIdentityError,
  shardIdentityCheck,
} from "./check-shard-identity.ts";
export { type BucketRange, checkShardMap } from "./check-shard-map.ts";
export {
  createKysely,
  createPool,
  DEFAULT_POSTGRES_TIMEOUTS,
  type KyselyOptions,
  type PoolOptions,
  type PostgresTimeouts,
} from "./create-database.ts";
export { dropDatabases, ensureDatabases } from "./ensure-databases.ts";
export { migrateAll } from "./migrate.ts";
export { redactUrl } from "./redact-url.ts";
export {
  BUCKET_LOCK_SPACE,
  bumpShardMapVersion,
  type RecordedShardMap,
  readShardMap,
  readShardMapVersion,
  ShardMapError,
  writeShardMap,
} from "./shard-map-store.ts";
export { SHARD_MAP_POLL_MS, ShardMapWatch, type ShardMapWatchOptions } from "./shard-map-watch.ts";
export type {
  AdmissionSigningKeysTable,
  ApiKeysTable,
  CouponsTable,
  DeploymentTable,
  GlobalDatabase,
  IssuedCouponsTable,
  MovedBucketsTable,
  OperationsTable,
  OrderItemsTable,
  OrdersTable,
  PaymentsTable,
  ProductsTable,
  ProviderPaymentsTable,
  ShardDatabase,
  ShardIdentityTable,
  ShardMovesTable,
  StockMovementsTable,
  WalletsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookOutboxTable,
} from "./shard-tables.ts";
export { auditHolds, auditProducts, type ProductAudit } from "./stock-audit.ts";
export {
  isPostgresInfrastructureCode,
  NODE_SOCKET_CODES,
  type Store,
  StoreUnavailableError,
  storeUnavailable,
} from "./store-unavailable-error.ts";
