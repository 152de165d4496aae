# Two commands for a new machine: `make dev` serves on the embedded default, `make test` runs every test.
# Both install what is missing first (npm ci from the lockfile) and build the TypeScript; a built tree
# is not built again (`make -q build` answers 0 right after a build).
#
# Everything runs under the project's own Node.js (node_modules/.bin/node, the version pinned in
# package.json's optionalDependencies), whatever the machine's own Node is: `make node-version`.

SHELL := /bin/bash
TWIN ?= stripe
export npm_config_fund := false
export npm_config_audit := false
export npm_config_update_notifier := false
# The project's Node and tools first (node, tap, tsx, biome), for every recipe and what it starts.
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
# Node keeps the compiled code of every module it loads here: test files and the twins they start
# load the same thousands of modules (about a quarter less CPU per start).
export NODE_COMPILE_CACHE ?= $(CURDIR)/node_modules/.cache/node-compile

# TypeScript 7 (the native compiler) type-checks and emits: `tsc -b`, incremental, once per change.
# TypeScript 5 (`typescript`) stays for openapi-typescript's generator and editors.
TSC := node node_modules/typescript7/bin/tsc

.PHONY: dev test test-fast test-integration test-slow build typecheck lint install node-version twin bench image image-control-plane clean

# --- install ---------------------------------------------------------------------------------------

# The install's stamp is named after what it installed (package.json and the lockfile), not their
# times: a rebase or checkout that rewrites the lockfile unchanged does not install again.
INSTALL_DIGEST := $(shell cat package.json package-lock.json 2>/dev/null | sha1sum | cut -c1-12)
INSTALLED := node_modules/.installed-$(INSTALL_DIGEST)
# npm's warnings that the machine's Node is older than the packages want are beside the point: the
# project runs under its own Node (installed by this very npm ci).
NPM_CI_QUIET := $(shell node -e 'process.exit(+process.versions.node.split(".")[0] < 22)' 2>/dev/null || echo --loglevel=error)
$(INSTALLED):
	npm ci $(NPM_CI_QUIET)
	@rm -f node_modules/.installed-*; touch $@

install: $(INSTALLED)

# tap builds its test class for the plugins package.json names on its first run; built here once,
# before the tiers' two tap processes would both start building it.
TAP_BUILT := node_modules/.tap-built
$(TAP_BUILT): $(INSTALLED)
	tap build
	@touch $@

# The Node.js every target runs under (tests, tsx, tap, the CLI).
node-version: $(INSTALLED)
	@node --version

# --- build -----------------------------------------------------------------------------------------

# Sources of the emitted project (tsconfig.json) and of the checked one (tsconfig.test.json: tests,
# scripts, benches), each with its stamp: a stamp newer than every input means nothing to do.
SRC := $(shell find control-plane twin-runtime twins seeds -name '*.ts' -not -path 'control-plane/console/web/*' 2>/dev/null)
TEST_SRC := $(shell find test scripts examples -name '*.ts' 2>/dev/null)

# `tsc -b` skips a project whose own files did not change; after an install (new type definitions)
# it is forced to check again.
dist/.built: $(INSTALLED) $(SRC) tsconfig.json
	$(TSC) -b tsconfig.json $(if $(filter $(INSTALLED),$?),--force)
	@touch $@

dist/.checked: $(INSTALLED) dist/.built $(TEST_SRC) tsconfig.test.json
	$(TSC) -b tsconfig.test.json $(if $(filter $(INSTALLED),$?),--force)
	@touch $@

# The web console (control-plane/console/web → dist/control-plane/console/web, served at /).
CONSOLE_OUT := dist/control-plane/console/web/index.html
$(CONSOLE_OUT): $(INSTALLED) $(shell find control-plane/console/web -type f 2>/dev/null) control-plane/client/sdk-snippets.ts scripts/console/build.ts
	node --import=tsx scripts/console/build.ts

dist/.console-checked: $(INSTALLED) $(shell find control-plane/console/web -name '*.ts*' 2>/dev/null) control-plane/console/web/tsconfig.json
	$(TSC) -p control-plane/console/web/tsconfig.json
	@touch $@

build: dist/.built $(CONSOLE_OUT)

# Every TypeScript file type-checked: the code, the tests, scripts and benches, the console.
typecheck: dist/.checked dist/.console-checked

# Format check and lint (Biome, biome.jsonc): any finding fails, warnings included.
lint: $(INSTALLED)
	biome ci --error-on-warnings .

# --- run -------------------------------------------------------------------------------------------

# Under TWINS_DRIVER=docker the twin image is built first (it is what the containers run).
dev: build $(if $(filter docker,$(TWINS_DRIVER)),image)
	node bin/twins.js serve

twin: build
	node bin/twins.js twin $(TWIN) $(if $(PORT),--port $(PORT))

# --- tests -----------------------------------------------------------------------------------------

