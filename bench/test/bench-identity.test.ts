// The shop's side of identity as the bench plays it: customer tokens minted through POST /v1/customer-sessions
// with the server key, a bounded number at a time, each user once; here against a small HTTP server that
// answers as the intake's route does.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { NO_IDENTITY, parseToken, runSecrets, TokenIdentity } from "../src/harness/bench-identity.ts";

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

interface SessionsServer {
  baseUrl: string;
  requests: { authorization: string | undefined; body: { userId: string; ttlSeconds?: number } }[];
  maxInFlight: number;
}

/** POST /v1/customer-sessions: 201 {token, userId, expiresAt} for the key `fg_sk_good`, else 401. */
async function sessionsServer(): Promise<SessionsServer> {
  const state: SessionsServer = { baseUrl: "", requests: [], maxInFlight: 0 };
  let inFlight = 0;
  const server = createServer((req, res) => {
    inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { userId: string; ttlSeconds?: number };
      state.requests.push({ authorization: req.headers.authorization, body });
      // Answered on a later turn, so requests overlap as they would against a real intake.
      setTimeout(() => {
        inFlight--;
        const ok = req.url === "/v1/customer-sessions" && req.headers.authorization === "Bearer fg_sk_good";
        res.writeHead(ok ? 201 : 401, { "content-type": "application/json" });
        res.end(
          JSON.stringify(
            ok
              ? { token: `tok-${body.userId}`, userId: body.userId, expiresAt: new Date().toISOString() }
              : { code: "unauthorized" },
          ),
        );
      }, 1);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

describe("TokenIdentity", () => {
  it("mints one token per user with the server key, at most 16 at a time, and gives each shopper its own", async () => {
    const server = await sessionsServer();
    const identity = new TokenIdentity(server.baseUrl, "fg_sk_good");
    const users = Array.from({ length: 100 }, (_, i) => `u-${i}`);
    const minted = await identity.addShoppers([...users, "u-0", "u-1"]);
    expect(minted.minted).toBe(100);
    expect(server.requests).toHaveLength(100);
    expect(new Set(server.requests.map((r) => r.body.userId)).size).toBe(100);
    expect(server.requests.every((r) => r.authorization === "Bearer fg_sk_good")).toBe(true);
    expect(server.requests.every((r) => r.body.ttlSeconds === 86_400)).toBe(true);
    expect(server.maxInFlight).toBeLessThanOrEqual(16);
    expect(identity.shopperHeaders("u-42")).toEqual({ authorization: "Bearer tok-u-42" });
    expect(identity.shopperToken("u-7")).toBe("tok-u-7");
    expect(identity.serverHeaders()).toEqual({ authorization: "Bearer fg_sk_good" });
  });

  it("mints nothing again for users who have a token", async () => {
    const server = await sessionsServer();
    const identity = new TokenIdentity(server.baseUrl, "fg_sk_good");
    await identity.addShoppers(["a", "b"]);
    expect((await identity.addShoppers(["b", "a", "c"])).minted).toBe(1);
    // "a" and "b" are minted concurrently, so they may arrive in either order; "c" only after both.
    expect(
      server.requests
        .slice(0, 2)
        .map((r) => r.body.userId)
        .sort(),
    ).toEqual(["a", "b"]);
    expect(server.requests.map((r) => r.body.userId).slice(2)).toEqual(["c"]);
  });

  it("fails with the answer when the intake refuses, and never sends a user without a token", async () => {
    const server = await sessionsServer();
    const identity = new TokenIdentity(server.baseUrl, "fg_sk_revoked");
    await expect(identity.addShoppers(["a"])).rejects.toThrow(/customer-sessions for a: 401 .*unauthorized/);
    expect(() => identity.shopperHeaders("a")).toThrow("no customer token was minted for a");
  });
});

describe("identity helpers", () => {
  it("AUTH=off carries no credentials", async () => {
    expect(NO_IDENTITY.serverHeaders()).toEqual({});
    expect(NO_IDENTITY.shopperHeaders("u")).toEqual({});
    expect(NO_IDENTITY.shopperToken("u")).toBeNull();
    expect(await NO_IDENTITY.addShoppers(["u"])).toEqual({ minted: 0, seconds: 0 });
  });

  it("makes new random secrets for every run", () => {
    const a = runSecrets();
    const b = runSecrets();
    expect(a.adminApiKey).not.toBe(b.adminApiKey);
    expect(a.customerTokenSecret).not.toBe(b.customerTokenSecret);
    expect(a.customerTokenSecret.length).toBeGreaterThanOrEqual(32);
  });

  it("reads a token only from a well-formed answer", () => {
    expect(parseToken('{"token":"abc","userId":"u"}')).toBe("abc");
    expect(parseToken('{"token":""}')).toBeNull();
    expect(parseToken("<html>")).toBeNull();
  });
});
