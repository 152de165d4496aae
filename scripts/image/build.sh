#!/usr/bin/env bash
# Build the twin-runtime image: compile, stage /app, pick a base (the official Node image when it can
# be pulled, else one imported from the local Node.js), then `docker build`.
# Usage: scripts/image/build.sh [image tag]   (default $TWINS_IMAGE or twins-runtime:local)
set -euo pipefail
cd "$(dirname "$0")/../.."
tag=${1:-${TWINS_IMAGE:-twins-runtime:local}}
base=${TWINS_IMAGE_BASE:-node:20-bookworm-slim}
[ -f dist/twin-runtime/main.js ] || npx tsc -p tsconfig.json
node scripts/image/stage-app.mjs >/dev/null
if ! docker image inspect "$base" >/dev/null 2>&1 && ! docker pull -q "$base" >/dev/null 2>&1; then
  base=$(scripts/image/import-local-base.sh twins-node-base:local)
fi
docker build -q --build-arg "BASE=$base" -t "$tag" . >/dev/null
echo "$tag"
