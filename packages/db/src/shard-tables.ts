// Row types of a shard database and the global one. Tables are plainly named (wallets, payments, deposits) so operators can
// query them with psql.
import type { StoredOrderStatus, WebhookSignatureScheme } from "@floodgate/domain";
import type { ColumnType, Generated } from "kysely";

type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp the database fills in by default. */
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface WalletsTable {
  user_id: string;
  balance: number;
  updated_at: DefaultedTimestamp;
}

export interface OperationsTable {
  id: string;
  user_id: string;
  amount: number;
  currency: string;
  status: "succeeded" | "failed";
  failure_reason: string | null;
  created_at: Timestamp;
  completed_at: DefaultedTimestamp;
}

export interface PaymentsTable extends OperationsTable {
  order_id: string | null;
  /** Given back so far by refunds (<= amount). */
  refunded: ColumnType<number, number | undefined, number>;
}

export interface RefundsTable {
  id: string;
  payment_id: string;
  user_id: string | null;
  amount: number | null;
  currency: string;
  reason: string | null;
  restock: boolean;
  status: "succeeded" | "failed";
  failure_reason: string | null;
  created_at: Timestamp;
  completed_at: DefaultedTimestamp;
}

export interface IssuedCouponsTable {
  id: string;
  coupon_id: string;
  user_id: string;
  status: "issued" | "used";
  used_at: Date | null;
  /** The order that redeemed it (set with status 'used'). */
  order_id: string | null;
  created_at: Timestamp;
  completed_at: DefaultedTimestamp;
}

