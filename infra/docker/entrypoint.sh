#!/bin/sh
# The image's entry point: its first argument names the process, the rest are that command's own options
# (e.g. `reconcile --dry-run`). exec: node replaces the shell, so it receives SIGTERM and drains.
set -eu
# The image's workspace libraries are JavaScript in dist/ (Node strips no types under node_modules): this export
# condition selects it (infra/docker/assemble-runtime.sh). Exported, so the processes `start` runs inherit it.
export NODE_OPTIONS="--conditions=floodgate-dist${NODE_OPTIONS:+ $NODE_OPTIONS}"
# The intake's young generation (INTAKE_SEMI_SPACE_MB, as `start` gives it: docs/configuration.md). A value that is
# not a number is left to the intake's configuration, which refuses it by name.
semi_space="${INTAKE_SEMI_SPACE_MB:-128}"
case "$semi_space" in
  '' | *[!0-9]*) intake_options="" ;;
  *) intake_options="--max-semi-space-size=$semi_space" ;;
esac
command="${1:-intake}"
[ "$#" -gt 0 ] && shift
case "$command" in
  # shellcheck disable=SC2086 # empty, or one option without spaces
  intake) exec node $intake_options apps/intake/src/server.ts "$@" ;;
  worker) exec node apps/worker/src/main.ts "$@" ;;
  migrate) exec node apps/cli/src/migrate-command.ts "$@" ;;
  reconcile) exec node apps/cli/src/reconcile-command.ts "$@" ;;
  start) exec node apps/cli/src/start-command.ts "$@" ;;
  dlq) exec node apps/cli/src/dlq-command.ts "$@" ;;
  *)
    echo "usage: <intake|worker|migrate|reconcile|start|dlq> [options]; got '$command'" >&2
    exit 2
    ;;
esac
