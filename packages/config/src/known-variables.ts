// The environment variables loadConfig reads, found by running it rather than listed by hand, so a variable
// added to the reader is known here at once. Deploy files (Dockerfile, compose, k8s) may set only these; the
// test in infra/test compares them.
import { loadConfig } from "./load-config.ts";

// Defaults that reach every branch: with no customer JWT key the reader returns before reading
// CUSTOMER_JWT_ALGORITHMS (customer-jwt.ts), so a second pass sets a valid one.
const PASSES: Record<string, string>[] = [
  {},
  { CUSTOMER_JWT_SECRET: "k".repeat(32), CUSTOMER_JWT_ISSUER: "issuer", CUSTOMER_JWT_AUDIENCE: "audience" },
];

export function knownEnvironmentVariables(): string[] {
  const names = new Set<string>();
  for (const values of PASSES) {
    const recording = new Proxy(values, {
      get(target, name) {
        if (typeof name === "string") names.add(name);
        return typeof name === "string" ? target[name] : undefined;
      },
    });
    loadConfig(recording);
  }
  return [...names].sort();
}