export interface OrdersTable {
  id: string;
  user_id: string;
  status: StoredOrderStatus;
  failure_reason: string | null;
  amount: number;
  discount: number;
  currency: string;
  coupon_issue_id: string | null;
  payment_id: string | null;
  /** Set when a provider payment paid the order (payment_id is then its `ppy_` id). */
  provider: ColumnType<string | null, string | null | undefined, string | null>;
  provider_reference: ColumnType<string | null, string | null | undefined, string | null>;
  /** A refund returned its units to stock. */
  restocked: ColumnType<boolean, boolean | undefined, boolean>;
  /** The waiting-room session the order was accepted with; null without one. */
  session_room_id: ColumnType<string | null, string | null | undefined, string | null>;
  session_ticket_id: ColumnType<string | null, string | null | undefined, string | null>;
  expires_at: Timestamp;
  created_at: Timestamp;
  completed_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

/**
 * Money a shop took at its own payment provider for an order (no wallet): on the order's shard. The first row of
 * a (provider, reference) is the charge's payment; later ones are its duplicates (unique index on the first).
 */
export interface ProviderPaymentsTable {
  id: string;
  order_id: string;
  /** The order's user; null when the order was not on the shard. */
  user_id: string | null;
  provider: string;
  reference: string;
  amount: number;
  currency: string;
  status: "succeeded" | "failed";
  failure_reason: string | null;
  /** The first payment of the same (provider, reference): this one repeated it (null: this is the first). */
  duplicate_of: string | null;
  created_at: Timestamp;
  completed_at: DefaultedTimestamp;
}

export interface OrderItemsTable {
  order_id: string;
  line: number;
  product_id: string;
  quantity: number;
  unit_price: number;
}

export interface ShardDatabase {
  wallets: WalletsTable;
  payments: PaymentsTable;
  provider_payments: ProviderPaymentsTable;
  refunds: RefundsTable;
  deposits: OperationsTable;
  issued_coupons: IssuedCouponsTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  shard_identity: ShardIdentityTable;
  webhook_outbox: WebhookOutboxTable;
  events: EventsTable;
  moved_buckets: MovedBucketsTable;
}

/** A bucket moved away from this shard (the fence, see the mover). */
export interface MovedBucketsTable {
  bucket: number;
  to_shard: number;
  moved_at: DefaultedTimestamp;
}

/** The events feed (GET /v1/events): every event, kept EVENT_RETENTION_DAYS (migration 2026-11-28-0101). */
export interface EventsTable {
  event_id: string;
  /** bigint: pg returns it as a string. */
  position: ColumnType<string, never, never>;
  /** xid8 of the writing transaction, as a string. */
  xid: ColumnType<string, never, never>;
  event_type: string;
  operation_id: string;
  data: unknown;
  created_at: DefaultedTimestamp;
}

/** One row: which shard of which deployment this database is (see check-shard-identity.ts). */
/** An event waiting for the relay (written in the transaction that made its operation final). */
export interface WebhookOutboxTable {
  event_id: string;
  event_type: string;
  operation_id: string;
  data: unknown;
  created_at: DefaultedTimestamp;
}

export interface ShardIdentityTable {
  one_row: ColumnType<boolean, boolean | undefined, never>;
  deployment_id: string;
  shard: number;
  recorded_at: DefaultedTimestamp;
}

/** One row: the deployment's id, made by the global migration. */
export interface DeploymentTable {
  one_row: ColumnType<boolean, boolean | undefined, never>;
  id: string;
  created_at: DefaultedTimestamp;
}

export interface ShardMapTable {
  from_bucket: number;
  to_bucket: number;
  shard: number;
}

export interface CouponsTable {
  id: string;
  name: string;
  quantity: number;
  starts_at: Date | null;
  ends_at: Date | null;
  discount_type: "fixed" | "percent";
  discount_value: number;
  created_at: DefaultedTimestamp;
}

export interface ProductsTable {
  id: string;
  name: string;
  price: number;
  stock: number;
  received: number;
  /** Null: the deployment's MAX_UNITS_PER_USER. */
  max_units_per_user: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface StockMovementsTable {
  order_id: string;
  product_id: string;
  direction: "reserve" | "release";
  quantity: number;
  created_at: DefaultedTimestamp;
}

/** A shop's server key: only its SHA-256 is stored. */
export interface ApiKeysTable {
  id: string;
  name: string;
  key_hash: Buffer;
  created_at: DefaultedTimestamp;
  revoked_at: Date | null;
}

/** A shop's webhook endpoint; `secret` is the HMAC key its deliveries are signed with (stored as is). */
export interface WebhookEndpointsTable {
  id: string;
  url: string;
  events: string[];
  secret: string;
  enabled: Generated<boolean>;
  /** New rows get 'standard-webhooks'; rows older than the column, 'floodgate-signature'. */
  signature_scheme: ColumnType<
    WebhookSignatureScheme,
    WebhookSignatureScheme | undefined,
    WebhookSignatureScheme
  >;
  /** The secret the last rotation replaced: it signs too until secret_rotated_at + 24 h. */
  previous_secret: string | null;
  secret_rotated_at: Date | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

/** One event for one endpoint, with its attempts so far. */
export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  gave_up_at: Date | null;
  redeliver_requested_at: Date | null;
  created_at: DefaultedTimestamp;
}

export interface ShardMapVersionTable {
  one_row: ColumnType<boolean, boolean | undefined, never>;
  /** bigint: read as a string by pg. */
  version: ColumnType<string, string | number | undefined, string | number>;
}

export interface ShardMovesTable {
  bucket: number;
  from_shard: number;
  to_shard: number;
  phase: "paused" | "switched";
  started_at: DefaultedTimestamp;
}

export interface GlobalDatabase {
  deployment: DeploymentTable;
  shard_map: ShardMapTable;
  api_keys: ApiKeysTable;
  coupons: CouponsTable;
  products: ProductsTable;
  stock_movements: StockMovementsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  shard_map_version: ShardMapVersionTable;
  shard_moves: ShardMovesTable;
  admission_signing_keys: AdmissionSigningKeysTable;
}

export interface AdmissionSigningKeysTable {
  generation: number;
  kid: string;
  /** A JWK with its private part (`d`): never sent anywhere. */
  private_jwk: Record<string, string>;
  created_at: Generated<Date>;
  signs_from: Generated<Date>;
  superseded_at: Date | null;
}
