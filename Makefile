# filegram_kit — run `make` (or `make help`) to list the targets.
# Every target works on a fresh clone: `make setup` builds .venv from pyproject.toml.

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXTRAS ?= notebooks,dev

.DEFAULT_GOAL := help
.PHONY: help setup reproduce test lint notebooks edit bench clean distclean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  make %-11s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; set PYTHON=/path/to/python3.11" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	@touch $(STAMP)

setup: $(STAMP) ## create .venv with the package, notebook and dev extras installed

reproduce: $(STAMP) ## regenerate every paper table and figure into figures/
	$(BIN)/filegram reproduce --out figures

lint: $(STAMP) ## ruff on the library and tests, marimo check on the notebooks
	$(BIN)/ruff check filegram_kit tests benchmarks
	$(BIN)/marimo check notebooks/

test: lint ## lint, then the unit tests and notebook smoke runs (offline, no keys)
	$(BIN)/python -m pytest

notebooks: $(STAMP) ## run every numbered notebook end to end as a script
	@set -e; for nb in notebooks/[0-9][0-9]_*.py; do echo "== $$nb"; $(BIN)/python $$nb; done

edit: $(STAMP) ## open the notebooks in marimo's editor
	$(BIN)/marimo edit notebooks/

bench: $(STAMP) ## run the speed/memory benchmarks and rewrite BENCHMARKS.md
	$(BIN)/python benchmarks/run.py --out BENCHMARKS.md

clean: ## remove generated data, caches and build leftovers (keeps .venv and figures/)
	rm -rf data build dist .pytest_cache .ruff_cache *.egg-info
	find . -name __pycache__ -type d -prune -not -path './$(VENV)/*' -exec rm -rf {} +

distclean: clean ## clean, and remove .venv too
	rm -rf $(VENV)
