// Samples the consumer lag (consumer-lag.ts) once a second while a stage runs: the series shows when the
// workers fell behind, its maximum judges the stage. A failed read is counted, not guessed: a stage with a
// gap in its series has not shown that the lag held.
import { connectRedis, type RedisClient } from "@floodgate/test-fixtures";
import { readConsumerLag } from "./consumer-lag.ts";

export interface LagSeries {
  /** One reading per period, in seconds (3 decimals), in order. */
  samplesS: number[];
  maxLagS: number | null;
  failedSamples: number;
}

export interface LagSampler {
  stop(): Promise<LagSeries>;
}

export function startLagSampler(options: {
  redisUrl: string;
  streams: readonly string[];
  periodMs?: number;
}): LagSampler {
  const periodMs = options.periodMs ?? 1000;
  const redis: RedisClient = connectRedis(options.redisUrl, { maxRetriesPerRequest: 1 });
  const samplesS: number[] = [];
  let failedSamples = 0;
  let running = true;
  let wake: () => void = () => {};
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const { lagS } = await readConsumerLag(redis, options.streams);
        samplesS.push(Math.round(lagS * 1000) / 1000);
      } catch {
        failedSamples++;
      }
      const delay = Math.max(0, periodMs - (Date.now() - started));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    async stop() {
      running = false;
      wake();
      await loop;
      redis.disconnect();
      return {
        samplesS,
        maxLagS: samplesS.length === 0 ? null : Math.max(...samplesS),
        failedSamples,
      };
    },
  };
}
