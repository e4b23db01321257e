# One-command stack for the research data repository (see docs and `make help`).
# Works on a fresh Debian machine with only node/npm/make/apt: every target installs what it
# needs (pnpm, node_modules, PostgreSQL, nats-server) and starts the infrastructure it uses.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
# `make user` must print nothing but the CLI's own output (its last stdout line is JSON).
MAKEFLAGS += --no-print-directory
.DEFAULT_GOAL := help

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
TSX := $(ROOT)/node_modules/.bin/tsx
INFRA := $(ROOT)/scripts/infra
DEPS_STAMP := $(ROOT)/node_modules/.rdm-deps-stamp
export PATH := $(ROOT)/.tools/bin:$(ROOT)/node_modules/.bin:$(PATH)

.PHONY: help up deps browser iiif-validator node-deps pnpm infra minio opensearch migrate stop clean distclean \
	test test-unit test-integration test-faults test-e2e fuzz bench lint typecheck \
	user revoke-token deactivate-user migrate-from-invenio test-migration kind-build kind-up kind-down test-kind reindex vocabularies-import build images chart-check docker-up docker-down

help: ## list targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z0-9-]+):.*## (.*)/  make \1\t\2/' | expand -t 28

up: deps infra ## start Postgres + NATS, migrate, run the compiled services (rebuilt when stale) and the gateway; DEV=1: tsx + reload; SEARCH_ENGINE=opensearch: also OpenSearch
	@if [ "$${SEARCH_ENGINE:-postgres}" != postgres ] && [ -z "$${SEARCH_URL:-}" ]; then bash $(INFRA)/opensearch.sh start; fi
	@cd $(ROOT) && exec $(TSX) scripts/up.ts

deps: node-deps ## install pnpm, node_modules, PostgreSQL, nats-server and xmllint when missing
	@bash $(INFRA)/postgres.sh install
	@bash $(INFRA)/nats.sh install
	@bash $(INFRA)/xmllint.sh install

browser: ## install Debian's chromium when missing (the landing pages' browser spec; make test and test-e2e need it)
	@bash $(INFRA)/chromium.sh install

iiif-validator: ## install the IIIF Image API validator (PyPI iiif-validator) in a venv under ~/.cache/rdm when missing (the IIIF validator spec; make test and test-e2e need it)
	@bash $(INFRA)/iiif-validator.sh install

pnpm:
	@command -v pnpm >/dev/null 2>&1 || { echo "installing pnpm@9 (npm install -g pnpm@9)" >&2; \
		npm install -g pnpm@9 >&2 || { echo "error: npm install -g pnpm@9 failed" >&2; exit 1; }; }

# pnpm install only when node_modules is missing or the lockfile changed since the last install.
# Its output goes to stderr so that stdout stays clean for targets such as `make user`.
node-deps: pnpm
	@cd $(ROOT); if [ ! -f $(DEPS_STAMP) ] || [ pnpm-lock.yaml -nt $(DEPS_STAMP) ] || [ package.json -nt $(DEPS_STAMP) ]; then \
		echo "pnpm install --frozen-lockfile" >&2; \
		CI=true pnpm install --frozen-lockfile >&2 && touch $(DEPS_STAMP); \
	fi

infra: ## start PostgreSQL and NATS (installing them when absent)
	@bash $(INFRA)/postgres.sh start
	@bash $(INFRA)/nats.sh start

minio: ## build (first time: minutes) and start MinIO on 127.0.0.1:9000
	@bash $(INFRA)/minio.sh start

opensearch: ## build (first time: 1-2 min, Maven) and start a single-node OpenSearch 2.19 on 127.0.0.1:9200
	@bash $(INFRA)/opensearch.sh start

migrate: deps infra ## run every service's migrations (and fixtures scripts)
	@cd $(ROOT) && $(TSX) scripts/up.ts --migrate-only

stop: ## stop the infrastructure (NATS/MinIO only if these scripts started them; PostgreSQL cluster)
	@bash $(INFRA)/nats.sh stop
	@bash $(INFRA)/minio.sh stop
	@bash $(INFRA)/opensearch.sh stop
	@bash $(INFRA)/postgres.sh stop

clean: stop ## stop infra and remove local state (.data, coverage); keeps node_modules and .tools
	@cd $(ROOT); if (exec 3<>/dev/tcp/127.0.0.1/4222) 2>/dev/null; then \
		echo "note: a NATS server not started by scripts/infra/nats.sh still runs; keeping .data/nats" >&2; \
		find .data -mindepth 1 -maxdepth 1 ! -name nats -exec rm -rf {} +; \
	else rm -rf .data; fi; rm -rf coverage

