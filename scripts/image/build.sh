#!/usr/bin/env bash
# Build an image: compile, stage its /app, pick a base (the official Node image when it can be
# pulled, else one imported from the local Node.js), then `docker build` with that image's Dockerfile.
# Usage: scripts/image/build.sh [image tag] [twin-runtime|control-plane]
#   tag defaults to $TWINS_IMAGE or twins-runtime:local for the twin runtime,
#   twins-control-plane:local for the control plane.
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${2:-twin-runtime}
case "$target" in
  twin-runtime) default_tag=${TWINS_IMAGE:-twins-runtime:local}; dockerfile=Dockerfile ;;
  control-plane) default_tag=twins-control-plane:local; dockerfile=Dockerfile.control-plane ;;
  *) echo "unknown image target '$target' (twin-runtime or control-plane)" >&2; exit 2 ;;
esac
tag=${1:-$default_tag}
base=${TWINS_IMAGE_BASE:-node:20-bookworm-slim}
[ -f dist/twin-runtime/main.js ] && [ -f dist/control-plane/cli/index.js ] || npx tsc -p tsconfig.json
node scripts/image/stage-app.mjs "$target" >/dev/null
if ! docker image inspect "$base" >/dev/null 2>&1 && ! docker pull -q "$base" >/dev/null 2>&1; then
  base=$(scripts/image/import-local-base.sh twins-node-base:local)
fi
# The context is this image's staging folder alone: the other image may be staging concurrently.
docker build -q -f "$dockerfile" --build-arg "BASE=$base" -t "$tag" "build/image/$target" >/dev/null
echo "$tag"
