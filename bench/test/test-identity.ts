// A BenchIdentity with known tokens (`token-of-<userId>`), for tests of the request builders: what matters there
// is which credentials each request carries, not how they were minted (bench-identity.test.ts covers that).
import type { BenchIdentity } from "../src/harness/bench-identity.ts";

export const knownTokens: BenchIdentity = {
  auth: "on",
  serverHeaders: () => ({ authorization: "Bearer fg_sk_test" }),
  shopperHeaders: (userId) => ({ authorization: `Bearer token-of-${userId}` }),
  shopperToken: (userId) => `token-of-${userId}`,
  addShoppers: async () => ({ minted: 0, seconds: 0 }),
};
