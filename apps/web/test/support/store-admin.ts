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
