// What a shop's server does for its pages, straight over HTTP: mint a shopper's customer token with its server
// key (POST /v1/customer-sessions), the token a page's getToken() hands the SDK.

export interface CustomerSession {
  token: string;
  userId: string;
  expiresAt: string;
}

export async function mintCustomerToken(
  baseUrl: string,
  serverKey: string,
  userId: string,
  ttlSeconds?: number,
): Promise<CustomerSession> {
  const response = await fetch(`${baseUrl}/v1/customer-sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${serverKey}`, "content-type": "application/json" },
    body: JSON.stringify(ttlSeconds === undefined ? { userId } : { userId, ttlSeconds }),
  });
  if (response.status !== 201)
    throw new Error(`customer session of ${userId}: ${response.status} ${await response.text()}`);
  return (await response.json()) as CustomerSession;
}

/** A getToken() that mints a fresh token for `userId` each time it is asked, counting the asks. */
export function shopperTokens(baseUrl: string, serverKey: string, userId: string) {
  const minted: string[] = [];
  return {
    minted,
    getToken: async () => {
      const { token } = await mintCustomerToken(baseUrl, serverKey, userId);
      minted.push(token);
      return token;
    },
  };
}
