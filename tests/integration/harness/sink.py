"""An HTTP sink that taskexec delivers to in the engine tests.

A threaded HTTP/1.1 server (keep-alive) on a free loopback port that records every request
(method, path, headers, body, arrival time) and answers by path prefix:

    /ok                   200 {"ok":true}
    /status/<code>        that status code
    /flaky/<key>/<n>      503 for the first n requests with that key, then 200
    /slow/<ms>            sleeps ms milliseconds, then 200
    /echo                 200 {"method","path","headers":{...},"body":"<request body>"}

wait_for(count, timeout) waits for the number of recorded requests; requests_for(id) are
the requests whose Idempotency-Key header is id. refused_url() is a loopback URL with
nothing listening (connection refused).
"""

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .util import free_port


@dataclass
class Request:
    method: str
    path: str
    headers: dict  # lower-cased names → value (last one wins)
    raw_headers: list  # [(name, value)] as received
    body: bytes
    arrived: float  # time.time() when the request was fully read
    arrived_mono: float = field(default=0.0)

    def header(self, name, default=None):
        return self.headers.get(name.lower(), default)

    @property
    def idempotency_key(self):
        return self.header("Idempotency-Key")

    @property
    def attempt(self):
        v = self.header("X-Taskexec-Attempt")
        return int(v) if v is not None else None

    def json(self):
        return json.loads(self.body) if self.body else None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "te-sink/1"
    # The status line and headers, then the body, go out as two writes: with Nagle's algorithm
    # the body waits for the client's delayed ACK of the first (about 40 ms per request).
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):  # keep the test output quiet
        pass

    def _handle(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        sink = self.server.sink
        raw = list(self.headers.items())
        req = Request(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in raw},
            raw_headers=raw,
            body=body,
            arrived=time.time(),
            arrived_mono=time.monotonic(),
        )
        sink._record(req)
        code, payload = sink._respond(req)
        data = json.dumps(payload).encode() if payload is not None else b""
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if data and self.command != "HEAD":
                self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. a timeout test)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _handle


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512


class Sink:
    def __init__(self):
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._requests = []
        self._flaky = {}
        self.port = free_port()
        self.httpd = _Server(("127.0.0.1", self.port), _Handler)
        self.httpd.sink = self
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="sink", daemon=True)
        self._thread.start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    @staticmethod
    def refused_url(path="/"):
        """A loopback URL on a port where nothing listens."""
        port = free_port()
        return f"http://127.0.0.1:{port}{path}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- recording ----------------------------------------------------------------------

    def _record(self, req):
        with self._cond:
            self._requests.append(req)
            self._cond.notify_all()

    @property
    def requests(self):
        with self._lock:
            return list(self._requests)

    def count(self):
        with self._lock:
            return len(self._requests)

    def wait_for(self, count, timeout, pred=None):
        """Waits until at least count recorded requests (matching pred, if given) exist;
        returns them, or raises TimeoutError."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                got = [r for r in self._requests if pred is None or pred(r)]
                if len(got) >= count:
                    return got
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"sink: {len(got)} of {count} requests after {timeout:.1f}s")
                self._cond.wait(min(left, 0.2))

    def requests_for(self, execution_id):
        with self._lock:
            return [r for r in self._requests if r.idempotency_key == execution_id]

    def wait_for_execution(self, execution_id, count, timeout):
        return self.wait_for(count, timeout, lambda r: r.idempotency_key == execution_id)

    # -- behaviour ------------------------------------------------------------------------

    def _respond(self, req):
        path = req.path.split("?", 1)[0]
        parts = [p for p in path.split("/") if p]
        head = parts[0] if parts else ""
        if head == "ok":
            return 200, {"ok": True}
        if head == "status" and len(parts) >= 2 and parts[1].isdigit():
            return int(parts[1]), {"status": int(parts[1])}
        if head == "flaky" and len(parts) >= 3 and parts[2].isdigit():
            key, n = parts[1], int(parts[2])
            with self._lock:
                seen = self._flaky.get(key, 0)
                self._flaky[key] = seen + 1
            if seen < n:
                return 503, {"flaky": key, "try": seen + 1}
            return 200, {"flaky": key, "try": seen + 1}
        if head == "slow" and len(parts) >= 2 and parts[1].isdigit():
            time.sleep(int(parts[1]) / 1000.0)
            return 200, {"slept_ms": int(parts[1])}
        if head == "echo":
            return 200, {
                "method": req.method,
                "path": req.path,
                "headers": dict(req.raw_headers),
                "body": req.body.decode("utf-8", "replace"),
            }
        return 404, {"error": "unknown sink path"}


def port_is_closed(port):
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) != 0


# -- pytest fixture (import it into a test module: `from harness.sink import sink`) ------------

try:
    import pytest

    @pytest.fixture(scope="module")
    def sink():
        """One recording HTTP sink per test module."""
        s = Sink()
        try:
            yield s
        finally:
            s.close()

except ImportError:  # pragma: no cover - used outside pytest
    pass
