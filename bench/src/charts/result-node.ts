// Reading a result file whose shape is only known by convention: each read names the path it wanted, so a
// file that lacks it fails with "<file>: <path> is missing (a number expected)", not a TypeError.

export class ChartInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChartInputError";
  }
}

export class ResultNode {
  readonly file: string;
  readonly value: unknown;
  /** Where `value` sits in the file, for error messages: "floodgate.max.stages[3]". */
  readonly path: string;

  constructor(file: string, value: unknown, path = "") {
    this.file = file;
    this.value = value;
    this.path = path;
  }

  /** The child at a dotted path ("max.stages"), or a node holding undefined when it is not there. */
  at(path: string): ResultNode {
    let value = this.value;
    for (const key of path.split(".")) {
      value =
        value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
    }
    return new ResultNode(this.file, value, this.path === "" ? path : `${this.path}.${path}`);
  }

  get present(): boolean {
    return this.value !== undefined && this.value !== null;
  }

  isObject(): boolean {
    return this.value !== null && typeof this.value === "object" && !Array.isArray(this.value);
  }

  number(path: string): number {
    const node = this.at(path);
    if (typeof node.value !== "number") throw node.missing("a number");
    return node.value;
  }

  /** A number, or null when absent or null (old files lack fields added since). */
  optionalNumber(path: string): number | null {
    const node = this.at(path);
    return typeof node.value === "number" ? node.value : null;
  }

  string(path: string): string {
    const node = this.at(path);
    if (typeof node.value !== "string") throw node.missing("a string");
    return node.value;
  }

  /** The array at `path` as nodes. */
  list(path: string): ResultNode[] {
    const node = this.at(path);
    if (!Array.isArray(node.value)) throw node.missing("an array");
    return node.value.map((item, i) => new ResultNode(this.file, item, `${node.path}[${i}]`));
  }

  /** An array of numbers (or nulls), e.g. a per-second series. */
  numbers(path: string): (number | null)[] {
    return this.list(path).map((item) => {
      if (item.value !== null && typeof item.value !== "number") throw item.missing("a number or null");
      return item.value as number | null;
    });
  }

  missing(what: string): ChartInputError {
    const found = this.value === undefined ? "missing" : `${JSON.stringify(this.value)?.slice(0, 40)}`;
    return new ChartInputError(
      `${this.file}: ${this.path || "the top level"} is ${found} (${what} expected)`,
    );
  }
}
