// infra/docker-compose.yml, parsed: never started here (no Docker engine), so these are the checks that stand in.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, knownEnvironmentVariables, loadConfig } from "@floodgate/config";
import { describe, expect, it } from "vitest";
// The observability kit's promtool runner (PROMTOOL_PATH or PATH; `./floodgate test` installs one).
import { promtool } from "../../apps/intake/test/support/promtool.ts";
import { compose, envFile, INFRA, interpolate, ROOT, readText, yamlFile } from "./deploy-files.ts";
import { intakeHealthPaths, workerListenerStatuses } from "./probe-routes.ts";

const file = compose();
const services = file.services as Record<string, Record<string, unknown> & { environment?: object }>;
const appServices = Object.entries(services).filter(([, service]) => service.build !== undefined);
const SECRETS = ["ADMIN_API_KEY", "CUSTOMER_TOKEN_SECRET", "ADMISSION_TOKEN_SECRET"];
// Valid stand-ins for infra/.env, to resolve the interpolation the way compose would.
const DOTENV = {
  POSTGRES_PASSWORD: "pw",
  ADMIN_API_KEY: "a".repeat(16),
  CUSTOMER_TOKEN_SECRET: "c".repeat(32),
  ADMISSION_TOKEN_SECRET: "s".repeat(32),
};
const environment = (name: string) => (services[name]?.environment ?? {}) as Record<string, string>;
const resolved = (name: string) =>
  Object.fromEntries(Object.entries(environment(name)).map(([k, v]) => [k, interpolate(String(v), DOTENV)]));
const probe = (name: string) => {
  const test = (services[name]?.healthcheck as { test: string[] }).test.join(" ");
  const match = /http:\/\/127\.0\.0\.1:(\d+)(\/\w+)/.exec(test);
  if (!match) throw new Error(`${name}: no http probe in ${test}`);
  return { port: Number(match[1]), path: match[2] as string };
};

describe("docker-compose.yml", () => {
  it("runs migrate, reconcile, intake and worker from the image, with no mounted code or node_modules", () => {
    expect(appServices.map(([name]) => name).sort()).toEqual(["intake", "migrate", "reconcile", "worker"]);
    for (const [name, service] of appServices) {
      expect(service.command, name).toEqual([name]);
      expect(service.volumes, name).toBeUndefined();
    }
  });

  it("gives the apps only variables the config reader knows, and a configuration it accepts", () => {
    const known = knownEnvironmentVariables();
    for (const [name] of appServices) {
      for (const variable of Object.keys(environment(name))) expect(known, name).toContain(variable);
      expect(() => loadConfig(resolved(name)), name).not.toThrow();
    }
  });

  it("takes every secret from infra/.env, required and without a default", () => {
    for (const secret of SECRETS) {
      expect(environment("intake")[secret]).toMatch(new RegExp(`^\\$\\{${secret}:\\?`));
    }
    expect(() => interpolate(String(environment("intake").ADMIN_API_KEY), {})).toThrow(/ADMIN_API_KEY/);
    expect(readText("infra/docker-compose.yml")).not.toMatch(/\$\{[A-Z_]*(PASSWORD|SECRET|KEY):-/);
  });

  it("migrates, then reconciles, before the intake and the workers start", () => {
    const dependsOn = (name: string) => services[name]?.depends_on as Record<string, { condition: string }>;
    expect(dependsOn("reconcile").migrate?.condition).toBe("service_completed_successfully");
    for (const name of ["intake", "worker"]) {
      expect(dependsOn(name).reconcile?.condition, name).toBe("service_completed_successfully");
    }
    for (const db of ["postgres", "postgres-shard-0", "postgres-shard-3"]) {
      expect(dependsOn("migrate")[db]?.condition).toBe("service_healthy");
    }
  });

  it("checks the intake's /readyz on its PORT and the worker's on WORKER_METRICS_PORT", async () => {
    const intake = probe("intake");
    expect(intake).toEqual({ port: loadConfig(resolved("intake")).port, path: "/readyz" });
    expect(intakeHealthPaths()).toContain(intake.path);
    const worker = probe("worker");
    expect(worker.port).toBe(loadConfig(resolved("worker")).workerMetricsPort);
    expect((await workerListenerStatuses([worker.path])).get(worker.path)).toBe(200);
  });

  it("runs Redis on redis.conf, which appends and fsyncs every second as infra/README.md says", () => {
    expect(services.redis?.command).toEqual(["redis-server", "/usr/local/etc/redis/redis.conf"]);
    const conf = readText("infra/redis/redis.conf");
    expect(conf).toMatch(/^appendonly yes$/m);
    expect(conf).toMatch(/^appendfsync everysec$/m);
    expect(readText("infra/README.md")).toContain("`appendfsync everysec`");
  });

  it("has Prometheus scrape the ports the intake and worker serve metrics on, and load rules/*.yml", () => {
    expect(services.prometheus?.volumes).toContain("./prometheus:/etc/prometheus:ro");
    expect(services.prometheus?.command).toContain("--config.file=/etc/prometheus/prometheus.yml");
    const prometheus = yamlFile("infra/prometheus/prometheus.yml");
    expect(prometheus.rule_files).toContain("rules/*.yml");
    const target = (job: string) =>
      prometheus.scrape_configs.find((c: { job_name: string }) => c.job_name === job).dns_sd_configs[0];
    expect(target("floodgate-intake")).toMatchObject({
      names: ["intake"],
      port: loadConfig(resolved("intake")).intakeMetricsPort,
    });
    expect(target("floodgate-worker")).toMatchObject({
      names: ["worker"],
      port: loadConfig(resolved("worker")).workerMetricsPort,
    });
  });

  it("has a prometheus.yml promtool accepts, loading the alert rules under rules/", async () => {
    const { code, output } = await promtool(ROOT, "check", "config", "infra/prometheus/prometheus.yml");
    expect(output).toMatch(/SUCCESS: [1-9]\d* rule files found/);
    expect(code).toBe(0);
  });

  it("provisions Grafana with that Prometheus and the dashboards folder", () => {
    const volumes = services.grafana?.volumes as string[];
    const dashboards = volumes.find((v) => v.startsWith("./grafana/dashboards:"))?.split(":")[1];
    const provider = yamlFile("infra/grafana/provisioning/dashboards/floodgate.yml").providers[0];
    expect(provider.options.path).toBe(dashboards);
    const source = yamlFile("infra/grafana/provisioning/datasources/prometheus.yml").datasources[0];
    expect(new URL(source.url).hostname in services).toBe(true);
  });
});

describe("infra/.env.example", () => {
  const example = envFile("infra/.env.example");
  const composeText = readFileSync(join(INFRA, "docker-compose.yml"), "utf8");

  it("names only variables compose interpolates", () => {
    for (const name of example.keys()) expect(composeText, name).toContain(`\${${name}`);
    for (const secret of [...SECRETS, "POSTGRES_PASSWORD", "GRAFANA_ADMIN_PASSWORD"]) {
      expect(example.has(secret), secret).toBe(true);
    }
  });

  it("holds placeholders the config reader refuses, never usable secrets", () => {
    for (const secret of SECRETS) {
      const env = { [secret]: example.get(secret) as string };
      expect(() => loadConfig(env), secret).toThrow(ConfigError);
      try {
        loadConfig(env);
      } catch (error) {
        expect((error as ConfigError).variable).toBe(secret);
      }
    }
  });
});
