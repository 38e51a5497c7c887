// A setup file of vitest's "cluster" project, run in each test process before its test file: it hands the
// cluster URL the global setup provided to createTestEnvironment (testRedisUrl), through the environment,
// since the fixtures are also used outside vitest and must not import it.
import { inject } from "vitest";

process.env.FLOODGATE_TEST_REDIS_CLUSTER_URL = inject("floodgateRedisClusterUrl");
