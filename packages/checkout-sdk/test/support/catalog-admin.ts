// The operator's side of a sale, straight over HTTP: the products and coupons the tests buy and claim.
import { ADMIN_API_KEY } from "./room-admin.ts";

async function create(baseUrl: string, path: string, body: object): Promise<string> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

export const createProduct = (baseUrl: string, price: number, stock: number) =>
  create(baseUrl, "/v1/products", { name: `product of ${stock}`, price, stock });

export const createCoupon = (baseUrl: string, quantity: number) =>
  create(baseUrl, "/v1/coupons", {
    name: `drop of ${quantity}`,
    quantity,
    discount: { type: "percent", value: 10 },
  });
