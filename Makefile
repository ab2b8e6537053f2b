# filegram_kit — run `make` (or `make help`) to list the targets.
# Every target works on a fresh clone: `make setup` builds .venv from pyproject.toml.

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXTRAS ?= notebooks,dev

.DEFAULT_GOAL := help
.PHONY: help setup chromium reproduce test lint notebooks edit bench clean distclean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  make %-11s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; set PYTHON=/path/to/python3.11" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	@touch $(STAMP)

setup: $(STAMP) chromium ## create .venv with the package, notebook and dev extras installed (+ chromium)

# PNG figures are rendered by kaleido in a Chromium-family browser of the system (never a downloaded one).
# Found (BROWSER_PATH, PATH or the usual install folders): nothing to do; else Debian's chromium via apt-get.
chromium: $(STAMP) ## make sure a browser for PNG export is there (apt-get install chromium if none is found)
	@if $(BIN)/python -m filegram_kit.report.export >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1; then \
	  echo "no Chromium-family browser found; installing Debian's chromium for PNG figure export"; \
	  SUDO=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium \
	    || echo "warning: apt-get install chromium failed; PNG export (and its test) is skipped until you install" \
	      "Chrome/Chromium or set BROWSER_PATH" >&2; \
	else echo "warning: no Chromium-family browser and no apt-get; PNG export will fail until you install" \
	  "Chrome/Chromium or set BROWSER_PATH" >&2; fi

reproduce: setup ## regenerate every paper table and figure into figures/ (builds the trace corpus once)
	$(BIN)/filegram reproduce --out figures

lint: $(STAMP) ## ruff on the library and tests, marimo check on the notebooks
	$(BIN)/ruff check filegram_kit tests benchmarks
	$(BIN)/marimo check notebooks/

test: setup lint ## lint, then the unit tests and notebook smoke runs (offline, no keys)
	$(BIN)/python -m pytest

notebooks: $(STAMP) ## run every numbered notebook end to end as a script
	@set -e; for nb in notebooks/[0-9][0-9]_*.py; do echo "== $$nb"; $(BIN)/python $$nb; done

edit: $(STAMP) ## open the notebooks in marimo's editor
	$(BIN)/marimo edit notebooks/

bench: $(STAMP) ## run the speed/memory benchmarks and rewrite BENCHMARKS.md
	$(BIN)/python benchmarks/run.py --out BENCHMARKS.md
	$(BIN)/python benchmarks/fingerprint.py --append BENCHMARKS.md
	$(BIN)/python benchmarks/memory.py --append BENCHMARKS.md
	$(BIN)/python benchmarks/bench.py --append BENCHMARKS.md
	$(BIN)/python benchmarks/record.py --append BENCHMARKS.md

clean: ## remove generated data, caches and build leftovers (keeps .venv and figures/)
	rm -rf data build dist .pytest_cache .ruff_cache *.egg-info
	find . -name __pycache__ -type d -prune -not -path './$(VENV)/*' -exec rm -rf {} +

distclean: clean ## clean, and remove .venv too
	rm -rf $(VENV)
