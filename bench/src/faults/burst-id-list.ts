// The operation ids the burst was answered 2xx with, packed: their bytes end to end and where each ends. A 30 s
// burst at 50,000/s is at most 1.5 M ids of 30 bytes: about 51 MB here, where as strings in an array they would
// take several times that (and a Set more again). Copied out of the answer's bytes, never made a string until
// the audit reads them.

export interface PackedIds {
  bytes: Uint8Array<ArrayBuffer>;
  ends: Uint32Array<ArrayBuffer>;
}

export class BurstIdList {
  #bytes: Uint8Array<ArrayBuffer> = new Uint8Array(1 << 16);
  #ends: Uint32Array<ArrayBuffer> = new Uint32Array(1 << 12);
  #count = 0;
  #used = 0;

  static from(packed: PackedIds): BurstIdList {
    const list = new BurstIdList();
    list.#bytes = packed.bytes;
    list.#ends = packed.ends;
    list.#count = packed.ends.length;
    list.#used = packed.bytes.length;
    return list;
  }

  get length(): number {
    return this.#count;
  }

  push(source: Uint8Array, start: number, end: number): void {
    const length = end - start;
    if (this.#used + length > this.#bytes.length) {
      const bigger = new Uint8Array(Math.max(2 * this.#bytes.length, this.#used + length));
      bigger.set(this.#bytes.subarray(0, this.#used));
      this.#bytes = bigger;
    }
    if (this.#count === this.#ends.length) {
      const bigger = new Uint32Array(2 * this.#ends.length);
      bigger.set(this.#ends);
      this.#ends = bigger;
    }
    this.#bytes.set(source.subarray(start, end), this.#used);
    this.#used += length;
    this.#ends[this.#count++] = this.#used;
  }

  at(index: number): string {
    const start = index === 0 ? 0 : this.#ends[index - 1]!;
    return Buffer.from(
      this.#bytes.buffer,
      this.#bytes.byteOffset + start,
      this.#ends[index]! - start,
    ).toString("latin1");
  }

  /** Exact-size copies, whose buffers can be transferred to another thread. */
  pack(): PackedIds {
    return { bytes: this.#bytes.slice(0, this.#used), ends: this.#ends.slice(0, this.#count) };
  }
}
