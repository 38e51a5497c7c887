# syntax=docker/dockerfile:1
# One image for every Floodgate process: `docker run floodgate intake|worker|migrate|reconcile|start|dlq`
# (infra/docker/entrypoint.sh maps each to its script). Node runs the TypeScript directly (type stripping), so
# the image is the repo with its dependencies installed, plus what `turbo run build` produces (the checkout
# SDK's dist/, which the intake serves to the demo, and @floodgate/node's, which the worker imports); the build
# step is skipped if no build task exists.
# Never built on the development machine (no Docker engine there); infra/test/dockerfile.test.ts parses it.

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
# Again after the full copy: it only links the workspace (no download); then a build task, if one exists.
RUN pnpm install --frozen-lockfile --offline \
  && if node -e "process.exit(require('./turbo.json').tasks.build ? 0 : 1)"; then pnpm exec turbo run build; fi

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
COPY --from=build --chown=node:node /app /app
# The image's own unprivileged user (uid 1000); nothing in /app is written at run time.
USER node
EXPOSE 3000 9464 9480
ENTRYPOINT ["/app/infra/docker/entrypoint.sh"]
CMD ["intake"]
