"""Step and result keys follow the code a step uses: `from pkg import name` reaches the module defining `name`
(not every module pkg's __init__ imports), imports for type hints only are left out, and editing code no
Table 3 result runs (the recorder's watcher, the notebook widgets) leaves every Table 3 key as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from filegram_kit.bench import manifest
from filegram_kit.report import ARTIFACTS, provenance
from filegram_kit.util import code_closure


def _toy(tmp_path: Path, files: dict[str, str], monkeypatch) -> Path:
    package = tmp_path / "filegram_kit"
    for name, text in {"__init__.py": "", **files}.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    monkeypatch.setattr(code_closure, "PACKAGE", package)
    return package


def _rel(paths) -> set[str]:
    return {p.relative_to(code_closure.PACKAGE).as_posix() for p in paths}


def test_a_name_from_a_package_follows_its_defining_module_only(tmp_path, monkeypatch):
    _toy(tmp_path, {"pkg/__init__.py": "from .base import get\nfrom .heavy import Big\n",
                    "pkg/base.py": "def get():\n    return 1\n",
                    "pkg/heavy.py": "from ..other import x\nclass Big: ...\n",
                    "other.py": "x = 1\n",
                    "user.py": "from .pkg import get\n"}, monkeypatch)
    assert _rel(code_closure.closure("filegram_kit.user")) == {"__init__.py", "user.py", "pkg/__init__.py",
                                                               "pkg/base.py"}
    # the package's own name (bound in its __init__) makes the __init__ a real dependency, followed
    (code_closure.PACKAGE / "pkg" / "__init__.py").write_text("from .base import get\nfrom .heavy import Big\n"
                                                              "def own():\n    return Big\n")
    (code_closure.PACKAGE / "user.py").write_text("from .pkg import own\n")
    assert "pkg/heavy.py" in _rel(code_closure.closure("filegram_kit.user"))


def test_a_rebound_or_lazily_served_name_is_the_package_own(tmp_path, monkeypatch):
    _toy(tmp_path, {"pkg/__init__.py": "from .base import get\nget = staticmethod(get)\n",
                    "pkg/base.py": "def get():\n    return 1\n",
                    "lazy/__init__.py": "def __getattr__(name):\n    from .impl import thing\n    return thing\n",
                    "lazy/impl.py": "thing = 1\n",
                    "user.py": "from .pkg import get\nfrom .lazy import thing\n"}, monkeypatch)
    assert code_closure.defining_module("filegram_kit.pkg", "get") == "filegram_kit.pkg"
    assert code_closure.defining_module("filegram_kit.lazy", "thing") == "filegram_kit.lazy"
    assert {"pkg/base.py", "lazy/impl.py"} <= _rel(code_closure.closure("filegram_kit.user"))


def test_imports_for_type_hints_only_are_left_out(tmp_path, monkeypatch):
    _toy(tmp_path, {"hints.py": "class Widget: ...\n", "used.py": "X = 1\n",
                    "user.py": "from typing import TYPE_CHECKING\nimport typing\nif TYPE_CHECKING:\n"
                               "    from .hints import Widget\nelse:\n    from .used import X\n"
                               "if typing.TYPE_CHECKING:\n    import filegram_kit.hints\n"}, monkeypatch)
    assert _rel(code_closure.closure("filegram_kit.user")) == {"__init__.py", "user.py", "used.py"}


def test_a_submodule_named_in_from_import_is_followed_without_the_rest_of_its_package(tmp_path, monkeypatch):
    _toy(tmp_path, {"pkg/__init__.py": "from . import a, b\n", "pkg/a.py": "A = 1\n", "pkg/b.py": "B = 1\n",
                    "user.py": "from .pkg import a\n"}, monkeypatch)
    assert _rel(code_closure.closure("filegram_kit.user")) == {"__init__.py", "user.py", "pkg/__init__.py",
                                                               "pkg/a.py"}


TABLE3 = [n for n in ARTIFACTS if n.startswith("table03_")]


@pytest.mark.parametrize("edited", ["record/watcher.py", "widgets/items.py", "widgets/timeline.py"])
def test_editing_code_no_table3_result_runs_changes_no_table3_key(tmp_path, monkeypatch, edited):
    """A copy of the package: the Table 3 step keys and the results fingerprint before and after an edit."""
    copy = tmp_path / "filegram_kit"
    shutil.copytree(code_closure.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(code_closure, "PACKAGE", copy)
    monkeypatch.setattr(provenance, "PACKAGE", copy)
    monkeypatch.setattr(manifest, "PACKAGE", copy)

    def keys() -> list[str]:
        manifest.code_fingerprint.cache_clear()
        return [provenance.code_hash(ARTIFACTS[n].function.__module__) for n in TABLE3] + [
            manifest.code_fingerprint()]

    before = keys()
    (copy / edited).write_text((copy / edited).read_text() + "\nEDITED = 1\n")  # code, not a comment: keys see it
    assert keys() == before
    (copy / "bench" / "reader.py").write_text((copy / "bench" / "reader.py").read_text() + "\nEDITED = 1\n")
    after = keys()  # the test can fail: the shared reader is in every Table 3 key
    assert all(a != b for a, b in zip(after, before, strict=True))
    manifest.code_fingerprint.cache_clear()


def test_a_calibration_refit_that_only_names_a_new_engine_keys_nothing_anew(tmp_path):
    """The calibration's meta records the engine it was fitted on; an engine refactor refits identical models.
    Its key contribution ignores meta, and still follows every fitted number."""
    import json

    packaged = json.loads((code_closure.PACKAGE / "data" / "calibration.json").read_text(encoding="utf-8"))
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(packaged, indent=2), encoding="utf-8")
    before = code_closure.code_bytes(path)
    path.write_text(json.dumps({**packaged, "meta": {**packaged["meta"], "engine": "0123456789abcdef"}}),
                    encoding="utf-8")
    assert code_closure.code_bytes(path) == before  # another engine fingerprint, another layout: same key
    models = json.loads(json.dumps(packaged["models"]))
    first = next(iter(models.values()))
    first["intercept"] = [value + 1e-6 for value in first["intercept"]]
    path.write_text(json.dumps({**packaged, "models": models}), encoding="utf-8")
    assert code_closure.code_bytes(path) != before  # a fitted number moved: the steps that read it run again
