// infra/k8s, parsed: never applied here (no cluster). Environment, secrets, probes and the KEDA triggers are
// checked against the config reader, the apps' health routes and the queue's key layout.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { knownEnvironmentVariables, loadConfig } from "@floodgate/config";
import { CONSUMER_GROUP, QueueKeys } from "@floodgate/queue";
import { describe, expect, it } from "vitest";
import { INFRA, k8sDocuments, type Yaml } from "./deploy-files.ts";
import { intakeHealthPaths, workerListenerStatuses } from "./probe-routes.ts";

const documents = k8sDocuments();
const one = (kind: string, name: string): Yaml => {
  const found = documents.filter(({ doc }) => doc.kind === kind && doc.metadata?.name === name);
  expect(found, `${kind}/${name}`).toHaveLength(1);
  return found[0]?.doc;
};
const configMap = one("ConfigMap", "floodgate-config").data as Record<string, string>;
const podSpecs = documents
  .filter(({ doc }) => doc.kind === "Deployment" || doc.kind === "Job")
  .map(({ doc }) => ({ name: doc.metadata.name as string, spec: doc.spec.template.spec }));
const containers = podSpecs.flatMap(({ name, spec }) =>
  [...(spec.initContainers ?? []), ...spec.containers].map((c: Yaml) => ({ pod: name, container: c })),
);
const SECRETS = ["ADMIN_API_KEY", "CUSTOMER_TOKEN_SECRET", "ADMISSION_TOKEN_SECRET"];
const container = (deployment: string) => one("Deployment", deployment).spec.template.spec.containers[0];
// The configuration a pod reads: the ConfigMap, and valid stand-ins for the Secret's keys.
const podConfig = () =>
  loadConfig({
    ...configMap,
    ADMIN_API_KEY: "a".repeat(16),
    CUSTOMER_TOKEN_SECRET: "c".repeat(32),
    ADMISSION_TOKEN_SECRET: "s".repeat(32),
  });

