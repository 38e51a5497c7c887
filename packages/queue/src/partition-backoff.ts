// On a Redis Cluster a worker reads each partition by itself, so a master that is away fails only its own
// partitions' reads. Pausing every read for it would stall the partitions of the masters that answer; instead
// a partition whose read failed is left out of the reads for a while (100 ms, doubling per failure in a row, at
// most 2 s) and tried again after it; its first read that answers ends the backoff.
import { doublingDelayMs } from "@floodgate/backoff";

const DELAY = { firstMs: 100, maxMs: 2_000 };

export class PartitionBackoff {
  readonly #until = new Map<number, number>();
  /** Failures in a row, by partition. */
  readonly #failures = new Map<number, number>();

  /** True while the partition is to be left out of reads. */
  skips(partition: number, now: number): boolean {
    return (this.#until.get(partition) ?? 0) > now;
  }

  failed(partition: number, now: number): void {
    const failures = (this.#failures.get(partition) ?? 0) + 1;
    this.#failures.set(partition, failures);
    this.#until.set(partition, now + doublingDelayMs(DELAY, failures));
  }

  answered(partition: number): void {
    this.#failures.delete(partition);
    this.#until.delete(partition);
  }

  /** The partitions whose last read failed, for a log line. */
  get failing(): number[] {
    return [...this.#failures.keys()].sort((a, b) => a - b);
  }
}
