import { describe, expect, it } from "vitest";
import { isPrivateAddress, webhookUrlProblem, webhookUrlShapeProblem } from "./webhook-address.ts";

describe("isPrivateAddress", () => {
  it("refuses loopback, private, CGNAT, link-local, unique-local, unspecified and mapped ones", () => {
    for (const address of [
      "127.0.0.1",
      "127.8.9.10",
      "10.0.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "100.64.0.1",
      "169.254.169.254",
      "0.0.0.0",
      "::1",
      "::",
      "fe80::1",
      "fd12:3456::1",
      "fc00::1",
      "::ffff:10.0.0.1",
      "::ffff:127.0.0.1",
      "not-an-address",
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });

  it("lets public ones through", () => {
    for (const address of [
      "93.184.216.34",
      "172.32.0.1",
      "100.128.0.1",
      "8.8.8.8",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
    ]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});

describe("webhookUrlProblem", () => {
  it("names the rule a URL breaks", async () => {
    expect(webhookUrlShapeProblem("ftp://example.com/")).toMatch(/https or http/);
    expect(webhookUrlShapeProblem("https://user:pw@example.com/")).toMatch(/credentials/);
    expect(webhookUrlShapeProblem("nope")).toMatch(/not a URL/);
    expect(await webhookUrlProblem("http://localhost:3000/h", false)).toMatch(/resolves to .*private/);
    expect(await webhookUrlProblem("http://[::1]/h", false)).toMatch(/::1/);
    expect(await webhookUrlProblem("http://localhost:3000/h", true)).toBeNull();
    expect(await webhookUrlProblem("https://93.184.216.34/h", false)).toBeNull();
  });
});
