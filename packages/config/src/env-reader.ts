export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`invalid configuration: ${variable} ${problem}`);
    this.name = "ConfigError";
    this.variable = variable;
  }
}

/** Typed readers over an environment; an unset or empty variable takes the default. */
export function envReader(env: NodeJS.ProcessEnv) {
  const raw = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const checkUrl = (name: string, value: string, protocols: string[]): string => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ConfigError(name, `is not a URL: ${JSON.stringify(value)}`);
    }
    if (!protocols.includes(url.protocol)) {
      throw new ConfigError(name, `must use ${protocols.join(" or ")} (got ${url.protocol})`);
    }
    return value;
  };
  return {
    /** The raw value, trimmed; undefined when unset or empty. */
    optional(name: string): string | undefined {
      return raw(name);
    },
    int(name: string, fallback: number, min: number, max: number): number {
      const value = raw(name);
      if (value === undefined) return fallback;
      if (!/^\d+$/.test(value))
        throw new ConfigError(name, `must be an integer, got ${JSON.stringify(value)}`);
      const n = Number(value);
      if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
      return n;
    },
    string(name: string, fallback: string, pattern: RegExp): string {
      const value = raw(name) ?? fallback;
      if (!pattern.test(value))
        throw new ConfigError(name, `must match ${pattern}, got ${JSON.stringify(value)}`);
      return value;
    },
    oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
      const value = raw(name) ?? fallback;
      if (!allowed.includes(value as T)) {
        throw new ConfigError(name, `must be one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`);
      }
      return value as T;
    },
    /** A secret: null when unset; never echoed back in an error message. */
    secret(name: string, pattern: RegExp, rule: string): string | null {
      const value = raw(name);
      if (value === undefined) return null;
      if (!pattern.test(value)) throw new ConfigError(name, `must be ${rule}`);
      return value;
    },
    url(name: string, fallback: string, protocols: string[]): string {
      return checkUrl(name, raw(name) ?? fallback, protocols);
    },
    urlList(name: string, protocols: string[]): string[] | undefined {
      const value = raw(name);
      if (value === undefined) return undefined;
      const urls = value.split(",").map((part) => part.trim());
      if (urls.some((url) => url === "")) throw new ConfigError(name, "has an empty entry");
      return urls.map((url) => checkUrl(name, url, protocols));
    },
  };
}
