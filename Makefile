# `make run` plays, `make test` checks everything. Both create .venv when it is missing and
# reinstall the project only when pyproject.toml changed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WARM := $(VENV)/.warm

.PHONY: run test lint bench clean

run: $(WARM)
	$(BIN)/python -m bot

test: $(WARM)
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

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
	find . -name __pycache__ -prune -exec rm -rf {} +
