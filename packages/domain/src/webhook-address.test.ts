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

  it("refuses every range that is not unicast, and IPv4 inside NAT64, 6to4 and mapped IPv6 as the IPv4 itself", () => {
    for (const address of [
      "239.255.255.250", // multicast (SSDP)
      "225.1.2.3",
      "255.255.255.255", // broadcast
      "250.1.2.3", // reserved
      "192.0.2.1", // documentation
      "64:ff9b::a00:1", // NAT64 of 10.0.0.1
      "64:ff9b::7f00:1", // NAT64 of 127.0.0.1
      "64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
      "64:ff9b:1::808:808", // local-use NAT64: where the IPv4 sits is the network's own choice
      "2002:a00:1::1", // 6to4 of 10.0.0.1
      "2002:7f00:1::", // 6to4 of 127.0.0.1
      "::ffff:0:a00:1", // IPv4-translated 10.0.0.1
      "::ffff:a00:1", // mapped 10.0.0.1, written in hex
      "fec0::1", // site-local (deprecated)
      "ff02::1", // multicast
      "2001:db8::1", // documentation
      "100::1", // discard-only
      "2001::1", // Teredo
      "::a00:1", // IPv4-compatible (deprecated)
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
      "64:ff9b::808:808", // NAT64 of 8.8.8.8
      "2002:808:808::1", // 6to4 of 8.8.8.8
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
    expect(await webhookUrlProblem("http://[64:ff9b::a00:1]/h", false)).toMatch(/64:ff9b::a00:1/);
    expect(await webhookUrlProblem("http://239.255.255.250:1900/h", false)).toMatch(/239\.255\.255\.250/);
    expect(await webhookUrlProblem("http://localhost:3000/h", true)).toBeNull();
    expect(await webhookUrlProblem("https://93.184.216.34/h", false)).toBeNull();
  });
});
