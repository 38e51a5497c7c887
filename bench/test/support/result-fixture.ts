// The fields every bench result starts with (harness/result-head.ts resultHeader), fixed, for summary tests
// that build a result by hand; and the private cluster a --redis cluster run records.
export function testResultHeader<S extends string, T extends Record<string, unknown>>(
  scenario: S,
  settings: T,
) {
  return {
    scenario,
    commit: "abc1234",
    dirty: false,
    startedAt: "2026-11-26T10:00:00.000Z",
    finishedAt: "2026-11-26T10:05:00.000Z",
    machine: {
      os: "Linux",
      cpuModel: "Test CPU",
      cpuCount: 2,
      memoryGiB: 8,
      node: "v24.0.0",
      loadAverageAtStart: [0.1, 0.1, 0.1],
    },
    services: null,
    settings,
    loadGenerator: "autocannon",
  };
}

export const TEST_REDIS_CLUSTER = {
  masters: 3,
  replicasPerMaster: 0,
  ports: [7001, 7002, 7003],
  persistence: "none" as const,
};
