#!/usr/bin/env bash
# Build a minimal base image from this machine's Node.js for engines that cannot pull base images:
# the node binary, the shared libraries it links, and a non-root user (uid 10001), imported with
# `docker import`. Usage: scripts/image/import-local-base.sh [tag]   (default twins-node-base:local)
set -euo pipefail
tag=${1:-twins-node-base:local}
node_bin=$(readlink -f "$(command -v node)")
# Imported once per Node binary: an image made from this very binary is used again.
made_from="twins.node-binary=$(sha256sum "$node_bin" | cut -c1-32)"
if [ "$(docker image inspect -f '{{index .Config.Labels "twins.node-binary"}}' "$tag" 2>/dev/null)" = "${made_from#*=}" ]; then
  echo "$tag"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root/usr/bin" "$root/etc" "$root/tmp" "$root/data" "$root/home/twin"
cp "$node_bin" "$root/usr/bin/node"
# Every shared library node links (and the dynamic loader), at the same paths.
ldd "$node_bin" | awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | while read -r lib; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
printf 'root:x:0:0:root:/root:/bin/false\ntwin:x:10001:10001:twin:/home/twin:/bin/false\n' > "$root/etc/passwd"
printf 'root:x:0:\ntwin:x:10001:\n' > "$root/etc/group"
chmod 1777 "$root/tmp"
chown 10001:10001 "$root/data" "$root/home/twin"
tar -C "$root" -cf "$work/base.tar" .
docker import --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' --change "LABEL $made_from" "$work/base.tar" "$tag" >/dev/null
echo "$tag"
