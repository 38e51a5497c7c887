// Row types of a shard database and the global one. Tables are plainly named (wallets, payments, deposits) so operators can
// query them with psql.
import type { ColumnType } from "kysely";

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
}

export interface IssuedCouponsTable {
  id: string;
  coupon_id: string;
  user_id: string;
  status: "issued" | "used";
  used_at: Date | null;
  created_at: Timestamp;
  completed_at: DefaultedTimestamp;
}

export interface ShardDatabase {
  wallets: WalletsTable;
  payments: PaymentsTable;
  deposits: OperationsTable;
  issued_coupons: IssuedCouponsTable;
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

export interface GlobalDatabase {
  shard_map: ShardMapTable;
  coupons: CouponsTable;
}
