// Migrations are listed here, not discovered from disk, so the set is explicit and type-checked. Each file
// is dated and never imports application code.
import type { Migration } from "kysely";
import * as globalShardMap from "./global/2026-11-22-0001-shard-map.ts";
import * as globalCoupons from "./global/2026-11-22-0002-coupons.ts";
import * as globalProducts from "./global/2026-11-22-0003-products.ts";
import * as globalDeployment from "./global/2026-11-25-0001-deployment.ts";
import * as globalProductUnitCap from "./global/2026-11-25-0002-product-unit-cap.ts";
import * as globalApiKeys from "./global/2026-11-25-0003-api-keys.ts";
import * as globalWebhooks from "./global/2026-11-26-0101-webhooks.ts";
import * as globalShardMoves from "./global/2026-11-26-0301-shard-moves.ts";
import * as globalWebhookSignatureSchemes from "./global/2026-11-28-0101-webhook-signature-schemes.ts";
import * as globalAdmissionSigningKeys from "./global/2026-11-28-0301-admission-signing-keys.ts";
import * as shardWalletsPaymentsDeposits from "./shard/2026-11-22-0001-wallets-payments-deposits.ts";
import * as shardIssuedCoupons from "./shard/2026-11-22-0002-issued-coupons.ts";
import * as shardOrders from "./shard/2026-11-22-0003-orders.ts";
import * as shardIdentity from "./shard/2026-11-25-0001-shard-identity.ts";
import * as shardWebhookOutbox from "./shard/2026-11-26-0101-webhook-outbox.ts";
import * as shardRefunds from "./shard/2026-11-26-0201-refunds.ts";
import * as shardMovedBuckets from "./shard/2026-11-26-0301-moved-buckets.ts";
import * as shardOrdersListingIndex from "./shard/2026-11-28-0101-orders-listing-index.ts";
import * as shardProviderPayments from "./shard/2026-11-28-0201-provider-payments.ts";
import * as shardEvents from "./shard/2026-11-28-0301-events.ts";
import * as shardOrderSessions from "./shard/2026-11-29-0101-order-sessions.ts";

export const globalMigrations: Record<string, Migration> = {
  "2026-11-22-0001-shard-map": globalShardMap,
  "2026-11-22-0002-coupons": globalCoupons,
  "2026-11-22-0003-products": globalProducts,
  "2026-11-25-0001-deployment": globalDeployment,
  "2026-11-25-0002-product-unit-cap": globalProductUnitCap,
  "2026-11-25-0003-api-keys": globalApiKeys,
  "2026-11-26-0101-webhooks": globalWebhooks,
  "2026-11-26-0301-shard-moves": globalShardMoves,
  "2026-11-28-0101-webhook-signature-schemes": globalWebhookSignatureSchemes,
  "2026-11-28-0301-admission-signing-keys": globalAdmissionSigningKeys,
};

export const shardMigrations: Record<string, Migration> = {
  "2026-11-22-0001-wallets-payments-deposits": shardWalletsPaymentsDeposits,
  "2026-11-22-0002-issued-coupons": shardIssuedCoupons,
  "2026-11-22-0003-orders": shardOrders,
  "2026-11-25-0001-shard-identity": shardIdentity,
  "2026-11-26-0101-webhook-outbox": shardWebhookOutbox,
  "2026-11-26-0301-moved-buckets": shardMovedBuckets,
  "2026-11-26-0201-refunds": shardRefunds,
  "2026-11-28-0101-orders-listing-index": shardOrdersListingIndex,
  "2026-11-28-0201-provider-payments": shardProviderPayments,
  "2026-11-28-0301-events": shardEvents,
  "2026-11-29-0101-order-sessions": shardOrderSessions,
};
