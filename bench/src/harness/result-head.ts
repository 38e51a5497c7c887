// The lines every scenario's summary opens with: what ran where, the services' durability settings, and a
// warning when something else was already using the cpus.
import type { CpuCalibration } from "./cpu-calibration.ts";
import type { CommitInfo, machineInfo } from "./result-file.ts";
import type { ServiceSettings } from "./service-settings.ts";

export function headerLine(
  scenario: string,
  result: CommitInfo & { machine: ReturnType<typeof machineInfo> },
): string {
  const m = result.machine as ReturnType<typeof machineInfo> & { cpuCalibration?: CpuCalibration | null };
  const calibration = m.cpuCalibration
    ? `, cpu calibration ${m.cpuCalibration.oneThreadMs} ms one thread / ${m.cpuCalibration.twoThreadsMs} ms two` +
      (m.cpuCalibration.loopbackRoundTripUs === undefined
        ? ""
        : `, loopback ${m.cpuCalibration.loopbackRoundTripUs} µs, memory read ${m.cpuCalibration.memoryReadNs} ns`)
    : "";
  return `${scenario} bench, commit ${result.commit ?? "none"}${result.dirty ? " (uncommitted changes)" : ""}, ${m.cpuCount} x ${m.cpuModel}, ${m.memoryGiB} GiB, node ${m.node}${calibration}`;
}

/** A load average at start above 1 means something else was using the cpus the bench needs. */
export function busyWarning(loadAverage: number): string[] {
  return loadAverage >= 1
    ? [
        `WARNING: 1-minute load average was ${loadAverage} when the run started: other work shares the cpus, figures are unreliable`,
      ]
    : [];
}

export function servicesLine(services: ServiceSettings | null): string {
  if (services === null) return "services: unknown";
  const show = (settings: Record<string, string>) =>
    Object.entries(settings)
      .map(([name, value]) => `${name} ${value || '""'}`)
      .join(", ");
  return `postgres: ${show(services.postgres)}; redis: ${show(services.redis)}`;
}
