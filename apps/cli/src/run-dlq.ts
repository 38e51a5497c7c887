// Opens Redis, runs one `./floodgate dlq` subcommand and closes it; returns the exit status.
import { adoptLegacyDeadLetters, findDeadLetters, QueueKeys, readDeadLetters } from "@floodgate/queue";
import { createRedis, waitForRedis } from "@floodgate/redis-connections";
import { type ActionOutput, settleAll, settleOne } from "./dead-letter-actions.ts";
import { listJson, tableLines } from "./dead-letter-table.ts";
import { showLines, viewDeadLetter } from "./dead-letter-view.ts";

export interface DlqRequest {
  command: "list" | "show" | "replay" | "drop";
  id: string | undefined;
  all: boolean;
  json: boolean;
}

export interface DlqTarget {
  redisUrl: string;
  redisPrefix: string;
  streamPartitions: number;
}

const print = (line: string) => process.stdout.write(`${line}\n`);
const output: ActionOutput = {
  out: (line) => process.stdout.write(`[dlq] ${line}\n`),
  progress: (line) => process.stderr.write(`[dlq] ${line}\n`),
};

export async function runDlq(target: DlqTarget, request: DlqRequest): Promise<number> {
  const redis = createRedis(target.redisUrl, { name: "floodgate-dlq" });
  redis.on("error", () => {}); // reported below, by the command that fails, not as an unhandled event
  const keys = new QueueKeys(target.redisPrefix, target.streamPartitions);
  try {
    await waitForRedis(redis);
    // What a worker of the previous release dead-lettered into the untagged stream (a rolling upgrade) first.
    const moved = await adoptLegacyDeadLetters(redis, keys);
    if (moved > 0) output.progress(`moved ${moved} dead letters from the stream of the previous release`);
    switch (request.command) {
      case "list": {
        const views = [];
        for await (const letter of readDeadLetters(redis, keys)) views.push(viewDeadLetter(letter));
        if (request.json) print(listJson(views));
        else if (views.length === 0) output.out("no dead letters");
        else for (const line of tableLines(views)) print(line);
        return 0;
      }
      case "show": {
        const letters = await findDeadLetters(redis, keys, request.id!);
        if (letters.length === 0) {
          output.out(`no dead letter ${request.id}`);
          return 1;
        }
        const shown = [];
        for (const letter of letters) {
          const view = viewDeadLetter(letter);
          const partition = keys.partitionForOperation(letter.operationId);
          const status =
            partition === null ? {} : await redis.hgetall(keys.status(partition, letter.operationId));
          shown.push({ view, status });
        }
        if (request.json) {
          print(
            JSON.stringify(
              shown.map(({ view, status }) => ({ ...view, status })),
              null,
              2,
            ),
          );
        } else {
          print(shown.map(({ view, status }) => showLines(view, status).join("\n")).join("\n\n"));
        }
        return 0;
      }
      default: {
        const done = request.all
          ? await settleAll(redis, keys, request.command, output)
          : await settleOne(redis, keys, request.id!, request.command, output);
        return done ? 0 : 1;
      }
    }
  } catch (error) {
    process.stderr.write(`[dlq] could not ${request.command}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    redis.disconnect();
  }
}
