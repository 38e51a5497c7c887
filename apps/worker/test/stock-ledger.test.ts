// The global stock moves exactly once per (order, product, direction), whatever is redelivered or listed
// twice, and never below zero.
import { createKysely, type GlobalDatabase } from "@floodgate/db";
import { newOperationId, newProductId } from "@floodgate/domain";
import { createTestEnvironment, type TestEnvironment } from "@floodgate/test-fixtures";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { moveStock } from "../src/orders/stock-ledger.ts";

let env: TestEnvironment;
let db: Kysely<GlobalDatabase>;

beforeAll(async () => {
  env = await createTestEnvironment("stock-ledger", { shards: 1 });
  db = createKysely<GlobalDatabase>(env.config.databaseUrl, { max: 1 });
});

afterAll(async () => {
  await db?.destroy();
  await env?.cleanup();
});

async function product(stock: number) {
  const id = newProductId();
  await db.insertInto("products").values({ id, name: "p", price: 100, stock, received: stock }).execute();
  return id;
}
const stockOf = async (id: string) =>
  Number(
    (await db.selectFrom("products").select("stock").where("id", "=", id).executeTakeFirstOrThrow()).stock,
  );
const orderId = () => newOperationId("order", 3);

describe("moveStock", () => {
  it("reserves an order's lines once, summing a product named on two lines, however often it is replayed", async () => {
    const a = await product(10);
    const b = await product(10);
    const order = {
      orderId: orderId(),
      items: [
        { productId: a, quantity: 2 },
        { productId: b, quantity: 1 },
        { productId: a, quantity: 3 },
      ],
    };
    expect(await moveStock(db, "reserve", [order, order])).toBe(6);
    expect(await moveStock(db, "reserve", [order])).toBe(0);
    expect([await stockOf(a), await stockOf(b)]).toEqual([5, 9]);
  });

  it("releases once, and only what was reserved", async () => {
    const a = await product(10);
    const reserved = { orderId: orderId(), items: [{ productId: a, quantity: 4 }] };
    const never = { orderId: orderId(), items: [{ productId: a, quantity: 7 }] };
    await moveStock(db, "reserve", [reserved]);
    expect(await moveStock(db, "release", [reserved, reserved, never])).toBe(4);
    expect(await moveStock(db, "release", [reserved])).toBe(0);
    expect(await stockOf(a)).toBe(10);
  });

  it("refuses, as a whole, a reservation that would take a product below zero", async () => {
    const a = await product(3);
    const b = await product(3);
    const fits = { orderId: orderId(), items: [{ productId: b, quantity: 1 }] };
    const tooMany = { orderId: orderId(), items: [{ productId: a, quantity: 4 }] };
    await expect(moveStock(db, "reserve", [fits, tooMany])).rejects.toThrow(/products_stock_check/);
    expect([await stockOf(a), await stockOf(b)]).toEqual([3, 3]);
    expect(
      await db
        .selectFrom("stock_movements")
        .selectAll()
        .where("order_id", "in", [fits.orderId, tooMany.orderId])
        .execute(),
    ).toEqual([]);
  });
});
