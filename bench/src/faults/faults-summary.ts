// The per-fault table the run prints, and the verdict: under `appendfsync always` (every fault but the two
// Redis restarts measured under other settings) nothing may be lost or applied twice, and every wallet must add up.
import type { FaultName } from "./fault-catalogue.ts";
import type { FaultResult } from "./fault-phase.ts";

/** The Redis persistence each fault ran under. */
export function redisSettingOf(name: FaultName | string): "always" | "everysec" | "none" {
  if (name === "redis-restart-everysec") return "everysec";
  if (name === "redis-restart-none") return "none";
  return "always";
}

export function verdict(faults: readonly FaultResult[]): string | null {
  const broken = faults.filter(
    (fault) =>
      (redisSettingOf(fault.name) === "always" && (fault.lost > 0 || fault.appliedTwice > 0)) ||
      !fault.walletInvariant.holds,
  );
  if (broken.length === 0) return null;
  return `under appendfsync always a payment was lost or applied twice, or a wallet does not add up: ${broken
    .map(
      (fault) =>
        `${fault.name} (lost ${fault.lost}, twice ${fault.appliedTwice}, wallets ${fault.walletInvariant.holds ? "ok" : `off by ${fault.walletInvariant.difference}`})`,
    )
    .join(", ")}`;
}

const pad = (text: string | number, width: number) => String(text).padStart(width);

export function faultsTable(faults: readonly FaultResult[]): string[] {
  const header = `${"fault".padEnd(24)}${pad("redis", 9)}${pad("keys", 8)}${pad("accepted", 10)}${pad("lost", 6)}${pad("twice", 7)}${pad("no-answer", 11)}${pad("5xx", 7)}${pad("retries", 9)}${pad("recover s", 11)}  wallets`;
  return [
    header,
    ...faults.map(
      (fault) =>
        `${fault.name.padEnd(24)}${pad(redisSettingOf(fault.name), 9)}${pad(fault.keys, 8)}${pad(fault.accepted, 10)}${pad(fault.lost, 6)}${pad(fault.appliedTwice, 7)}${pad(fault.appliedWithoutAnswer, 11)}${pad(fault.fiveXx, 7)}${pad(fault.clientRetries, 9)}${pad(fault.secondsToRecover ?? "-", 11)}  ${fault.walletInvariant.holds ? "ok" : "OFF"}`,
    ),
  ];
}

export function overloadLines(fault: FaultResult | undefined): string[] {
  if (!fault) return [];
  const c = fault.client;
  return [
    `overload: ${fault.notes[0] ?? ""}; answers ${JSON.stringify(c.statuses)}; 429/503 ${c.refusals} (${c.refusals === 0 ? "-" : `${Math.round((100 * c.refusalsWithRetryAfter) / c.refusals)} % with Retry-After`}); client timeouts ${c.timeouts}; intake RSS ${fault.intakeRssMiB.before} -> peak ${fault.intakeRssMiB.peak} -> ${fault.intakeRssMiB.after} MiB`,
  ];
}
