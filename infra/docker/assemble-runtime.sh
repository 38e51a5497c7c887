#!/bin/sh
# The production image's /app, assembled into the folder $1 from an installed checkout (`pnpm install` done;
# run from the repository root): the build, then the layout. The Dockerfile's build stage runs it, and so does
# infra/test/runtime-layout.test.ts into a temporary folder, so the layout tested is the layout shipped.
#
# Each deployed app (intake, worker, cli) lands at apps/<name>, as in the repository, with its own node_modules
# holding only production dependencies: `pnpm deploy --prod` from the lockfile, offline (the store already has
# every package). The workspace libraries are copied there as their package.json's "files" say (dist/, the
# JavaScript their build emitted): Node strips TypeScript types only outside node_modules, so the entry point sets
# the "floodgate-dist" export condition that maps each library to dist/. The apps' own src/*.ts stay TypeScript,
# which Node runs, being outside node_modules.
# inject-workspace-packages: pnpm 10 deploys from the shared lockfile only for injected workspace packages; set for
# this command alone, the repository keeps its links (where the libraries' src/ is used).
set -eu
out="$1"
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "assemble-runtime: $out is not empty" >&2
  exit 2
fi
# Every package's dist/: the libraries' JavaScript, the checkout SDK's browser bundle, @floodgate/node's.
pnpm exec turbo run build --output-logs=errors-only
for app in intake worker cli; do
  pnpm --config.inject-workspace-packages=true --filter "@floodgate/$app" deploy --prod --offline "$out/apps/$app"
  # The lockfile pnpm writes beside the deployed package: nothing installs from it again.
  rm -f "$out/apps/$app/pnpm-lock.yaml"
done
# The root manifest: Floodgate's version (the OpenAPI document reads it) and "type": "module" for infra/docker.
cp package.json "$out/package.json"
# The demo store's static page, which the intake serves at /demo/ from apps/web/public.
mkdir -p "$out/apps/web"
cp -R apps/web/public "$out/apps/web/public"
mkdir -p "$out/infra/docker"
cp infra/docker/entrypoint.sh infra/docker/healthcheck.ts "$out/infra/docker/"
