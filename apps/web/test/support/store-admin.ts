// What the tests do as the operator and as the crowd, straight over HTTP (never through the page under test):
// put products on sale, define rooms, fill a queue with other shoppers.

/** The intake's ADMIN_API_KEY in these tests. */
export const ADMIN_API_KEY = "demo-store-tests-admin-key";

const adminHeaders = { authorization: `Bearer ${ADMIN_API_KEY}`, "content-type": "application/json" };

async function expectStatus(response: Response, statuses: number[], what: string): Promise<void> {
  if (!statuses.includes(response.status)) {
    throw new Error(`${what}: ${response.status} ${await response.text()}`);
  }
}

export async function createProduct(
  baseUrl: string,
  product: { name: string; price: number; stock: number },
): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/products`, {
    method: "POST",
    headers: adminHeaders,
    body: JSON.stringify(product),
  });
  await expectStatus(response, [201], `create ${product.name}`);
  return ((await response.json()) as { id: string }).id;
}

export async function putRoom(
  baseUrl: string,
  roomId: string,
  room: {
    mode: "on" | "off";
    admitPerSecond: number;
    guards?: string[];
    /** A room selling products guards the orders naming them and tells its queue the units left. */
    products?: string[];
    startsAt?: string | null;
  },
): Promise<void> {
  const response = await fetch(`${baseUrl}/v1/rooms/${roomId}`, {
    method: "PUT",
    headers: adminHeaders,
    body: JSON.stringify({ sessionSeconds: 120, ...room }),
  });
  await expectStatus(response, [200, 201], `PUT room ${roomId}`);
}

/** Other shoppers take their places first (a few joins at a time: their order among them does not matter),
 * joined by the shop's server naming each. */
export async function joinAhead(
  baseUrl: string,
  serverKey: string,
  roomId: string,
  userIds: string[],
): Promise<void> {
  const batch = 20;
  for (let i = 0; i < userIds.length; i += batch) {
    await Promise.all(
      userIds.slice(i, i + batch).map(async (userId) => {
        const response = await fetch(`${baseUrl}/v1/rooms/${roomId}/tickets`, {
          method: "POST",
          headers: { authorization: `Bearer ${serverKey}`, "content-type": "application/json" },
          body: JSON.stringify({ userId }),
        });
        await expectStatus(response, [201], `join of ${userId}`);
      }),
    );
  }
}

/** Another shopper, bought through the shop's server: joins the room, waits for its admission, orders `quantity`
 * units of the product with the admission token, funds the wallet and pays. Resolves once the payment succeeded. */
export async function buyThroughRoom(
  baseUrl: string,
  serverKey: string,
  sale: { roomId: string; productId: string; price: number; quantity: number; userId: string },
  /** Called once admitted, before ordering: the test lines others up behind this shopper. */
  onAdmitted: () => Promise<void> = async () => {},
): Promise<void> {
  const { roomId, productId, price, quantity, userId } = sale;
  const call = async (method: string, path: string, body?: object, headers: Record<string, string> = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${serverKey}`,
        ...(body ? { "content-type": "application/json", "idempotency-key": crypto.randomUUID() } : {}),
        ...headers,
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const until = async <T>(what: string, read: () => Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 300; i++) {
      const value = await read();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${userId}: no ${what} after 30 s`);
  };
  const joined = await call("POST", `/v1/rooms/${roomId}/tickets`, { userId });
  if (joined.status !== 201)
    throw new Error(`join of ${userId}: ${joined.status} ${JSON.stringify(joined.body)}`);
  const token = await until("admission", async () => {
    const ticket = await call("GET", `/v1/rooms/${roomId}/tickets/${joined.body.ticketId}`);
    return ticket.body.status === "admitted" ? String(ticket.body.admissionToken) : undefined;
  });
  await onAdmitted();
  const placed = await call(
    "POST",
    "/v1/orders",
    { userId, items: [{ productId, quantity }] },
    { "admission-token": token },
  );
  if (placed.status !== 202)
    throw new Error(`order of ${userId}: ${placed.status} ${JSON.stringify(placed.body)}`);
  const orderId = String(placed.body.id);
  await until("order awaiting payment", async () => {
    const order = await call("GET", `/v1/orders/${orderId}`);
    return order.body.status === "awaiting_payment" ? order : undefined;
  });
  const amount = price * quantity;
  const deposit = await call("POST", `/v1/wallets/${userId}/deposits`, { amount });
  if (deposit.status !== 202) throw new Error(`deposit for ${userId}: ${deposit.status}`);
  await until("deposit", async () => {
    const view = await call("GET", `/v1/deposits/${deposit.body.id}`);
    return view.body.status === "succeeded" ? view : undefined;
  });
  const payment = await call("POST", "/v1/payments", { userId, amount, orderId });
  if (payment.status !== 202) throw new Error(`payment of ${userId}: ${payment.status}`);
  await until("payment", async () => {
    const view = await call("GET", `/v1/payments/${payment.body.id}`);
    return view.body.status === "succeeded" ? view : undefined;
  });
}
