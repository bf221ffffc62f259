# `make run` plays, `make test` checks everything. Both create .venv when it is missing and
# reinstall the project only when pyproject.toml changed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WARM := $(VENV)/.warm

.PHONY: run test lint bench clean web chromium

run: $(WARM) web
	$(BIN)/python -m bot

test: $(WARM) web chromium
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(WARM)
	$(BIN)/python -m engine bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

# numba compiles the search on first use (about half a minute) and caches it beside the
# sources: do it here, with a progress line, rather than on the first AI move.
$(WARM): $(STAMP) $(wildcard engine/search/*.py)
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
