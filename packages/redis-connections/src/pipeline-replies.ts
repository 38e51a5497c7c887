// ioredis resolves a pipeline, and a MULTI, even when commands in it failed: each reply is [error, result], and
// with the offline queue off a dropped connection resolves that way too. Where a failed command must not pass
// for done (final statuses, acknowledgements, releases, dead letters), execOrThrow turns any failure into an
// error that says what it was doing, how many commands failed and the first reason.

interface ExecutablePipeline {
  exec(): Promise<[Error | null, unknown][] | null>;
}

export class PipelineError extends Error {
  readonly failed: number;
  constructor(what: string, failed: number, total: number, first: string) {
    super(`${what}: ${failed} of ${total} Redis commands failed (first: ${first})`);
    this.name = "PipelineError";
    this.failed = failed;
  }
}

/** Runs the pipeline; returns the results, or throws a PipelineError if any command failed. */
export async function execOrThrow(pipeline: ExecutablePipeline, what: string): Promise<unknown[]> {
  const replies = await pipeline.exec();
  // A MULTI whose WATCHed key changed answers null; none of ours watch, so null means it did not run.
  if (replies === null) throw new PipelineError(what, 1, 1, "the transaction did not run");
  const failures = replies.filter(([error]) => error !== null);
  if (failures.length > 0) {
    throw new PipelineError(what, failures.length, replies.length, failures[0]![0]!.message);
  }
  return replies.map(([, result]) => result);
}
