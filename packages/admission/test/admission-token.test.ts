// Admission tokens: what one intake signs, another with the same secret verifies; nothing else passes.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Hs256AdmissionTokens } from "../src/index.ts";

const SECRET = "a-test-secret-that-is-long-enough-0123456789";
const claims = {
  roomId: "drop-1",
  ticketId: "tkt_01M8000000AAAAAAAAAAAAAAAA",
  userId: "alice",
  admittedAt: Date.parse("2026-11-22T10:00:00Z"),
  expiresAt: Date.parse("2026-11-22T10:05:00Z"),
};
const during = Date.parse("2026-11-22T10:01:00Z");
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("admission tokens", () => {
  it("verify on another instance with the same secret, giving back the claims (times in whole seconds)", () => {
    const token = new Hs256AdmissionTokens(SECRET).issue(claims);
    expect(token.split(".")).toHaveLength(3);
    expect(new Hs256AdmissionTokens(SECRET).verify(token, during)).toEqual({ ok: true, claims });
  });

  it("are refused once expired, and when signed with another secret or changed after signing", () => {
    const tokens = new Hs256AdmissionTokens(SECRET);
    const token = tokens.issue(claims);
    expect(tokens.verify(token, claims.expiresAt)).toEqual({ ok: false, reason: "expired" });
    expect(new Hs256AdmissionTokens(`${SECRET}x`).verify(token, during)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    const [header, , signature] = token.split(".");
    const forged = `${header}.${b64({ iss: "floodgate", sub: "mallory", room: "drop-1", tkt: claims.ticketId, iat: 0, exp: 9e9 })}.${signature}`;
    expect(tokens.verify(forged, during)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("read the claims of a token shaped as theirs without its signature (the intake's digest check stands in)", () => {
    const tokens = new Hs256AdmissionTokens(SECRET);
    const [header, payload, signature] = tokens.issue(claims).split(".") as [string, string, string];
    const otherSignature = Buffer.alloc(32, 7).toString("base64url");
    expect(tokens.read(`${header}.${payload}.${otherSignature}`, during)).toEqual({ ok: true, claims });
    expect(tokens.read(`${b64({ alg: "HS512", typ: "JWT" })}.${payload}.${signature}`, during)).toEqual({
      ok: false,
      reason: "malformed",
    });
    expect(tokens.read(`${header}.${payload}=.${signature}`, during)).toEqual({
      ok: false,
      reason: "malformed",
    });
    expect(tokens.read(`${header}.${payload}.${signature}A`, during)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
  });

  it("never take the algorithm from the token: alg none and other headers are refused", () => {
    const tokens = new Hs256AdmissionTokens(SECRET);
    const payload = b64({
      iss: "floodgate",
      sub: "alice",
      room: "drop-1",
      tkt: claims.ticketId,
      iat: 0,
      exp: 9e9,
    });
    const unsigned = `${b64({ alg: "none", typ: "JWT" })}.${payload}.`;
    expect(tokens.verify(unsigned, during)).toEqual({ ok: false, reason: "malformed" });
    // HS512 with the same secret: a valid signature for another algorithm is still refused.
    const header = b64({ alg: "HS512", typ: "JWT" });
    const hs512 = createHmac("sha512", SECRET).update(`${header}.${payload}`).digest("base64url");
    expect(tokens.verify(`${header}.${payload}.${hs512}`, during)).toEqual({
      ok: false,
      reason: "malformed",
    });
  });

  it("are read in one spelling only: a signature with characters outside base64url, padding or stray bits is refused", () => {
    const tokens = new Hs256AdmissionTokens(SECRET);
    const [header, payload, signature] = tokens.issue(claims).split(".") as [string, string, string];
    // Node's base64url decoder skips what is not in the alphabet, so each of these decodes to the same 32
    // bytes; the last of 43 characters has two unused bits, and setting one changes the text, not the bytes.
    const strayBits = BASE64URL[BASE64URL.indexOf(signature.at(-1)!) + 1];
    for (const respelled of [
      `${signature.slice(0, 10)}!${signature.slice(10)}`,
      `${signature}*~`,
      `${signature}=`,
      `${signature.slice(0, -1)}${strayBits}`,
    ]) {
      expect(Buffer.from(respelled, "base64url")).toEqual(Buffer.from(signature, "base64url"));
      expect(tokens.verify(`${header}.${payload}.${respelled}`, during), respelled).toEqual({
        ok: false,
        reason: "bad_signature",
      });
    }
  });

  it("refuse what is not a token, or a signed payload without the claims", () => {
    const tokens = new Hs256AdmissionTokens(SECRET);
    for (const garbage of ["", "abc", "a.b", "a.b.c.d", "...."]) {
      expect(tokens.verify(garbage, during).ok).toBe(false);
    }
    const header = tokens.issue(claims).split(".")[0]!;
    const payload = b64({ iss: "floodgate", sub: "alice" });
    const signature = createHmac("sha256", SECRET).update(`${header}.${payload}`).digest("base64url");
    expect(tokens.verify(`${header}.${payload}.${signature}`, during)).toEqual({
      ok: false,
      reason: "malformed",
    });
  });
});
