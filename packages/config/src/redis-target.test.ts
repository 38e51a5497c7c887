import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseRedisUrl } from "./index.ts";

describe("REDIS_URL", () => {
  it("takes one Redis as it always did, the URL unchanged", () => {
    expect(loadConfig({}).redisTarget).toEqual({ kind: "single", url: "redis://127.0.0.1:6379" });
    const config = loadConfig({ REDIS_URL: "rediss://app:s3cret@cache.internal:6380/2" });
    expect(config.redisUrl).toBe("rediss://app:s3cret@cache.internal:6380/2");
    expect(config.redisTarget).toEqual({ kind: "single", url: "rediss://app:s3cret@cache.internal:6380/2" });
  });

  it("takes a cluster's seed nodes", () => {
    const config = loadConfig({
      REDIS_URL: "redis+cluster://10.0.0.1:7000,10.0.0.2:7001, cache-3.internal:7002",
    });
    expect(config.redisUrl).toBe("redis+cluster://10.0.0.1:7000,10.0.0.2:7001, cache-3.internal:7002");
    expect(config.redisTarget).toEqual({
      kind: "cluster",
      tls: false,
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "10.0.0.2", port: 7001 },
        { host: "cache-3.internal", port: 7002 },
      ],
    });
  });

  it("takes TLS, a user and a percent-encoded password, a bracketed IPv6 node and a default port", () => {
    expect(parseRedisUrl("rediss+cluster://app:p%40ss:w@[::1]:7000,node-b/")).toEqual({
      kind: "cluster",
      tls: true,
      username: "app",
      password: "p@ss:w",
      nodes: [
        { host: "::1", port: 7000 },
        { host: "node-b", port: 6379 },
      ],
    });
    expect(parseRedisUrl("redis+cluster://:only-a-password@h:7000")).toEqual({
      kind: "cluster",
      tls: false,
      password: "only-a-password",
      nodes: [{ host: "h", port: 7000 }],
    });
  });

  it.each([
    ["a database on a cluster", "redis+cluster://h1:7000,h2:7001/2", "only database 0"],
    ["a query on a cluster", "redis+cluster://h1:7000?db=1", "after the nodes"],
    ["no nodes", "redis+cluster://", "not host:port"],
    ["an empty node", "redis+cluster://h1:7000,,h2:7001", "not host:port"],
    ["a port out of range", "redis+cluster://h1:70000", "not host:port"],
    ["a node with a path in it", "redis+cluster://h1:7000,h2 :x", "not host:port"],
    ["another scheme", "http://127.0.0.1:6379", "unknown scheme http:"],
    ["a sentinel scheme", "redis+sentinel://h1:26379", "unknown scheme"],
    ["not a URL", "not a url", "is not a URL"],
  ])("refuses %s, naming REDIS_URL and the accepted forms", (_, value, problem) => {
    let caught: unknown;
    try {
      loadConfig({ REDIS_URL: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe("REDIS_URL");
    expect((caught as ConfigError).message).toContain(problem);
    expect((caught as ConfigError).message).toContain("redis+cluster://[user:password@]host:port,host:port");
  });

  it("never echoes a password in its error", () => {
    expect(() => parseRedisUrl("redis+cluster://app:hunter2hunter2@h1:7000/3")).toThrow(ConfigError);
    try {
      parseRedisUrl("redis+cluster://app:hunter2hunter2@h1:7000/3");
    } catch (error) {
      expect((error as Error).message).not.toContain("hunter2");
      expect((error as Error).message).toContain("app:***@h1:7000/3");
    }
  });
});
