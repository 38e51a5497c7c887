// Signing in to the demo store: the demo-only route POST /demo/login (start --demo, loopback only) plays
// the shop's server and mints a customer token for the shopper id picked. The token lives in memory only (gone
// with the tab); the SDK gets it through getToken() and asks again only when it expired, which signs the same
// shopper in again. Funding goes through the demo's server-side deposit, never a server key in the browser.

/**
 * @typedef {object} DemoSession
 * @property {string} userId
 * @property {() => Promise<string>} getToken  what the SDK asks: the token, then a fresh one once it expired
 * @property {(amount: number) => Promise<{ id: string; status: string }>} fund  deposits into this shopper's
 *   own wallet (server-side) and resolves once the deposit is final
 * @property {(orderId: string) => Promise<{ refundId: string; order: { id: string; status: string } }>} refund
 *   refunds this shopper's paid order in full with its units restocked (server-side) and resolves once the
 *   order reads refunded
 */

const FUNDING_POLL_MS = 250;
const FUNDING_TIMEOUT_MS = 60_000;

/** @param {Response} response */
async function problemOf(response) {
  const body = await response.json().catch(() => null);
  return { code: body?.code ?? `http_${response.status}`, detail: body?.detail ?? response.statusText };
}

/** @param {string} userId @returns {Promise<{ token: string; userId: string; expiresAt: string }>} */
async function login(userId) {
  const response = await fetch("/demo/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ userId }),
  });
  if (response.status !== 201) {
    const problem = await problemOf(response);
    const hint = response.status === 404 ? " (run ./floodgate start --demo)" : "";
    throw new Error(`sign-in refused: ${problem.detail}${hint}`);
  }
  return response.json();
}

/** @param {string} userId @returns {Promise<DemoSession>} */
export async function signIn(userId) {
  const session = await login(userId);
  let token = session.token;
  let handedOut = false;
  const getToken = async () => {
    // The first ask gets the token signed in with; any later one means it expired: sign in again.
    if (handedOut) token = (await login(session.userId)).token;
    handedOut = true;
    return token;
  };

  /** @param {string} path @param {RequestInit} [init] */
  const call = async (path, init = {}) => {
    const send = () =>
      fetch(path, { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } });
    const response = await send();
    if (response.status !== 401 || (await problemOf(response.clone())).code !== "token_expired")
      return response;
    token = (await login(session.userId)).token;
    return send();
  };

  /** @param {number} amount */
  const fund = async (amount) => {
    const accepted = await call("/demo/deposits", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount }),
    });
    if (accepted.status !== 202) throw new Error(`deposit refused: ${(await problemOf(accepted)).detail}`);
    const { id } = await accepted.json();
    const deadline = Date.now() + FUNDING_TIMEOUT_MS;
    for (;;) {
      const read = await call(`/v1/deposits/${encodeURIComponent(id)}`);
      const deposit = read.ok ? await read.json() : null;
      if (deposit?.status === "succeeded") return deposit;
      if (deposit?.status === "failed") throw new Error(`deposit ${id} failed: ${deposit.failureReason}`);
      if (Date.now() > deadline) throw new Error(`deposit ${id} has no final status yet`);
      await new Promise((resolve) => setTimeout(resolve, FUNDING_POLL_MS));
    }
  };

  /** @param {string} orderId */
  const refund = async (orderId) => {
    const accepted = await call("/demo/refunds", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ orderId }),
    });
    if (accepted.status !== 202) throw new Error(`refund refused: ${(await problemOf(accepted)).detail}`);
    const { id } = await accepted.json();
    // A refund's own status is the shop server's to read; the shopper sees it on the order.
    const deadline = Date.now() + FUNDING_TIMEOUT_MS;
    for (;;) {
      const read = await call(`/v1/orders/${encodeURIComponent(orderId)}`);
      const order = read.ok ? await read.json() : null;
      if (order?.status === "refunded") return { refundId: id, order };
      if (Date.now() > deadline)
        throw new Error(`refund ${id}: order ${orderId} is ${order?.status ?? "unknown"}`);
      await new Promise((resolve) => setTimeout(resolve, FUNDING_POLL_MS));
    }
  };

  return { userId: session.userId, getToken, fund, refund };
}

/** A crowd shopper's token, for the admin strip's queue filler. @param {string} userId */
export async function crowdToken(userId) {
  return (await login(userId)).token;
}