distclean: clean ## clean + remove node_modules and .tools (the MinIO build)
	@cd $(ROOT) && rm -rf node_modules services/*/node_modules e2e/node_modules .tools

# ---------------------------------------------------------------- tests

VITEST := cd $(ROOT) && $(ROOT)/node_modules/.bin/vitest run

# MinIO (needed by the files integration tests; a cold build takes minutes) and OpenSearch start in
# the background while the unit tests run, and are waited for before the integration tests. One that
# does not start fails the run under CI; elsewhere its suites are skipped, loudly, and the summary
# counts and names them (.data/test-results/*.skipped.json for what did not run at all: the e2e run
# on OpenSearch). At the end the run stops what it started itself (INFRA_RUN_ID, `stop-run`), and
# only that: a server it reused — started by `make minio`/`make opensearch`, another run or another
# checkout — keeps running. KEEP_INFRA=1 leaves what it started running too (`make stop` stops it).
# E2E_RUNTIME=containers: the e2e phases run the stack from the images built here
# (scripts/images.sh, in the background once MinIO and OpenSearch are built, waited for before the
# integration tests so that it never competes with them), through testcontainers, and the
# `containers` project checks the runtime's failure modes (the default); E2E_RUNTIME=processes: the
# e2e stack of processes (no engine, no images), what `make up` runs for development.
E2E_RUNTIME ?= containers
test: deps browser iiif-validator infra ## typecheck, lint, unit, charts, integration, fault trials (short form, 3 per kill point), images + container checks (E2E_RUNTIME=containers), e2e on PostgreSQL search and again on OpenSearch, then a summary; fails if any project fails
	@cd $(ROOT); rc=0; summary=""; opensearch_up=1; images_pid=""; export E2E_RUNTIME=$(E2E_RUNTIME); \
	case "$$E2E_RUNTIME" in containers|processes) ;; *) echo "E2E_RUNTIME=$$E2E_RUNTIME: expected containers or processes" >&2; exit 2;; esac; \
	case "$${CI:-}" in ""|false|0) ci=0 ;; *) ci=1 ;; esac; \
	rm -rf .data/test-results; mkdir -p .data/test-results; \
	run_id="make-test-$$$$-$$(date +%s)"; \
	stop_started() { \
		if [ -n "$${KEEP_INFRA:-}" ]; then echo "KEEP_INFRA: what this run started keeps running (make stop stops it)" >&2; return 0; fi; \
		bash $(INFRA)/minio.sh stop-run "$$run_id" || true; \
		bash $(INFRA)/opensearch.sh stop-run "$$run_id" || true; \
	}; \
	trap stop_started EXIT; trap 'exit 130' INT TERM; \
	not_run() { printf '{"what":"%s","reason":"%s"%s}\n' "$$1" "$$2" "$${3:+,\"like\":\"$$3\"}" >".data/test-results/$$4.skipped.json"; }; \
	missing() { \
		cat ".data/$$1-start.log" >&2; \
		if [ $$ci = 1 ]; then \
			printf '\n\033[1;31m!!! %s did not start: under CI this fails the run (log: .data/%s-start.log)\033[0m\n' "$$2" "$$1" >&2; \
			rc=1; summary="$$summary$$(printf '  %-12s %s' "$$1" 'FAIL (did not start; CI)')\n"; \
		else \
			printf '\n\033[1;33m!!! %s did not start: %s SKIPPED (log: .data/%s-start.log)\033[0m\n' "$$2" "$$3" "$$1" >&2; \
			not_run "$$2" "did not start (.data/$$1-start.log): $$3 skipped" "" "$$1"; \
			summary="$$summary$$(printf '  %-12s %s' "$$1" 'SKIPPED (did not start)')\n"; \
		fi; \
	}; \
	INFRA_RUN_ID=$$run_id bash $(INFRA)/minio.sh start >.data/minio-start.log 2>&1 & minio_pid=$$!; \
	INFRA_RUN_ID=$$run_id bash $(INFRA)/opensearch.sh start >.data/opensearch-start.log 2>&1 & opensearch_pid=$$!; \
	if [ "$$E2E_RUNTIME" = containers ]; then \
		( while kill -0 $$minio_pid 2>/dev/null || kill -0 $$opensearch_pid 2>/dev/null; do sleep 2; done; \
		  s=$$(date +%s); bash scripts/images.sh all; r=$$?; echo "images: exit $$r after $$(( $$(date +%s) - s ))s"; exit $$r ) \
		  >.data/images-build.log 2>&1 & images_pid=$$!; fi; \
	printf '\n\033[1m=== typecheck ===\033[0m\n'; start=$$(date +%s); \
	if $(MAKE) -s typecheck; then r=PASS; else r=FAIL; rc=1; fi; \
	summary="$$summary$$(printf '  %-12s %s (%ss)' typecheck "$$r" "$$(( $$(date +%s) - start ))")\n"; \
	printf '\n\033[1m=== lint ===\033[0m\n'; start=$$(date +%s); \
	if $(MAKE) -s lint; then r=PASS; else r=FAIL; rc=1; fi; \
	summary="$$summary$$(printf '  %-12s %s (%ss)' lint "$$r" "$$(( $$(date +%s) - start ))")\n"; \
	projects="unit charts integration faults e2e e2e-opensearch"; \
	if [ "$$E2E_RUNTIME" = containers ]; then projects="unit charts integration faults containers e2e e2e-opensearch"; fi; \
	for p in $$projects; do \
		proj=$$p; engine=$${SEARCH_ENGINE:-postgres}; \
		if [ "$$p" = e2e-opensearch ]; then proj=e2e; engine=opensearch; fi; \
		if [ "$$p" = e2e-opensearch ] && [ $$opensearch_up = 0 ]; then \
			if [ $$ci = 1 ]; then r=FAIL; rc=1; else r=SKIPPED; not_run "e2e on OpenSearch" "not run: OpenSearch did not start" e2e e2e-opensearch; fi; \
			printf '\n\033[1;33m!!! vitest --project e2e on OpenSearch: %s (OpenSearch did not start)\033[0m\n' "$$r" >&2; \
			summary="$$summary$$(printf '  %-12s %s' "$$p" "$$r (OpenSearch did not start)")\n"; continue; \
		fi; \
		if [ "$$p" = integration ] && [ -n "$$images_pid" ]; then \
			printf '\n\033[1m=== images (E2E_RUNTIME=containers) ===\033[0m\n'; start=$$(date +%s); \
			if kill -0 $$images_pid 2>/dev/null; then echo "waiting for the image builds (log: .data/images-build.log)" >&2; fi; \
			if wait $$images_pid; then r=PASS; else r=FAIL; rc=1; echo "error: make images failed; the container checks and e2e cannot run (see above)" >&2; fi; \
			cat .data/images-build.log; \
			summary="$$summary$$(printf '  %-12s %s (waited %ss; %s)' images "$$r" "$$(( $$(date +%s) - start ))" "$$(tail -1 .data/images-build.log)")\n"; \
		fi; \
		printf '\n\033[1m=== vitest --project %s (search engine: %s, e2e runtime: %s) ===\033[0m\n' "$$proj" "$$engine" "$$E2E_RUNTIME"; \
		start=$$(date +%s); \
		if [ "$$p" = integration ] && kill -0 $$minio_pid 2>/dev/null; then \
			echo "waiting for MinIO to build/start (log: .data/minio-start.log)" >&2; fi; \
		if [ "$$p" = integration ] && ! wait $$minio_pid; then missing minio MinIO 'the S3 suites of files'; fi; \
		if [ "$$p" = integration ] && ! wait $$opensearch_pid; then \
			opensearch_up=0; missing opensearch OpenSearch 'the OpenSearch/Elasticsearch suites and the e2e run on OpenSearch'; fi; \
		if SEARCH_ENGINE=$$engine $(ROOT)/node_modules/.bin/vitest run --project "$$proj" --reporter=default --reporter=json --outputFile.json=.data/test-results/$$p.json; then r=PASS; else r=FAIL; rc=1; fi; \
		summary="$$summary$$(printf '  %-12s %s (%ss)' "$$p" "$$r" "$$(( $$(date +%s) - start ))")\n"; \
	done; \
	printf '\n\033[1m=== test summary (e2e runtime: %s) ===\033[0m\n%b' "$$E2E_RUNTIME" "$$summary"; \
	node scripts/test-summary.mjs .data/test-results || rc=1; \
	if [ $$rc -ne 0 ]; then echo "make test: FAILED" >&2; else echo "make test: all passed"; fi; \
	exit $$rc

test-unit: deps ## unit tests only
	@$(VITEST) --project unit

test-integration: deps infra minio opensearch ## integration tests (real PostgreSQL, NATS and MinIO)
	@$(VITEST) --project integration

test-faults: deps infra ## fault trials, long form: kill -9 / NATS restarts mid-saga, FAULT_TRIALS (20) per kill point (private stack on 5940-5947, its PostgreSQL on 5959)
	@cd $(ROOT) && FAULT_TRIALS=$${FAULT_TRIALS:-20} $(ROOT)/node_modules/.bin/vitest run --project faults

migrate-from-invenio: node-deps infra ## make migrate-from-invenio URL=<InvenioRDM> TOKEN=<admin token> [SINCE=<ISO date>] [DRY_RUN=1] [REPORT=<file>]: copy records with every version and file over its REST API into the running stack (services/migration)
	@if [ -z "$${URL:-}" ] || [ -z "$${TOKEN:-}" ]; then echo 'usage: make migrate-from-invenio URL=<https://old.example.org> TOKEN=<admin token> [SINCE=<ISO date>] [DRY_RUN=1] [REPORT=<file>]' >&2; exit 2; fi
	@set -- run --url "$$URL" --token "$$TOKEN"; \
	if [ -n "$${SINCE:-}" ]; then set -- "$$@" --since "$$SINCE"; fi; \
	case "$${DRY_RUN:-}" in 1|true|yes) set -- "$$@" --dry-run ;; esac; \
	if [ -n "$${REPORT:-}" ]; then set -- "$$@" --report "$$(realpath -m "$$REPORT")"; fi; \
	cd $(ROOT)/services/migration && $(TSX) src/main.ts migrate >/dev/null && exec $(TSX) src/main.ts "$$@"

test-migration: deps infra ## the migration from a real InvenioRDM (../shared/invenio-reference, up.sh): seed it, migrate into an e2e stack, compare field by field; not in make test; under CI fails when the reference is unreachable
	@cd $(ROOT) && E2E_RUNTIME=processes $(ROOT)/node_modules/.bin/vitest run --project migration

reindex: node-deps infra ## make reindex SERVICE=<svc>: rebuild the service's search index from PostgreSQL and swap its alias (SEARCH_ENGINE=opensearch|elasticsearch)
	@if [ -z "$${SERVICE:-}" ]; then echo 'usage: make reindex SERVICE=<records|communities|requests|users|vocabularies> [SEARCH_ENGINE=opensearch] [SEARCH_URL=…]' >&2; exit 2; fi
	@cd $(ROOT)/services/$$SERVICE && SEARCH_ENGINE=$${SEARCH_ENGINE:-opensearch} $(TSX) src/main.ts reindex

vocabularies-import: node-deps infra ## make vocabularies-import TYPE=affiliations SOURCE=<file> [FORMAT=ror-v2]: run an import job here (progress, then a summary)
	@if [ -z "$${TYPE:-}" ] || [ -z "$${SOURCE:-}" ]; then echo 'usage: make vocabularies-import TYPE=<vocabulary type> SOURCE=<file> [FORMAT=ror-v2|jsonl|csv|yaml|orcid|openaire|cordis|skos|mesh]' >&2; exit 2; fi
	@src="$$(realpath "$$SOURCE")" || exit 2; cd $(ROOT)/services/vocabularies && $(TSX) src/main.ts migrate >/dev/null && \
		$(TSX) src/main.ts import --type "$$TYPE" --source "$$src" --format "$${FORMAT:-ror-v2}"

test-e2e: deps browser iiif-validator infra ## e2e tests; E2E_RUNTIME=containers (default: images + testcontainers, gateway on 5900) or processes (ports 5900-5908)
	@if [ "$(E2E_RUNTIME)" = containers ]; then cd $(ROOT) && bash scripts/images.sh all; fi
	@cd $(ROOT) && E2E_RUNTIME=$(E2E_RUNTIME) $(ROOT)/node_modules/.bin/vitest run --project e2e

# Long fuzzing: the e2e fuzz spec with more examples and every schemathesis phase; reports in .data/fuzz/.
fuzz: deps infra ## API fuzzing from /api/openapi.json, long form (FUZZ_MAX_EXAMPLES 100, FUZZ_PHASES, FUZZ_SEED, FUZZ_MAX_TIME s)
	@cd $(ROOT) && FUZZ_MAX_EXAMPLES=$${FUZZ_MAX_EXAMPLES:-100} FUZZ_PHASES=$${FUZZ_PHASES:-examples,coverage,fuzzing,stateful} \
		$(ROOT)/node_modules/.bin/vitest run --project e2e e2e/specs/fuzz

bench: deps infra ## every scripts/bench/*.bench.ts in order
	@cd $(ROOT) && $(TSX) scripts/bench/run-all.ts

lint: deps ## biome check
	@cd $(ROOT) && biome check .

typecheck: deps ## tsc over every package (the platform included), the e2e and fault suites, scripts (benches included) and the chart tests
	@cd $(ROOT); pnpm -r --workspace-concurrency=1 --if-present run typecheck && tsc -p e2e/tsconfig.json \
		&& tsc -p scripts/tsconfig.json && tsc -p charts/test/tsconfig.json

# ---------------------------------------------------------------- users CLI
# The CLI prints a JSON object as its last stdout line; nothing here writes to stdout.
# Values are read from the environment ($$EMAIL …), which make fills from the command line, so
# quotes in NAME cannot break the shell.

USERS_CLI := pnpm --silent --filter @rdm/users exec tsx src/cli.ts

user: node-deps infra ## make user EMAIL=<email> [ADMIN=1] [NAME="Full Name"] [VISIBILITY=public|restricted]
	@if [ -z "$${EMAIL:-}" ]; then echo 'usage: make user EMAIL=<email> [ADMIN=1] [NAME="Full Name"] [VISIBILITY=public|restricted]' >&2; exit 2; fi
	@set -- create-user --email "$$EMAIL"; \
	case "$${ADMIN:-}" in 1|true|yes) set -- "$$@" --admin ;; esac; \
	if [ -n "$${NAME:-}" ]; then set -- "$$@" --name "$$NAME"; fi; \
	if [ -n "$${VISIBILITY:-}" ]; then set -- "$$@" --visibility "$$VISIBILITY"; fi; \
	cd $(ROOT) && $(USERS_CLI) "$$@"

revoke-token: node-deps infra ## make revoke-token TOKEN_ID=<id>
	@if [ -z "$${TOKEN_ID:-}" ]; then echo 'usage: make revoke-token TOKEN_ID=<id>' >&2; exit 2; fi
	@cd $(ROOT) && $(USERS_CLI) revoke-token --id "$$TOKEN_ID"

deactivate-user: node-deps infra ## make deactivate-user EMAIL=<email>
	@if [ -z "$${EMAIL:-}" ]; then echo 'usage: make deactivate-user EMAIL=<email>' >&2; exit 2; fi
	@cd $(ROOT) && $(USERS_CLI) deactivate-user --email "$$EMAIL"

# ---------------------------------------------------------------- build, images, Kubernetes

build: node-deps ## bundle every service into dist/<svc>/ (esbuild, source maps; what images and `make up` run)
	@cd $(ROOT) && $(TSX) scripts/build.ts

# Every image, built here (scripts/images.sh: Debian base by debootstrap, the service image with the
# pinned node binary, PostgreSQL 15, NATS, MinIO, OpenSearch 2.19), cached by content: a second run
# with nothing changed takes seconds. Starts the project's Docker engine when none answers.
# Figures (times, sizes) are printed at the end and kept in .data/images-times.txt.
IMAGE ?= rdm:dev
IMAGES ?= all
images: node-deps ## build every container image here (IMAGES="base service postgres nats minio opensearch"; IMAGE=rdm:dev), cached by content
	@cd $(ROOT) && IMAGE=$(IMAGE) bash scripts/images.sh $(IMAGES)

docker-up: ## start the project's Docker engine (installs docker.io when root; private socket under /var/lib/rdm-docker) unless one answers
	@bash $(INFRA)/docker.sh start
	@bash $(INFRA)/docker.sh status

docker-down: ## stop the Docker engine that docker-up started (never someone else's)
	@bash $(INFRA)/docker.sh stop

chart-check: node-deps ## helm lint + template of charts/rdm (3 value sets), API-schema validation, policy tests; offline
	@bash $(INFRA)/helm.sh install
	@bash $(INFRA)/helm.sh models >/dev/null
	@$(VITEST) --project charts


kind-build: ## build (or reuse, cached by version in /var/lib/rdm-kind) kind, Kubernetes, the node image and Traefik; cold ~40 min
	@bash $(INFRA)/docker.sh start
	@bash scripts/kind/build.sh

kind-up: node-deps ## kind cluster built here + Traefik ingress + images + helm install charts/rdm + smoke test through the ingress
	@bash scripts/kind/up.sh

test-kind: node-deps ## kind trials: kind-up (cluster, release, smoke test through the ingress), then the pod-kill trial (vitest --project kind); not in make test (README, Deploy on Kubernetes)
	@bash scripts/kind/up.sh
	@cd $(ROOT) && $(ROOT)/node_modules/.bin/vitest run --project kind

kind-down: ## delete the kind cluster of kind-up (cached builds and images stay)
	@bash scripts/kind/down.sh
