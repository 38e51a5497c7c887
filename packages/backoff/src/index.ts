export { type DoublingBackoff, doublingDelayMs, type Jitter } from "./doubling-backoff.ts";
