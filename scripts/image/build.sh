#!/usr/bin/env bash
# Build an image: compile, stage its /app, pick a base (the official Node image when it can be
# pulled, else one imported from the local Node.js), then `docker build` with that image's Dockerfile.
# Usage: scripts/image/build.sh [image tag] [twin-runtime|control-plane]
#   tag defaults to $TWINS_IMAGE or twins-runtime:local for the twin runtime,
#   twins-control-plane:local for the control plane.
#
# An image is labelled with a digest of everything it is made from (the compiled code, the lockfile,
# the Dockerfile, the staging script, the base): when an image with that label exists, it is tagged
# again instead of rebuilt, so the test files that each build an image share one build per change.
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${2:-twin-runtime}
case "$target" in
  twin-runtime) default_tag=${TWINS_IMAGE:-twins-runtime:local}; dockerfile=Dockerfile; dirs="twin-runtime twins seeds" ;;
  control-plane) default_tag=twins-control-plane:local; dockerfile=Dockerfile.control-plane; dirs="control-plane twin-runtime twins seeds" ;;
  *) echo "unknown image target '$target' (twin-runtime or control-plane)" >&2; exit 2 ;;
esac
tag=${1:-$default_tag}
base=${TWINS_IMAGE_BASE:-node:24-bookworm-slim}
[ -f dist/twin-runtime/main.js ] && [ -f dist/control-plane/cli/index.js ] || node node_modules/typescript7/bin/tsc -b tsconfig.json
if ! docker image inspect "$base" >/dev/null 2>&1 && ! docker pull -q "$base" >/dev/null 2>&1; then
  base=$(scripts/image/import-local-base.sh twins-node-base:local)
fi

inputs() {
  local d
  for d in $dirs; do (cd dist && find "$d" -type f ! -name '*.map' ! -name '*.d.ts' -print0); done | sort -z | (cd dist && xargs -0 sha256sum)
  find twins -path '*/spec/*' -type f -print0 | sort -z | xargs -0 sha256sum
  sha256sum package-lock.json "$dockerfile" scripts/image/stage-app.mjs
  [ "$target" = control-plane ] && sha256sum bin/* README.md
  docker image inspect -f '{{.Id}}' "$base"
}
digest=$(inputs | sha256sum | cut -c1-32)
label="twins.image-inputs=$target-$digest"
existing() { docker images -q --filter "label=$label" | head -1; }

mkdir -p build/image
# One build of a target at a time on this machine: a second caller waits, then finds the first's image.
exec 9>"build/image/$target.lock"
flock 9
id=$(existing)
if [ -n "$id" ]; then
  docker tag "$id" "$tag"
  echo "$tag"
  exit 0
fi
context=$(mktemp -d "build/image/$target.XXXXXX")
trap 'rm -rf "$context"' EXIT
node scripts/image/stage-app.mjs "$target" "$context" >/dev/null
# The context is this build's own staging folder: other builds may be staging concurrently.
docker build -q -f "$dockerfile" --label "$label" --build-arg "BASE=$base" -t "$tag" "$context" >/dev/null
echo "$tag"
