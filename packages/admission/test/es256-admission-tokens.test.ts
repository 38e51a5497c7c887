// ES256 admission tokens: what one process signs, another holding the key verifies; the key comes from the
// process's list by the header's exact bytes, never from the token; verified tokens are remembered, and a
// remembered one still expires.
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type AdmissionClaims, Es256AdmissionTokens } from "../src/index.ts";

const claims = {
  roomId: "drop-1",
  ticketId: "tkt_01M8000000AAAAAAAAAAAAAAAA",
  userId: "alice",
  admittedAt: Date.parse("2026-11-22T10:00:00Z"),
  expiresAt: Date.parse("2026-11-22T10:05:00Z"),
};
const during = Date.parse("2026-11-22T10:01:00Z");
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

function newKey(kid: string, signsFrom = 0) {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { kid, privateJwk: privateKey.export({ format: "jwk" }), signsFrom };
}

class CountingCache {
  readonly entries = new Map<string, AdmissionClaims>();
  sets = 0;
  get(token: string) {
    return this.entries.get(token);
  }
  set(token: string, verified: AdmissionClaims) {
    this.sets++;
    this.entries.set(token, verified);
  }
}

describe("ES256 admission tokens", () => {
  const key = newKey("k1");

  it("verify on another instance holding the key, giving back the claims; not with another key", () => {
    const token = new Es256AdmissionTokens({ keys: [key] }).issue(claims);
    expect(JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString())).toEqual({
      alg: "ES256",
      typ: "JWT",
      kid: "k1",
    });
    expect(new Es256AdmissionTokens({ keys: [key] }).verify(token, during)).toEqual({ ok: true, claims });
    const impostor = new Es256AdmissionTokens({ keys: [newKey("k1")] });
    expect(impostor.verify(token, during)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("refuse a changed payload, alg none, an HS256 header and a non-canonical signature", () => {
    const tokens = new Es256AdmissionTokens({ keys: [key] });
    const [header, payload, signature] = tokens.issue(claims).split(".");
    const forged = b64({ iss: "floodgate", sub: "mallory", room: "drop-1", tkt: "t", iat: 0, exp: 9e9 });
    expect(tokens.verify(`${header}.${forged}.${signature}`, during)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(tokens.verify(`${b64({ alg: "none", kid: "k1" })}.${payload}.`, during)).toEqual({
      ok: false,
      reason: "malformed",
    });
    expect(tokens.verify(`${b64({ alg: "HS256", typ: "JWT" })}.${payload}.${signature}`, during)).toEqual({
      ok: false,
      reason: "malformed",
    });
    expect(tokens.verify(`${header}.${payload}.${signature}=`, during)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
  });

  it("read the claims of a token shaped as theirs without its signature, and refuse any other shape", () => {
    const tokens = new Es256AdmissionTokens({ keys: [key] });
    const token = new Es256AdmissionTokens({ keys: [key] }).issue(claims);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    // The signature is the gate's digest check's business (the pass), not read()'s: any canonical 64 bytes do.
    const otherSignature = Buffer.alloc(64, 7).toString("base64url");
    expect(tokens.read(`${header}.${payload}.${otherSignature}`, during)).toEqual({ ok: true, claims });
    const refusals: [string, string][] = [
      // Not our header's bytes: an ES256 header naming a kid is taken for a key not held (as verify() says).
      [`${b64({ alg: "ES256", typ: "JWT", kid: "k1", x: 1 })}.${payload}.${signature}`, "bad_signature"],
      [`${b64({ alg: "HS256", typ: "JWT" })}.${payload}.${signature}`, "malformed"],
      [`${header}.${payload}=.${signature}`, "malformed"],
      [`${header}.${payload}.${signature}=`, "bad_signature"],
      [`${header}.${payload}.${signature.slice(0, -4)}`, "bad_signature"],
      [`${header}.${b64({ iss: "floodgate", sub: "x".repeat(2000) })}.${signature}`, "malformed"],
      [`${header}.${payload}`, "malformed"],
    ];
    for (const [presented, reason] of refusals)
      expect(tokens.read(presented, during), presented.slice(0, 40)).toEqual({ ok: false, reason });
    expect(tokens.read(token, claims.expiresAt)).toEqual({ ok: false, reason: "expired" });
  });

  it("say when a token names a key they do not hold", () => {
    const unknown: string[] = [];
    const tokens = new Es256AdmissionTokens({ keys: [key], onUnknownKey: (kid) => unknown.push(kid) });
    const other = new Es256AdmissionTokens({ keys: [newKey("k2")] }).issue(claims);
    expect(tokens.verify(other, during)).toEqual({ ok: false, reason: "bad_signature" });
    expect(unknown).toEqual(["k2"]);
  });

  it("remember a verified token (only one that passed), and still refuse it once expired", () => {
    const cache = new CountingCache();
    const tokens = new Es256AdmissionTokens({ keys: [key], cache });
    const token = new Es256AdmissionTokens({ keys: [key] }).issue(claims);
    expect(tokens.verify(token, during)).toEqual({ ok: true, claims });
    expect(tokens.verify(token, during)).toEqual({ ok: true, claims });
    expect(cache.sets).toBe(1);
    expect(tokens.verify(token, claims.expiresAt)).toEqual({ ok: false, reason: "expired" });
    const [header, payload] = token.split(".");
    expect(tokens.verify(`${header}.${payload}.${"A".repeat(86)}`, during).ok).toBe(false);
    expect(cache.sets).toBe(1);
  });

  it("remember what they sign, as verify reads it back (whole seconds)", () => {
    const cache = new CountingCache();
    const tokens = new Es256AdmissionTokens({ keys: [key], cache });
    const token = tokens.issue({ ...claims, expiresAt: claims.expiresAt + 999 });
    expect(cache.entries.get(token)).toEqual(claims);
    expect(new Es256AdmissionTokens({ keys: [key] }).verify(token, during)).toEqual({ ok: true, claims });
    expect(tokens.verify(token, during)).toEqual({ ok: true, claims });
    expect(cache.sets).toBe(1);
  });

  it("sign with the newest key already signing, publish every key, and verify with each", () => {
    const old = newKey("old", 0);
    const next = newKey("next", Date.parse("2026-11-22T10:00:30Z"));
    const tokens = new Es256AdmissionTokens({ keys: [old, next] });
    expect(tokens.signingKid(during - 60_000)).toBe("old");
    expect(tokens.signingKid(during)).toBe("next");
    expect(tokens.publicKeys.map((jwk) => jwk.kid).sort()).toEqual(["next", "old"]);
    expect(tokens.publicKeys.every((jwk) => !("d" in jwk))).toBe(true);
    const before = tokens.issue(claims, during - 60_000);
    const after = tokens.issue(claims, during);
    expect(tokens.verify(before, during)).toEqual({ ok: true, claims });
    expect(tokens.verify(after, during)).toEqual({ ok: true, claims });
    expect(() => new Es256AdmissionTokens({ keys: [] }).issue(claims)).toThrow(/no admission signing key/);
  });
});
