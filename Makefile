# `make run` plays (it installs what running needs), `make test` checks everything (it adds the
# test tools). Both create .venv when it is missing and install again only when pyproject.toml
# changed; each has its own stamp, so either may come first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
WARM := $(VENV)/.warm
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check

.PHONY: run test lint bench clean web chromium

# pytest-xdist: much of the suite waits (bot processes, servers, subprocess engines, held
# locks), so four test processes finish well ahead of one even on two cores; "work stealing"
# evens out the long tests. PYTEST_WORKERS= (empty) runs the suite in one process.
PYTEST_WORKERS ?= -n 4 --dist worksteal

# The venv is made with $(PYTHON): refuse one older than the project needs before making it.
ifeq ($(wildcard $(BIN)/python),)
ifneq ($(filter-out clean,$(or $(MAKECMDGOALS),run)),)
PYTHON_VERSION := $(shell $(PYTHON) -c 'import platform; print(platform.python_version())' 2>/dev/null)
PYTHON_OK := $(shell $(PYTHON) -c 'import sys; print(int(sys.version_info >= (3, 11)))' 2>/dev/null)
ifneq ($(PYTHON_OK),1)
$(error gomoku-bot needs Python 3.11 or newer and $(PYTHON) $(if $(PYTHON_VERSION),is $(PYTHON_VERSION),cannot be run): choose another, e.g. PYTHON=python3.12 make $(or $(firstword $(MAKECMDGOALS)),run))
endif
endif
endif

run: $(RUN_STAMP) web
	@$(MAKE) -s --no-print-directory $(WARM)
	$(BIN)/python -m bot

test: $(TEST_STAMP) web chromium
	@$(MAKE) -s --no-print-directory $(WARM)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/pytest $(PYTEST_WORKERS)

lint: $(TEST_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(RUN_STAMP)
	@$(MAKE) -s --no-print-directory $(WARM)
	$(BIN)/python -m engine bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) -e .
	touch $(RUN_STAMP)

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(PIP) -e '.[test]'
	touch $(TEST_STAMP)

# numba compiles the search on first use (about half a minute) and caches it beside the
# sources: do it here, with a progress line, rather than on the first AI move.
$(WARM): $(wildcard engine/search/*.py) | $(BIN)/python
	$(BIN)/python -m engine warm
	touch $(WARM)

# The Activity's client: the Embedded App SDK bundled by esbuild (both from npm) into a build
# output. Where npm is missing the bot serves the plain web board and the Activity tests skip.
ACTIVITY := bot/web/activity
BUNDLE := bot/web/static/dist/activity.js

web:
	@if ! command -v npm >/dev/null; then echo "npm not found: no Activity bundle (the web board runs)"; \
	else $(MAKE) --no-print-directory $(BUNDLE) || echo "the Activity bundle failed to build"; fi

$(BUNDLE): $(ACTIVITY)/activity.js $(ACTIVITY)/package.json $(ACTIVITY)/package-lock.json
	cd $(ACTIVITY) && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build

# The browser tests drive Debian's chromium through Playwright (never `playwright install`,
# which downloads a browser of its own).
chromium:
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium) \
	|| echo "chromium could not be installed: the browser tests skip"

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
	rm -rf $(ACTIVITY)/node_modules bot/web/static/dist
	find . -name __pycache__ -prune -exec rm -rf {} +
