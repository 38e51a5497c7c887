# syntax=docker/dockerfile:1
# One image for every Floodgate process: `docker run floodgate intake|worker|migrate|reconcile|start|dlq`
# (infra/docker/entrypoint.sh maps each to its script). The build stage installs everything and runs
# infra/docker/assemble-runtime.sh: the build (every workspace package's dist/), then `pnpm deploy --prod` of the
# intake, the worker and the CLI. The runtime stage is that layout alone: production dependencies, the workspace
# libraries as JavaScript (Node strips no types under node_modules), the apps' own TypeScript, which Node runs.
# Never built on the development machine (no Docker engine there); infra/test/dockerfile.test.ts parses it and
# infra/test/runtime-layout.test.ts assembles the runtime stage's /app with the same script and runs it.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# The pnpm version of package.json's packageManager (the test checks they agree).
RUN npm install -g pnpm@10.34.9
# Manifests first, so the install layer is reused while they and the lockfile are unchanged (the packages come
# whole: COPY cannot pick their manifests alone).
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY apps/cli/package.json apps/cli/
COPY apps/intake/package.json apps/intake/
COPY apps/web/package.json apps/web/
COPY apps/worker/package.json apps/worker/
COPY bench/package.json bench/
COPY infra/package.json infra/
COPY packages/ packages/
RUN pnpm install --frozen-lockfile

FROM deps AS build
COPY . .
# Again after the full copy: it only links the workspace (no download). Then the build and the runtime layout,
# deployed from the same store offline.
RUN pnpm install --frozen-lockfile --offline \
  && infra/docker/assemble-runtime.sh /runtime

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# Owned by root, read by the image's unprivileged user (uid 1000): nothing in /app is written at run time, and
# the manifests mount the root filesystem read-only.
COPY --from=build /runtime /app
USER node
EXPOSE 3000 9464 9480
# Asks the container's process (the intake on PORT, a worker on WORKER_METRICS_PORT) for its /healthz; one-off
# commands (migrate, reconcile, dlq) count as healthy while they run. Kubernetes ignores it (its probes decide).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "/app/infra/docker/healthcheck.ts"]
ENTRYPOINT ["/app/infra/docker/entrypoint.sh"]
CMD ["intake"]