# Tiers. Slow: a Docker engine and image builds, a real browser, git and gh against the GitHub twin,
# a full disk for a minute, the benches' walk (minutes, mostly waiting on other programs). Integration: a whole control plane,
# the CLI as a process, billing flows, twin processes under orchestration. Fast: the unit and contract
# tests (a twin in-process answering the official SDKs and clients), every other file.
# `make test-fast` runs the fast tier; `make test` runs every file: the slow tier one file at a time
# beside the others' jobs.
SLOW_TESTS := $(sort $(wildcard \
  test/drivers/docker.test.ts test/drivers/compose.test.ts test/drivers/control-plane-image.test.ts test/drivers/testcontainers.test.ts \
  test/console/browser.test.ts test/console/oidc-sign-in.test.ts test/control-plane/full-disk.test.ts \
  test/twins/github/gh-cli.test.ts test/twins/github/gh-fork.test.ts test/twins/github/git-http.test.ts \
  test/twins/github/forks.test.ts test/twins/github/redirects.test.ts test/twins/github/pack-writer.test.ts \
  test/generic/walks.test.ts))
# Integration: every file under the control plane's folders and the few named elsewhere, but for the unit
# tests that live in those folders (the first list: no control plane, no process of ours).
INTEGRATION_TESTS := $(filter-out $(SLOW_TESTS) $(wildcard \
    test/billing/usage.test.ts test/cli/usage.test.ts test/cli/completion-shell.test.ts test/console/web-lib.test.ts \
    test/drivers/deploy-manifests.test.ts test/drivers/kubernetes.test.ts),\
  $(sort $(shell find test/control-plane test/billing test/cli test/console test/orchestration test/mcp test/security test/drivers -name '*.test.ts' 2>/dev/null) \
    $(wildcard test/gateway/durability.test.ts test/gateway/drain.test.ts test/seeds/api.test.ts test/seeds/environment-from-seed.test.ts \
      test/testing/sdk-traffic.test.ts test/testing/tests-api.test.ts test/twin-runtime/egress.test.ts test/generic/coverage.test.ts)))
ALL_TESTS := $(sort $(shell find test -name '*.test.ts' 2>/dev/null))
FAST_TESTS := $(filter-out $(SLOW_TESTS) $(INTEGRATION_TESTS),$(ALL_TESTS))

# Tests send traffic only to loopback: a twin under test refuses any other delivery address.
TEST_ENV := TWINS_EGRESS=loopback TWINS_TWIN_START_TIMEOUT_MS=$${TWINS_TWIN_START_TIMEOUT_MS:-60000}
JOBS ?= 2
# tap without its per-process module bookkeeping (coverage and `tap --changed`, unused here): 0.6–0.8 s
# of CPU less for every test file and every process a test starts (scripts/test/tap.mjs).
TAP := node scripts/test/tap.mjs
# A slow file mostly waits on other programs (an image build, a browser, a minute of full disk): it
# gets 5 minutes instead of package.json's 120 s (compose took 125 s in CI, full-disk 88 s).
SLOW_TAP := $(TAP) --jobs=1 --timeout=$${TWINS_SLOW_TEST_TIMEOUT_S:-300}

test-fast: build typecheck lint $(TAP_BUILT)
	$(TEST_ENV) $(TAP) --jobs=$(JOBS) $(TAP_ARGS) $(FAST_TESTS)

test-integration: build typecheck $(TAP_BUILT)
	$(TEST_ENV) $(TAP) --jobs=$(JOBS) $(TAP_ARGS) $(INTEGRATION_TESTS)

# The slow tier's system tools (Docker engine, Chromium, git, gh) are installed first where missing
# and possible (scripts/ci/ensure-tools.sh), outside any test's time budget.
test-slow: build typecheck $(TAP_BUILT)
	@scripts/ci/ensure-tools.sh
	$(TEST_ENV) $(SLOW_TAP) $(TAP_ARGS) $(SLOW_TESTS)

# The slow tier (its tools installed first) runs beside the others, its report following theirs;
# the exit status is the worse.
test: build typecheck lint $(TAP_BUILT)
	@slow_log=$$(mktemp); \
	( scripts/ci/ensure-tools.sh; $(TEST_ENV) $(SLOW_TAP) $(TAP_ARGS) $(SLOW_TESTS); echo $$? >"$$slow_log.rc" ) >"$$slow_log" 2>&1 & \
	$(TEST_ENV) $(TAP) --jobs=$(JOBS) $(TAP_ARGS) $(INTEGRATION_TESTS) $(FAST_TESTS); others=$$?; \
	wait; echo "# slow tier ($(words $(SLOW_TESTS)) files):"; cat "$$slow_log"; slow=$$(cat "$$slow_log.rc"); \
	rm -f "$$slow_log" "$$slow_log.rc"; \
	echo "# $(words $(ALL_TESTS)) test files: $(words $(FAST_TESTS)) fast, $(words $(INTEGRATION_TESTS)) integration (exit $$others), $(words $(SLOW_TESTS)) slow (exit $$slow)"; \
	[ "$$others" -eq 0 ] && [ "$$slow" -eq 0 ]

# --- benches and images ----------------------------------------------------------------------------

BENCHES ?= environments gateway seeds evaluate stripe-vs-stateful-mock hostile-input cli-start

# Every benchmark in turn (loopback only, bounded); `make bench BENCHES=gateway` runs one.
bench: build
	@for b in $(BENCHES); do echo "== $$b"; node --import=tsx scripts/bench/$$b.ts || exit 1; done

image: build
	scripts/image/build.sh

# The control-plane image deploy/control-plane.yaml runs.
image-control-plane: build
	scripts/image/build.sh "" control-plane

clean:
	rm -rf dist .tap
