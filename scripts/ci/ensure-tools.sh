#!/usr/bin/env bash
# What the slow tier needs from the system: a Docker engine, Chromium, git and gh. Missing ones are
# installed with apt in one run when this is root on a machine with apt (a clean CI machine), before
# the slow tier's first test rather than inside a test's time budget; then the engine is started
# (ensure-docker.sh). TWINS_INSTALL_TOOLS=0 installs nothing. Never fails the caller: a test whose
# tool is missing skips, saying why.
set -u
missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
[ -x /usr/bin/chromium ] || [ -x /usr/bin/chromium-browser ] || missing+=(chromium)
command -v git >/dev/null 2>&1 || missing+=(git)
command -v gh >/dev/null 2>&1 || missing+=(gh)
if [ ${#missing[@]} -gt 0 ] && [ "${TWINS_INSTALL_TOOLS:-1}" != 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "# installing ${missing[*]} for the slow tests"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}") >/tmp/twins-tools-install.log 2>&1 \
    || echo "# apt-get could not install them (see /tmp/twins-tools-install.log)"
fi
exec "$(dirname "$0")/ensure-docker.sh"
