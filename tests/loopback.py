"""A loopback HTTP server for provider contract tests: the real SDK talks HTTP to 127.0.0.1, no network.

    with LoopbackServer() as server:                      # or the `loopback` fixture below
        server.reply("/v1/chat/completions", {"choices": [...]})            # 200 + JSON
        server.reply("/v1/chat/completions", {"error": {...}}, status=429)  # queued after the first
        server.reply("/v1/embeddings", "not json{", delay=0.5)              # raw text, answered late
        client = SDK(base_url=server.url + "/v1", ...)
        ...
        server.requests[0].json["model"], server.requests[0].headers["authorization"]

Responses are queued per path (the query string is ignored for matching, kept in the record) and
served in order; a body may be JSON-able, str/bytes (sent as is, for malformed bodies) or a
callable `request -> (status, body)`. An unscripted request gets a 404 naming the path. `delay`
holds the answer back (a client with a shorter timeout gives up); stopping the server cuts delays short.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    method: str
    path: str  # without the query string
    query: str
    headers: dict[str, str]  # lower-cased names
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class Scripted:
    status: int
    body: Any
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


class LoopbackServer:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._queues: dict[str, deque[Scripted]] = defaultdict(deque)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self.in_flight = self.max_in_flight = 0  # requests being answered now, and the most ever at once

    # -- scripting --------------------------------------------------------------------------------------
    def reply(self, path: str, body: Any, *, status: int = 200, delay: float = 0.0,
              headers: dict[str, str] | None = None, times: int = 1) -> LoopbackServer:
        """Queue `times` identical responses for `path`."""
        with self._lock:
            self._queues[path].extend(Scripted(status, body, delay, dict(headers or {})) for _ in range(times))
        return self

    def pending(self, path: str | None = None) -> int:
        """Responses still queued (for one path, or all)."""
        with self._lock:
            return len(self._queues[path]) if path else sum(len(q) for q in self._queues.values())

    def requests_to(self, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.path == path]

    # -- lifecycle -------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> LoopbackServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- serving ---------------------------------------------------------------------------------------
    def _answer(self, request: Recorded) -> tuple[Scripted, bytes]:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return self._scripted(request)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _scripted(self, request: Recorded) -> tuple[Scripted, bytes]:
        with self._lock:
            self.requests.append(request)
            queue = self._queues.get(request.path)
            scripted = queue.popleft() if queue else None
        if scripted is None:
            scripted = Scripted(404, {"error": {"message": f"loopback: nothing scripted for "
                                                           f"{request.method} {request.path}"}})
        if callable(scripted.body):
            status, body = scripted.body(request)
            scripted = Scripted(status, body, scripted.delay, scripted.headers)
        body = scripted.body
        raw = body if isinstance(body, bytes) else body.encode() if isinstance(body, str) else json.dumps(body).encode()
        if scripted.delay:
            self._stopping.wait(scripted.delay)
        return scripted, raw


def _handler_for(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            request = Recorded(self.command, parts.path, parts.query,
                               {k.lower(): v for k, v in self.headers.items()}, body)
            scripted, raw = server._answer(request)
            try:
                self.send_response(scripted.status)
                headers = {"Content-Type": "application/json", **scripted.headers}
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                pass

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

    return Handler


@pytest.fixture
def loopback():
    """A started LoopbackServer, stopped after the test (import this name into a test module to use it)."""
    with LoopbackServer() as server:
        yield server
