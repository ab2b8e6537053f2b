"""Memory systems and LLM backends never import the generator (engine/, workspace/): they see traces, not how
traces were made (ARCHITECTURE.md section 3). Checked statically (every import statement, function-local ones
included, relative ones resolved) and dynamically (what importing the packages actually loads)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import filegram_kit

PACKAGE_ROOT = Path(filegram_kit.__file__).resolve().parent
ISOLATED = ("memory", "llm")
FORBIDDEN = ("filegram_kit.engine", "filegram_kit.workspace")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in the file; `from . import x` also yields `<pkg>.x`,
    since x may be a submodule."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                if node.level - 1 >= len(parts):
                    raise AssertionError(f"{path}:{node.lineno}: relative import climbs above the top package")
                base = ".".join(parts[:len(parts) - (node.level - 1)])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names if alias.name != "*"]
    return found


def _forbidden(module: str) -> bool:
    return any(module == f or module.startswith(f + ".") for f in FORBIDDEN)


def isolated_files() -> list[Path]:
    return sorted(p for sub in ISOLATED for p in (PACKAGE_ROOT / sub).rglob("*.py"))


def test_the_resolver_sees_relative_absolute_and_local_imports(tmp_path, monkeypatch):
    """The checker itself can fail: it flags each way a memory module could reach the engine."""
    fake_root = tmp_path / "filegram_kit"
    module = fake_root / "memory" / "filegramos" / "probe.py"
    module.parent.mkdir(parents=True)
    module.write_text("from ...engine import corpus\nfrom .. import base\n"
                      "def f():\n    from ... import workspace\n    import filegram_kit.engine.policy as p\n",
                      encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE_ROOT", fake_root)
    names = [m for _, m in imported_modules(module)]
    assert "filegram_kit.engine" in names and "filegram_kit.memory.base" in names
    assert "filegram_kit.workspace" in names and "filegram_kit.engine.policy" in names
    assert [m for m in names if _forbidden(m)] == ["filegram_kit.engine", "filegram_kit.engine.corpus",
                                                   "filegram_kit.workspace", "filegram_kit.engine.policy"]
    assert not _forbidden("filegram_kit.engineering") and not _forbidden("filegram_kit.workspaces")


def test_no_memory_or_llm_module_imports_the_generator():
    files = isolated_files()
    assert len(files) > 20, "expected the memory/ and llm/ packages"  # guards against an empty glob
    offending = [f"{path.relative_to(PACKAGE_ROOT.parent)}:{line} imports {module}"
                 for path in files for line, module in imported_modules(path) if _forbidden(module)]
    assert offending == []


PROBE = """
import json, sys
import filegram_kit.memory, filegram_kit.memory.filegramos, filegram_kit.memory.rag, filegram_kit.memory.context
import filegram_kit.llm, filegram_kit.llm.algorithms, filegram_kit.llm.offline, filegram_kit.llm.dryrun
from filegram_kit.llm import get_backend
loaded = sorted(sys.modules)
backend = get_backend("offline")
backend.embed(["a line of text"])  # the default embedder's first use (loads WordLlama)
used = sorted(sys.modules)
print(json.dumps({"imported": loaded, "after_embed": used}))
"""


@pytest.fixture(scope="module")
def loaded_modules() -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300,
                          cwd=PACKAGE_ROOT.parent)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_memory_and_llm_loads_no_generator_module(loaded_modules):
    assert "filegram_kit.memory.filegramos" in loaded_modules["imported"]  # the probe did import them
    assert "filegram_kit.llm.offline" in loaded_modules["imported"]
    assert [m for m in loaded_modules["imported"] if _forbidden(m)] == []


def test_the_default_offline_embedder_runs_without_the_generator(loaded_modules):
    assert "filegram_kit.llm.algorithms.wordllama_embedder" in loaded_modules["after_embed"]
    assert [m for m in loaded_modules["after_embed"] if _forbidden(m)] == []
