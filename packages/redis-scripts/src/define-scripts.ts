// Lua lives in ../lua, one file per script named <name>-<numberOfKeys>.lua (the BullMQ convention; `-n` for a
// variable number of keys, which the caller passes first). Each is loaded once per connection with
// defineCommand, so calls go out as EVALSHA with a transparent EVAL fallback.
import { readdirSync, readFileSync } from "node:fs";
import type { ChainableCommander, Redis } from "ioredis";

const LUA_DIR = new URL("../lua/", import.meta.url);

export interface ScriptedRedis extends Redis {
  enqueueOperation(
    idempotencyKey: string,
    statusKey: string,
    streamKey: string,
    operationId: string,
    fingerprint: string,
    idempotencyTtlSeconds: number,
    message: string,
  ): Promise<[number, string]>;
  issueCoupon(
    couponStateKey: string,
    couponHoldersKey: string,
    statusKey: string,
    streamKey: string,
    couponIssueKey: string,
    issueId: string,
    userId: string,
    message: string,
    couponId: string,
    discountType: string,
    discountValue: number,
  ): Promise<[number, string]>;
  changeProduct(productStateKey: string, price: number | "", stockAdded: number): Promise<[number, number]>;
  /** reserve-order-n.lua: the caller passes the number of keys first. */
  reserveOrder(numberOfKeys: number, ...keysThenArgs: (string | number)[]): Promise<[number, string]>;
  requestOrderEnd(
    orderStateKey: string,
    statusKey: string,
    streamKey: string,
    endId: string,
    orderId: string,
    reason: string,
    createdAt: number,
  ): Promise<[number, string]>;
  trimAcknowledged(streamKey: string, group: string): Promise<number>;
  pipeline(): ScriptedPipeline;
}

/** A pipeline that also knows the scripts (ioredis adds them at run time; its types do not). */
export interface ScriptedPipeline extends ChainableCommander {
  trimAcknowledged(streamKey: string, group: string): ScriptedPipeline;
  finishOperations(numberOfKeys: number, ...keysThenArgs: (string | number)[]): ScriptedPipeline;
  releaseOrder(numberOfKeys: number, ...keysThenArgs: (string | number)[]): ScriptedPipeline;
}

const camelCase = (name: string) => name.replace(/-([a-z])/g, (_, char: string) => char.toUpperCase());

export function defineScripts(redis: Redis): ScriptedRedis {
  for (const file of readdirSync(LUA_DIR)) {
    const match = /^([a-z-]+)-(\d+|n)\.lua$/.exec(file);
    if (!match) continue;
    const [, name, keys] = match;
    redis.defineCommand(camelCase(name!), {
      ...(keys === "n" ? {} : { numberOfKeys: Number(keys) }),
      lua: readFileSync(new URL(file, LUA_DIR), "utf8"),
    });
  }
  return redis as ScriptedRedis;
}
