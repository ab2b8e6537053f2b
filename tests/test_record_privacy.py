"""PrivacyPolicy and .filegramignore rules, without a file-system observer."""

from __future__ import annotations

import hashlib

import pytest

from filegram_kit.record.ignore_rules import compile_rule
from filegram_kit.record.privacy import DEFAULT_REDACTIONS, REDACTED, PrivacyPolicy


def sha16(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


@pytest.mark.parametrize(("path", "is_dir"), [
    (".git", True), (".git/HEAD", False), ("src/.git/config", False), ("a/__pycache__/m.pyc", False),
    ("web/node_modules/x/index.js", False), (".DS_Store", False), ("notes/.report.md.swp", False),
    ("notes/report.md~", False), (".#report.md", False), ("#report.md#", False), ("4913", False),
    ("docs/.~lock.plan.odt#", False), ("dl/movie.mkv.crdownload", False), ("dl/iso.part", False),
    (".report.md.a1b2c3.tmp", False), ("x/.goutputstream-ABC123", False), ("notes.md___jb_tmp___", False),
    (".filegramignore", False), ("sub/.filegram-fence-1-2", False),
])
def test_default_ignores(path, is_dir):
    assert PrivacyPolicy().ignored(path, is_dir)


@pytest.mark.parametrize("path", ["report.md", "notes/a.txt", "gitlog.txt", "src/partial.py", "data.tmp",
                                  "my.git.notes", "49130", "swp.txt"])
def test_ordinary_files_are_tracked(path):
    assert not PrivacyPolicy().ignored(path, False)


def test_dir_only_patterns_do_not_hide_files_of_that_name():
    policy = PrivacyPolicy()
    assert policy.ignored("node_modules", True)
    assert not policy.ignored("node_modules", False)  # a file called node_modules


def test_own_output_folder_is_ignored_and_cannot_be_reincluded(tmp_path):
    (tmp_path / ".filegramignore").write_text("!out/\n!out/**\n")
    policy = PrivacyPolicy().bind(tmp_path, own=("out",))
    assert policy.ignored("out", True)
    assert policy.ignored("out/signal/me_1/events.json", False)
    assert not policy.ignored("outline.md", False)


def test_filegramignore_gitignore_semantics(tmp_path):
    (tmp_path / ".filegramignore").write_text(
        "# private things\n"
        "*.log\n"
        "!keep.log\n"
        "/top-only.txt\n"
        "build/\n"
        "docs/**/draft-?.md\n"
        "**/secret\n"
        "\\#literal\n"
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".filegramignore").write_text("local.txt\n!debug.log\n/anchored.md\n")
    policy = PrivacyPolicy().bind(tmp_path)
    expect = {
        "app.log": True, "deep/dir/app.log": True, "keep.log": False, "deep/keep.log": False,
        "top-only.txt": True, "sub/top-only.txt": False,
        "docs/draft-1.md": True, "docs/a/b/draft-2.md": True, "docs/draft-10.md": False,
        "x/secret": True, "secret": True, "#literal": True, "literal": False,
        "sub/local.txt": True, "local.txt": False, "sub/debug.log": False, "sub/x/debug.log": False,
        "sub/anchored.md": True, "sub/x/anchored.md": False,
    }
    got = {path: policy.ignored(path, False) for path in expect}
    assert got == expect
    assert policy.ignored("build", True) and policy.ignored("build/out.bin", False)
    assert not policy.ignored("build", False)


def test_nothing_inside_an_ignored_directory_can_be_reincluded(tmp_path):
    (tmp_path / ".filegramignore").write_text("private/\n!private/ok.txt\n")
    assert PrivacyPolicy().bind(tmp_path).ignored("private/ok.txt", False)


def test_filegramignore_is_read_lazily_and_reread_after_forget(tmp_path):
    policy = PrivacyPolicy().bind(tmp_path)
    assert not policy.ignored("a.csv", False)
    (tmp_path / ".filegramignore").write_text("*.csv\n")
    assert not policy.ignored("a.csv", False)  # cached until told the file changed
    policy.forget_ignore_file("")
    assert policy.ignored("a.csv", False)


def test_ignore_file_that_is_not_utf8_is_named(tmp_path):
    (tmp_path / ".filegramignore").write_bytes(b"\xff\xfe*.x\n")
    with pytest.raises(ValueError, match=r"\.filegramignore: not UTF-8"):
        PrivacyPolicy().bind(tmp_path).ignored("a.x", False)


def test_custom_ignore_replaces_defaults_and_can_extend_them():
    from filegram_kit.record.privacy import DEFAULT_IGNORE

    assert not PrivacyPolicy(ignore=("*.log",)).ignored(".git/HEAD", False)
    extended = PrivacyPolicy(ignore=(*DEFAULT_IGNORE, "*.log"))
    assert extended.ignored(".git/HEAD", False) and extended.ignored("x/run.log", False)


def test_unclosed_bracket_is_literal():
    rule = compile_rule("a[b.txt")
    assert rule is not None and rule.matches("a[b.txt", False) and not rule.matches("ab.txt", False)


def test_capture_text_binary_and_size_limit():
    policy = PrivacyPolicy(max_content_bytes=10)
    assert policy.capture("a.md", b"hello\n") == ("hello\n", sha16(b"hello\n"), 6)
    assert policy.capture("a.bin", b"PNG\x00\x01") == (None, sha16(b"PNG\x00\x01"), 5)
    latin1 = "café".encode("latin-1")
    assert policy.capture("a.txt", latin1) == (None, sha16(latin1), len(latin1))
    big = b"x" * 11
    assert policy.capture("big.txt", big) == (None, sha16(big), 11)
    assert policy.capture("edge.txt", b"y" * 10)[0] == "y" * 10


def test_capture_reports_why_content_was_withheld():
    import io

    policy = PrivacyPolicy(max_content_bytes=4)
    assert policy.capture_stream("a", io.BytesIO(b"toolong")).withheld == "too_large"
    assert policy.capture_stream("a", io.BytesIO(b"\x00")).withheld == "binary"
    assert PrivacyPolicy(metadata_only=True).capture_stream("a", io.BytesIO(b"hi")).withheld == "metadata_only"


def test_metadata_only_keeps_hash_and_size():
    data = b"my private diary\n"
    assert PrivacyPolicy(metadata_only=True).capture("diary.txt", data) == (None, sha16(data), len(data))


def test_large_streams_are_hashed_whole():
    data = b"0123456789" * 20_000  # several read chunks
    content, digest, size = PrivacyPolicy().capture("big.txt", data)
    assert (content, digest, size) == (data.decode(), sha16(data), 200_000)


def test_redaction_is_opt_in_and_hash_stays_that_of_the_bytes():
    text = ("contact: ada@example.org\nkey sk-proj-abcdefghijklmnopqrstuv here\n"
            "password = hunter2hunter2\nAWS AKIAABCDEFGHIJKLMNOP\nplain line\n")
    data = text.encode()
    assert PrivacyPolicy().capture("a.txt", data)[0] == text  # nothing redacted silently
    content, digest, size = PrivacyPolicy(redact=DEFAULT_REDACTIONS).capture("a.txt", data)
    assert "ada@example.org" not in content and "sk-proj" not in content and "hunter2" not in content
    assert "AKIA" not in content and "plain line" in content
    assert content.count(REDACTED) == 4
    assert (digest, size) == (sha16(data), len(data))


def test_custom_redaction_and_bad_regex_is_named():
    content, _, _ = PrivacyPolicy(redact=(r"\b\d{3}-\d{4}\b",)).capture("a", b"call 555-1234 now")
    assert content == f"call {REDACTED} now"
    with pytest.raises(ValueError, match=r"redact\[1\] '\(unclosed'"):
        PrivacyPolicy(redact=("ok", "(unclosed"))


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"ignore": "*.log"}, "ignore: expected a sequence of strings"),
    ({"max_content_bytes": -1}, "max_content_bytes"),
    ({"redact": [3]}, "redact: expected a sequence of strings"),
])
def test_bad_settings_are_named(kwargs, match):
    with pytest.raises((TypeError, ValueError), match=match):
        PrivacyPolicy(**kwargs)


def test_describe_never_holds_the_root(tmp_path):
    described = PrivacyPolicy().bind(tmp_path, own=("out",)).describe()
    assert str(tmp_path) not in repr(described) and described["own"] == ["out"]
