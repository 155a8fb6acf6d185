"""HTTP/1.1 over a plain socket, for what requests hides: pipelining, one connection
reused for several requests, and bodies larger than the server accepts."""

import json
import select
import socket


class RawResponse:
    def __init__(self, status, reason, headers, body):
        self.status = status
        self.reason = reason
        self.headers = headers  # lower-case name -> value (repeated headers joined by ", ")
        self.body = body

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return f"<RawResponse {self.status} {self.body[:200]!r}>"


def request_bytes(method, path, headers=None, body=b""):
    if isinstance(body, str):
        body = body.encode()
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    hdrs = dict(headers or {})
    if body or method in ("POST", "PUT", "PATCH"):
        hdrs.setdefault("Content-Length", str(len(body)))
    for k, v in hdrs.items():
        lines.append(f"{k}: {v}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class Connection:
    """One TCP connection; send bytes, read whole responses in order."""

    def __init__(self, host, port, timeout=10):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.rfile = self.sock.makefile("rb")

    def close(self):
        self.rfile.close()
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, data):
        self.sock.sendall(data)

    def readable(self, timeout):
        return bool(select.select([self.sock], [], [], timeout)[0])

    def read_response(self, method="GET"):
        line = self.rfile.readline(65537)
        if not line:
            raise ConnectionError("connection closed before a response arrived")
        parts = line.decode("latin-1").rstrip("\r\n").split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise ValueError(f"bad status line {line!r}")
        status = int(parts[1])
        reason = parts[2] if len(parts) > 2 else ""
        headers = {}
        while True:
            h = self.rfile.readline(65537)
            if h in (b"\r\n", b"\n", b""):
                break
            name, _, value = h.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            body = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            body = self._read_chunked()
        elif "content-length" in headers:
            body = self._read_exact(int(headers["content-length"]))
        else:
            body = self.rfile.read()
        return RawResponse(status, reason, headers, body)

    def _read_exact(self, n):
        data = self.rfile.read(n)
        if len(data) != n:
            raise ConnectionError(f"short body: {len(data)} of {n} bytes")
        return data

    def _read_chunked(self):
        out = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip(), 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return out
            out += self._read_exact(size)
            self.rfile.readline()


def send_oversized(host, port, method, path, headers, body, timeout=10):
    """Sends a request whose body the server is expected to refuse, and returns the response.

    A server may answer as soon as it sees the Content-Length (then we read the answer
    without sending the body) or only after reading part of the body; in that case it
    may close while we are still sending, which is fine as long as the answer arrives."""
    hdrs = dict(headers or {})
    hdrs["Content-Length"] = str(len(body))
    head = request_bytes(method, path, hdrs, b"")
    with Connection(host, port, timeout=timeout) as c:
        c.send(head)
        if not c.readable(0.5):
            try:
                for i in range(0, len(body), 65536):
                    c.sock.sendall(body[i : i + 65536])
            except (BrokenPipeError, ConnectionResetError):
                pass
        return c.read_response(method)
