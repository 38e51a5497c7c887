// The token checks themselves, without a server: what Floodgate mints verifies, and every way of bending a
// token (its header, claims or signature) is refused, through the fast path of our own tokens as through jose.
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { CustomerTokenError, CustomerTokenSigner, CustomerTokenVerifier } from "../src/index.ts";

const SECRET = "s".repeat(40);
const signer = new CustomerTokenSigner(SECRET);
const verifier = () => new CustomerTokenVerifier({ secret: SECRET, shop: null });
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

async function refusal(token: string, now?: number): Promise<CustomerTokenError> {
  const error = await verifier()
    .verify(token, now)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(CustomerTokenError);
  return error as CustomerTokenError;
}

describe("Floodgate's customer tokens", () => {
  it("verify to their subject and expiry, every time they are sent", async () => {
    const minted = await signer.mint("alice", 600);
    const check = verifier();
    const first = await check.verify(minted.token);
    expect(first).toEqual({ kind: "customer", userId: "alice", expiresAt: minted.expiresAt.getTime() });
    expect(await check.verify(minted.token)).toEqual(first);
  });

  it("once remembered, still refuse any other bytes: a changed signature or claim is checked in full", async () => {
    const minted = await signer.mint("alice", 600);
    const check = verifier();
    await check.verify(minted.token);
    const [header, claims, signature] = minted.token.split(".") as [string, string, string];
    // The second-to-last character is replaced by another (it carries 6 data bits; the last one has padding bits).
    const flipped = `${signature.slice(0, -2)}${signature.at(-2) === "A" ? "B" : "A"}${signature.at(-1)}`;
    await expect(check.verify(`${header}.${claims}.${flipped}`)).rejects.toMatchObject({ reason: "invalid" });
    const asBob = part({ ...JSON.parse(Buffer.from(claims, "base64url").toString()), sub: "bob" });
    await expect(check.verify(`${header}.${asBob}.${signature}`)).rejects.toMatchObject({
      reason: "invalid",
    });
  });

  it("are read in one spelling only: a signature with characters outside base64url, padding or stray bits is refused", async () => {
    const minted = await signer.mint("alice", 600);
    const check = verifier();
    await check.verify(minted.token);
    const [header, claims, signature] = minted.token.split(".") as [string, string, string];
    // Node's base64url decoder skips what is not in the alphabet, so each of these decodes to the same 32
    // bytes; accepted, one token would be endless distinct strings, each a miss of the verified-token cache.
    // 43 characters carry 258 bits for 256: the last one's two low bits are unused, and setting one changes
    // the text but not the bytes.
    const strayBits = BASE64URL[BASE64URL.indexOf(signature.at(-1)!) + 1];
    for (const respelled of [
      `${signature.slice(0, 10)}!${signature.slice(10)}`,
      `${signature}*~`,
      `${signature}=`,
      `${signature.slice(0, -1)}${strayBits}`,
    ]) {
      expect(Buffer.from(respelled, "base64url")).toEqual(Buffer.from(signature, "base64url"));
      await expect(check.verify(`${header}.${claims}.${respelled}`), respelled).rejects.toMatchObject({
        reason: "invalid",
      });
    }
    expect(check.rememberedTokens).toBe(1);
  });

  it("remember at most cacheSize tokens, and none with 0, with the same answers", async () => {
    const tokens = await Promise.all(["a", "b", "c"].map((user) => signer.mint(user, 600)));
    for (const cacheSize of [0, 2]) {
      const check = new CustomerTokenVerifier({ secret: SECRET, shop: null, cacheSize });
      for (const round of [1, 2]) {
        for (const minted of tokens) {
          expect((await check.verify(minted.token)).userId, `round ${round}`).toBe(minted.userId);
        }
      }
      expect(check.rememberedTokens).toBe(cacheSize);
    }
  });

  it("are refused once expired, also after they were accepted", async () => {
    const minted = await signer.mint("alice", 60);
    expect((await refusal(minted.token, minted.expiresAt.getTime() + 1)).reason).toBe("expired");
    const check = verifier();
    await check.verify(minted.token);
    await expect(check.verify(minted.token, minted.expiresAt.getTime())).rejects.toMatchObject({
      reason: "expired",
    });
  });

  it("are refused when any part is changed", async () => {
    const { token } = await signer.mint("alice", 600);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const forgedPayload = part({ ...claims, sub: "mallory" });
    expect((await refusal(`${header}.${forgedPayload}.${signature}`)).reason).toBe("invalid");
    expect((await refusal(`${part({ alg: "none", typ: "JWT" })}.${payload}.`)).reason).toBe("invalid");
    expect((await refusal(`${part({ alg: "HS512", typ: "JWT" })}.${payload}.${signature}`)).reason).toBe(
      "invalid",
    );
    expect((await refusal(`${header}.${payload}.${signature.slice(0, -2)}AA`)).reason).toBe("invalid");
    expect((await refusal(`${header}.${payload}`)).reason).toBe("invalid");
  });

  it("are refused for another audience, without a subject or expiry, or signed with another key", async () => {
    const key = new TextEncoder().encode(SECRET);
    const base = () =>
      new SignJWT({}).setProtectedHeader({ alg: "HS256", typ: "JWT" }).setIssuer("floodgate");
    const wrongAudience = await base()
      .setAudience("other")
      .setSubject("alice")
      .setExpirationTime("5m")
      .sign(key);
    const noSubject = await base().setAudience("floodgate:customer").setExpirationTime("5m").sign(key);
    const noExpiry = await base().setAudience("floodgate:customer").setSubject("alice").sign(key);
    const otherKey = await base()
      .setAudience("floodgate:customer")
      .setSubject("alice")
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode("x".repeat(40)));
    const badSubject = await base()
      .setAudience("floodgate:customer")
      .setSubject("a b")
      .setExpirationTime("5m")
      .sign(key);
    for (const token of [wrongAudience, noSubject, noExpiry, otherKey, badSubject]) {
      expect((await refusal(token)).reason).toBe("invalid");
    }
  });

  it("from an issuer that is not configured are refused, and a shop's own are verified by jose", async () => {
    const shopSecret = "shop".repeat(10);
    const shopToken = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("https://shop.example")
      .setAudience("floodgate")
      .setSubject("bob")
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(shopSecret));
    expect((await refusal(shopToken)).reason).toBe("invalid");
    const withShop = new CustomerTokenVerifier({
      secret: SECRET,
      shop: {
        secret: shopSecret,
        issuer: "https://shop.example",
        audience: "floodgate",
        algorithms: ["HS256"],
      },
    });
    expect((await withShop.verify(shopToken)).userId).toBe("bob");
    // jose reads a padded signature as the unpadded one: the shop's tokens too have one spelling only.
    for (const respelled of [`${shopToken}=`, `${shopToken}*~`]) {
      await expect(withShop.verify(respelled), respelled).rejects.toMatchObject({ reason: "invalid" });
    }
  });
});
