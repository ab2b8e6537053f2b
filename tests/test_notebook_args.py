"""How notebooks decide smoke mode and autorun, under marimo and in a Jupyter kernel (no marimo runtime)."""

import pytest

from filegram_kit import notebook_args


@pytest.mark.parametrize(("value", "smoke"), [("1", True), ("yes", True), ("0", False), ("false", False),
                                              ("", False), (" Off ", False), (None, False)])
def test_smoke_mode_reads_the_environment_where_there_is_no_command_line(monkeypatch, value, smoke):
    if value is None:
        monkeypatch.delenv(notebook_args.SMOKE_ENV, raising=False)
    else:
        monkeypatch.setenv(notebook_args.SMOKE_ENV, value)
    assert notebook_args.cli_args() == {}  # no marimo runtime here, as in a Jupyter kernel
    assert notebook_args.smoke_mode() is smoke


@pytest.mark.parametrize(("mode", "smoke", "autorun"), [("edit", False, False), ("run", False, False),
                                                        ("edit", True, True), ("script", False, True),
                                                        ("test", False, True), (None, False, True)])
def test_only_marimo_editor_and_app_wait_for_buttons(monkeypatch, mode, smoke, autorun):
    monkeypatch.setattr(notebook_args, "marimo_mode", lambda: mode)
    monkeypatch.setattr(notebook_args, "smoke_mode", lambda: smoke)
    assert notebook_args.autorun_mode() is autorun


def test_project_dir_is_the_checkout_with_figures_and_pyproject():
    root = notebook_args.project_dir()
    assert (root / "pyproject.toml").is_file() and (root / "notebooks").is_dir()