describe("infra/k8s", () => {
  it("parses, names no namespace and lists every file in its kustomization", () => {
    for (const { file, doc } of documents) expect(doc.metadata?.namespace, file).toBeUndefined();
    const files = readdirSync(join(INFRA, "k8s")).filter(
      (f) => f.endsWith(".yaml") && f !== "kustomization.yaml",
    );
    const kustomization = documents.find(({ doc }) => doc.kind === "Kustomization")?.doc;
    expect([...kustomization.resources].sort()).toEqual(files.sort());
  });

  it("commits no Secret and no secret value: the pods reference floodgate-secrets", () => {
    expect(documents.filter(({ doc }) => doc.kind === "Secret")).toEqual([]);
    for (const secret of SECRETS) expect(Object.keys(configMap)).not.toContain(secret);
    const intakeEnv = container("floodgate-intake").env as Yaml[];
    for (const secret of [...SECRETS, "DATABASE_URL", "SHARD_URLS"]) {
      const entry = intakeEnv.find((e) => e.name === secret);
      expect(entry?.value, secret).toBeUndefined();
      expect(entry?.valueFrom?.secretKeyRef, secret).toEqual({ name: "floodgate-secrets", key: secret });
    }
  });

  it("sets only variables the config reader knows, as a configuration it accepts", () => {
    const known = knownEnvironmentVariables();
    for (const name of Object.keys(configMap)) expect(known).toContain(name);
    for (const { pod, container: c } of containers) {
      for (const entry of c.env ?? []) expect(known, `${pod}/${c.name}`).toContain(entry.name);
      expect(c.envFrom, `${pod}/${c.name}`).toEqual([{ configMapRef: { name: "floodgate-config" } }]);
      expect(["intake", "worker", "migrate", "reconcile"]).toContain(c.args[0]);
    }
    expect(() => podConfig()).not.toThrow();
  });

  it("probes the intake on PORT and the worker on WORKER_METRICS_PORT, at routes they serve", async () => {
    const config = podConfig();
    const intake = container("floodgate-intake");
    expect(intake.readinessProbe.httpGet).toEqual({ path: "/readyz", port: config.port });
    for (const probe of [intake.livenessProbe, intake.startupProbe]) {
      expect(probe.httpGet.port).toBe(config.port);
      expect(intakeHealthPaths()).toContain(probe.httpGet.path);
    }
    const worker = container("floodgate-worker");
    const paths = [worker.readinessProbe.httpGet.path, worker.livenessProbe.httpGet.path];
    expect(paths).toEqual(["/readyz", "/healthz"]);
    for (const probe of [worker.readinessProbe, worker.livenessProbe]) {
      expect(probe.httpGet.port).toBe(config.workerMetricsPort);
    }
    expect([...(await workerListenerStatuses(paths)).values()]).toEqual([200, 200]);
  });

  it("runs every container as a user other than root, read-only, with no capability to use or gain", () => {
    expect(podSpecs.map(({ name }) => name).sort()).toEqual([
      "floodgate-intake",
      "floodgate-migrate",
      "floodgate-worker",
    ]);
    for (const { name, spec } of podSpecs) {
      expect(spec.securityContext, name).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
      });
      expect(spec.securityContext.runAsUser, name).toBeGreaterThan(0);
    }
    expect(containers).toHaveLength(4);
    for (const { pod, container: c } of containers) {
      expect(c.securityContext, `${pod}/${c.name}`).toEqual({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
    }
  });

  it("lets a voluntary disruption take one pod of each Deployment at a time, and never blocks a drain", () => {
    const budgets = documents.filter(({ doc }) => doc.kind === "PodDisruptionBudget").map(({ doc }) => doc);
    const deployments = documents.filter(({ doc }) => doc.kind === "Deployment").map(({ doc }) => doc);
    const selects = (budget: Yaml, deployment: Yaml) =>
      Object.entries(budget.spec.selector.matchLabels).every(
        ([label, value]) => deployment.spec.template.metadata.labels[label] === value,
      );
    // The fewest replicas each may run: the HPA's and KEDA's minimums.
    const minimum: Record<string, number> = {
      "floodgate-intake": one("HorizontalPodAutoscaler", "floodgate-intake").spec.minReplicas,
      "floodgate-worker": one("ScaledObject", "floodgate-worker").spec.minReplicaCount,
    };
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(Object.keys(minimum).sort());
    for (const budget of budgets) {
      expect(
        deployments.filter((d) => selects(budget, d)),
        budget.metadata.name,
      ).toHaveLength(1);
    }
    for (const deployment of deployments) {
      const name = deployment.metadata.name as string;
      const matching = budgets.filter((budget) => selects(budget, deployment));
      expect(matching, name).toHaveLength(1);
      const spec = matching[0].spec;
      // An absolute count: a percentage of a large fleet, or minAvailable at the minimum, would not hold this.
      expect(spec.minAvailable, name).toBeUndefined();
      expect(spec.maxUnavailable, name).toBe(1);
      expect(spec.unhealthyPodEvictionPolicy, name).toBe("AlwaysAllow");
    }
    // At its minimum, one intake still answers while the other is evicted.
    expect(minimum["floodgate-intake"]).toBeGreaterThan(1);
  });

  it("scales the intake on CPU", () => {
    const hpa = one("HorizontalPodAutoscaler", "floodgate-intake").spec;
    expect(hpa.scaleTargetRef).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "floodgate-intake",
    });
    expect(hpa.metrics.map((m: Yaml) => m.resource.name)).toEqual(["cpu"]);
    expect(container("floodgate-intake").resources.requests.cpu).toBeDefined();
  });

  it("scales workers on the lag of every partition stream of the workers' consumer group", () => {
    const config = podConfig();
    const scaled = one("ScaledObject", "floodgate-worker").spec;
    expect(scaled.scaleTargetRef.name).toBe("floodgate-worker");
    const triggers = scaled.triggers as Yaml[];
    const keys = new QueueKeys(config.redisPrefix, config.streamPartitions);
    expect(triggers.map((t) => t.metadata.stream)).toEqual(keys.allStreams());
    const redis = new URL(config.redisUrl);
    for (const trigger of triggers) {
      expect(trigger.type).toBe("redis-streams");
      expect(trigger.metadata.consumerGroup).toBe(CONSUMER_GROUP);
      expect(trigger.metadata.address).toBe(`${redis.hostname}:${redis.port || 6379}`);
      expect(Number(trigger.metadata.lagCount)).toBeGreaterThan(0);
    }
  });

  it("migrates, then reconciles, in the Job", () => {
    const job = one("Job", "floodgate-migrate").spec.template.spec;
    expect(job.initContainers.map((c: Yaml) => c.args)).toEqual([["migrate"]]);
    expect(job.containers.map((c: Yaml) => c.args)).toEqual([["reconcile"]]);
  });
});
