"""Small shared helpers: free ports, polling, timeouts, the binary under test."""

import os
import re
import socket
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

_handed_out = set()


def free_port():
    """A free loopback TCP port, found by binding port 0.

    Ports already handed out in this session are not handed out again, so two
    servers started back to back cannot be given the same port.
    """
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _handed_out:
            _handed_out.add(port)
            return port
    raise RuntimeError("no free loopback port")


def te_bin():
    return Path(os.environ.get("TE_BIN") or REPO / "build" / "taskexec")


def is_asan_build(path=None):
    return "/asan/" in str(path or te_bin())


def timeout_scale():
    """Sanitizer builds are several times slower; everything waits longer for them."""
    env = os.environ.get("TE_TEST_TIMEOUT_SCALE")
    if env:
        return float(env)
    return 4.0 if is_asan_build() else 1.0


def scaled(seconds):
    return seconds * timeout_scale()


def wait_until(pred, timeout, interval=0.05, what="condition"):
    """Polls pred() until it returns a truthy value; returns it, or raises TimeoutError."""
    deadline = time.monotonic() + timeout
    last_exc = None
    while True:
        try:
            v = pred()
            if v:
                return v
        except Exception as e:  # noqa: BLE001 - reported on timeout
            last_exc = e
        if time.monotonic() >= deadline:
            msg = f"timed out after {timeout:.1f}s waiting for {what}"
            if last_exc is not None:
                msg += f" (last error: {last_exc!r})"
            raise TimeoutError(msg)
        time.sleep(interval)


SANITIZER_PATTERNS = [
    re.compile(r"ERROR: AddressSanitizer"),
    re.compile(r"ERROR: LeakSanitizer"),
    re.compile(r"runtime error:"),
]


def sanitizer_excerpt(text, before=5, after=60):
    """The log lines around the first sanitizer report in text, or None if there is none."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if any(p.search(line) for p in SANITIZER_PATTERNS):
            return "\n".join(lines[max(0, i - before) : i + after])
    return None


def tail(text, n=40):
    return "\n".join(text.splitlines()[-n:])
