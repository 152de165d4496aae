#!/usr/bin/env bash
# Make a Docker engine reachable for the Docker driver's suite: install Debian's docker.io when the
# engine is missing (root only), and start dockerd without a bridge or iptables (containers use host
# networking on loopback). Never fails the caller: without an engine the suite says it skipped.
set -u
if docker info >/dev/null 2>&1; then exit 0; fi
if ! command -v dockerd >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing docker.io for the Docker driver suite"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io) >/tmp/twins-docker-install.log 2>&1 \
      || { echo "docker.io could not be installed (see /tmp/twins-docker-install.log)"; exit 0; }
  else
    exit 0
  fi
fi
if [ "$(id -u)" = 0 ]; then
  nohup dockerd --bridge=none --iptables=false >/tmp/twins-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && exit 0
    sleep 0.5
  done
  echo "dockerd did not come up (see /tmp/twins-dockerd.log)"
fi
exit 0
