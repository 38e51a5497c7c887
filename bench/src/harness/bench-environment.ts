// Where the bench finds Redis and Postgres. Only the servers are configurable: the database names are fixed
// (floodgate_bench*) because the bench drops and recreates them, and must never touch a developer's data.
export interface BenchEnvironment {
  redisUrl: string;
  floodgateDatabaseUrl: string;
  baselineDatabaseUrl: string;
}

export function benchEnvironment(env: NodeJS.ProcessEnv = process.env): BenchEnvironment {
  const server = new URL(env.BENCH_POSTGRES_URL || "postgres://postgres@127.0.0.1:5432");
  const database = (name: string) => {
    const url = new URL(server);
    url.pathname = `/${name}`;
    return url.toString();
  };
  return {
    redisUrl: env.BENCH_REDIS_URL || "redis://127.0.0.1:6379",
    floodgateDatabaseUrl: database("floodgate_bench"),
    baselineDatabaseUrl: database("floodgate_bench_baseline"),
  };
}
