# Two commands for a new machine: `make dev` serves on the embedded default, `make test` runs every test.
# Both install what is missing first (npm ci from the lockfile) and build the TypeScript.

SHELL := /bin/bash
TWIN ?= stripe
export npm_config_fund := false
export npm_config_audit := false

.PHONY: dev test build install twin bench image image-control-plane typecheck lint clean

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: node_modules/.package-lock.json

dist/.built: install $(shell find control-plane twin-runtime twins seeds scripts -name '*.ts' 2>/dev/null) tsconfig.json
	npx tsc -p tsconfig.json
	@touch $@

# The web console (control-plane/console/web → dist/control-plane/console/web, served at /).
CONSOLE_OUT := dist/control-plane/console/web/index.html
$(CONSOLE_OUT): node_modules/.package-lock.json $(shell find control-plane/console/web -type f 2>/dev/null) control-plane/client/sdk-snippets.ts scripts/console/build.ts
	node --import=tsx scripts/console/build.ts

build: dist/.built $(CONSOLE_OUT)

# Under TWINS_DRIVER=docker the twin image is built first (it is what the containers run).
dev: build $(if $(filter docker,$(TWINS_DRIVER)),image)
	node bin/twins.js serve

# Format check and lint (Biome, biome.jsonc): any finding fails, warnings included.
lint: install
	npx biome ci --error-on-warnings .

test: build lint
	npx tsc -p tsconfig.test.json
	npx tsc -p control-plane/console/web/tsconfig.json
	# Tests send traffic only to loopback: a twin under test refuses any other delivery address.
	TWINS_EGRESS=loopback TWINS_TWIN_START_TIMEOUT_MS=$${TWINS_TWIN_START_TIMEOUT_MS:-60000} npx tap $(TAP_ARGS)

twin: build
	node bin/twins.js twin $(TWIN) $(if $(PORT),--port $(PORT))

typecheck: install
	npx tsc -p tsconfig.test.json
	npx tsc -p control-plane/console/web/tsconfig.json

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
