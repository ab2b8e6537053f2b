"""`filegram reproduce --check`: a fresh recomputation is compared byte for byte with a committed folder, and an
edited number in that folder is reported with its step, file and line."""

from __future__ import annotations

import re

from filegram_kit.cli import main
from filegram_kit.report import ARTIFACTS, reproduce
from filegram_kit.report.check import check, compare, format_check
from filegram_kit.report.settings import QUICK

STATIC = [n for n, a in ARTIFACTS.items() if not a.corpus and not a.reads and not a.figure]


def _reference(tmp_path):
    reference = tmp_path / "reference"
    reproduce(reference, only=STATIC, progress=False, images=False, settings=QUICK)
    return reference


def test_an_unchanged_reference_checks_and_an_edited_number_is_named(tmp_path):
    reference = _reference(tmp_path)
    result = check(reference, only=STATIC, settings=QUICK, progress=False)
    assert result.differences == [] and result.compared == 2 * len(STATIC)
    assert result.versions == {} and result.machine == {}
    assert format_check(result, reference).startswith("reproduced: all")

    table = next(p for p in sorted(reference.glob("*.csv")) if re.search(r"\d", p.read_text().splitlines()[1]))
    lines = table.read_text().splitlines(keepends=True)
    lines[1] = re.sub(r"\d", lambda m: str((int(m.group()) + 1) % 10), lines[1], count=1)  # one digit, one row
    table.write_text("".join(lines))
    differences = check(reference, only=STATIC, settings=QUICK, progress=False).differences
    assert [(d.file, d.problem) for d in differences] == [(table.name, "differs")]
    assert differences[0].step == table.stem and "line 2" in differences[0].detail
    report = format_check(check(reference, only=STATIC, settings=QUICK, progress=False), reference)
    assert report.startswith("NOT reproduced") and table.name in report and table.stem in report


def test_the_cli_exits_1_on_a_difference_and_0_without(tmp_path, capsys):
    reference = _reference(tmp_path)
    assert main(["reproduce", "--quick", "--check", "--no-images", "--out", str(reference), "--only", *STATIC]) == 0
    (reference / f"{STATIC[0]}.md").write_text("edited\n")
    assert main(["reproduce", "--quick", "--check", "--no-images", "--out", str(reference), "--only", *STATIC]) == 1
    out = capsys.readouterr().out
    assert f"{STATIC[0]}: {STATIC[0]}.md differs" in out


def test_a_file_missing_from_the_reference_is_reported(tmp_path):
    reference = _reference(tmp_path)
    fresh = tmp_path / "fresh"
    reproduce(fresh, only=STATIC, progress=False, images=False, settings=QUICK)
    (reference / f"{STATIC[0]}.csv").unlink()
    steps = {STATIC[0]: {"files": {f"{STATIC[0]}.csv": "", f"{STATIC[0]}.md": ""}}}
    assert [(d.file, d.problem) for d in compare(reference, fresh, steps)] == [
        (f"{STATIC[0]}.csv", "missing from the reference")]


def test_versions_other_than_the_reference_s_are_named(tmp_path):
    import json

    reference = _reference(tmp_path)
    manifest = json.loads((reference / "MANIFEST.json").read_text())
    manifest["versions"]["numpy"] = "1.0.0"
    (reference / "MANIFEST.json").write_text(json.dumps(manifest))
    result = check(reference, only=STATIC, settings=QUICK, progress=False)
    assert list(result.versions) == ["numpy"] and result.versions["numpy"][0] == "1.0.0"
    assert "numpy 1.0.0 there" in format_check(result, reference)


def test_another_machine_is_named(tmp_path):
    import json

    reference = _reference(tmp_path)
    manifest = json.loads((reference / "MANIFEST.json").read_text())
    assert {"arch", "cpu", "numpy_simd", "blas", "tesseract"} <= set(manifest["machine"])
    manifest["machine"]["blas"] = "openblas 0.3 Haswell"
    (reference / "MANIFEST.json").write_text(json.dumps(manifest))
    result = check(reference, only=STATIC, settings=QUICK, progress=False)
    assert list(result.machine) == ["blas"] and "Haswell' there" in format_check(result, reference)


def test_without_a_reference_the_check_says_how_to_make_one(tmp_path):
    import pytest

    with pytest.raises(FileNotFoundError, match="--quick --out"):
        check(tmp_path / "nowhere", only=STATIC, settings=QUICK, progress=False)
