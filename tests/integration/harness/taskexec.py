"""Starting, talking to and stopping the real taskexec binary (h2o's spawn_h2o idea).

Every process gets its own free loopback port, fresh random API keys and a fresh secret
encryption key, and writes stdout+stderr to a log file. A process is "good" at the end
when it exits 0 on SIGTERM within the time limit and its log has no sanitizer report
(ASan, LSan, UBSan) and none of the strings a test registered with forbid_in_log().
"""

import os
import secrets
import signal
import subprocess
import time
from pathlib import Path

import requests

from .util import free_port, is_asan_build, sanitizer_excerpt, scaled, tail, te_bin

ASAN_OPTIONS = "detect_leaks=1:abort_on_error=0:halt_on_error=1"
UBSAN_OPTIONS = "print_stacktrace=1:halt_on_error=1"


class TaskexecError(AssertionError):
    """A taskexec process misbehaved (did not start, did not stop cleanly, sanitizer report)."""


def new_api_key():
    return "te_test_" + secrets.token_hex(16)


def new_secret_key():
    return secrets.token_hex(32)


def child_env(binary, overrides):
    """The environment for a taskexec child: ours minus every TE_* (so that nothing the
    developer exported leaks in), plus the sanitizer options, plus overrides (a value of
    None removes the variable)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TE_")}
    if is_asan_build(binary):
        env["ASAN_OPTIONS"] = ASAN_OPTIONS
        env["UBSAN_OPTIONS"] = UBSAN_OPTIONS
    for k, v in overrides.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = str(v)
    return env


class Taskexec:
    """One taskexec server process. Created by TaskexecFactory.start()."""

    def __init__(self, binary, env, log_path, args=()):
        self.binary = Path(binary)
        self.env = env
        self.args = list(args)
        self.log_path = Path(log_path)
        self.proc = None
        self.stopped = False
        self.forbidden = []
        host, port = env["TE_LISTEN_ADDR"].rsplit(":", 1)
        self.host, self.port = host, int(port)
        self.base_url = f"http://{host}:{port}"
        keys = [k for k in env.get("TE_API_KEYS", "").split(",") if k]
        self.api_keys = keys
        self.api_key = keys[0] if keys else None
        self.http_timeout = scaled(10)
        self.session = requests.Session()
        if self.api_key:
            self.session.headers["Authorization"] = f"Bearer {self.api_key}"

    def __repr__(self):
        return f"<taskexec {self.base_url} log={self.log_path}>"

    # -- lifecycle --------------------------------------------------------------------

    def start(self):
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as logf:
            # Own session: a Ctrl-C of pytest must not kill the server behind the
            # harness's back; teardown stops it and checks how it went.
            self.proc = subprocess.Popen(
                [str(self.binary), *self.args],
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=logf,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                cwd=self.log_path.parent,
            )
        return self

    @property
    def pid(self):
        return self.proc.pid

    def is_running(self):
        return self.proc is not None and self.proc.poll() is None

    def wait_ready(self, timeout=None):
        """Polls GET /readyz until it answers 200; fails with the log tail otherwise."""
        timeout = scaled(15) if timeout is None else timeout
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            code = self.proc.poll()
            if code is not None:
                self.stopped = True
                raise TaskexecError(
                    f"taskexec exited with code {code} before it became ready\n"
                    f"--- log tail ({self.log_path}) ---\n{self.log_tail(60)}"
                )
            try:
                r = requests.get(self.base_url + "/readyz", timeout=1)
                if r.status_code == 200:
                    return self
                last = f"HTTP {r.status_code}: {r.text[:200]}"
            except requests.RequestException as e:
                last = repr(e)
            time.sleep(0.05)
        raise TaskexecError(
            f"taskexec not ready after {timeout:.0f}s (last /readyz: {last})\n"
            f"--- log tail ({self.log_path}) ---\n{self.log_tail(60)}"
        )

    def send_signal(self, sig):
        self.proc.send_signal(sig)

    def wait_exit(self, timeout=None):
        """Waits for the process to exit on its own; returns its exit code (None on timeout)."""
        try:
            return self.proc.wait(timeout=scaled(15) if timeout is None else timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, sig=signal.SIGTERM, timeout=None, expect_code=0):
        """Sends sig and asserts a clean exit (code expect_code) within the timeout, and a
        log without sanitizer reports or forbidden strings. Idempotent."""
        if self.stopped or self.proc is None:
            return
        self.stopped = True
        timeout = scaled(15) if timeout is None else timeout
        problems = []
        code = self.proc.poll()
        if code is not None:
            problems.append(f"taskexec had already exited with code {code} before it was stopped")
        else:
            self.proc.send_signal(sig)
            try:
                code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                code = None
                problems.append(f"taskexec did not exit within {timeout:.0f}s of {sig.name}; killed")
            if code is not None and code != expect_code:
                problems.append(f"taskexec exited with code {code} after {sig.name}, expected {expect_code}")
        self.session.close()
        problems += self.log_problems()
        if problems:
            raise TaskexecError(
                "\n".join(problems) + f"\n--- log tail ({self.log_path}) ---\n{self.log_tail(60)}"
            )

    def kill(self):
        """SIGKILL, no checks (for tests that simulate a crash)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.stopped = True

    # -- logs -------------------------------------------------------------------------

    def log_text(self):
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, n=40):
        return tail(self.log_text(), n)

    def forbid_in_log(self, text):
        """Registers a string (e.g. a secret value) that must never appear in the log."""
        self.forbidden.append(text)

    def log_problems(self):
        text = self.log_text()
        problems = []
        excerpt = sanitizer_excerpt(text)
        if excerpt:
            problems.append(f"sanitizer report in the taskexec log:\n{excerpt}")
        for s in self.forbidden:
            if s in text:
                problems.append(f"forbidden string {s[:6]}… appears in the taskexec log")
        return problems

    # -- HTTP -------------------------------------------------------------------------

    def url(self, path):
        return self.base_url + path

    def request(self, method, path, **kw):
        kw.setdefault("timeout", self.http_timeout)
        return self.session.request(method, self.base_url + path, **kw)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, json=None, **kw):
        return self.request("POST", path, json=json, **kw)

    def put(self, path, json=None, **kw):
        return self.request("PUT", path, json=json, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def anon(self, method, path, **kw):
        """A request without the Authorization header (or with the headers given)."""
        kw.setdefault("timeout", self.http_timeout)
        return requests.request(method, self.base_url + path, **kw)


class TaskexecFactory:
    """Starts taskexec processes for one test (or module) and checks them all at the end.

    pg: the harness.postgres.Postgres server; tmpdir: where the logs go; default_db: the
    database used when start() is not given one (None → a fresh database per process).
    """

    def __init__(self, pg, tmpdir, binary=None, default_db=None):
        self.pg = pg
        self.tmpdir = Path(tmpdir)
        self.binary = Path(binary or te_bin())
        self.default_db = default_db
        self.procs = []
        self.cli_results = []
        self._n = 0

    def base_env(self, db=None):
        db = db or self.default_db or self.pg.create_database()
        return {
            "TE_DATABASE_URL": self.pg.url(db),
            "TE_LISTEN_ADDR": f"127.0.0.1:{free_port()}",
            "TE_API_KEYS": f"{new_api_key()},{new_api_key()}",
            "TE_SECRET_ENCRYPTION_KEY": new_secret_key(),
            "TE_LOG_LEVEL": "debug",
        }

    def _log_path(self, what):
        self._n += 1
        return self.tmpdir / f"{what}-{self._n}.log"

    def start(self, db=None, env=None, args=(), wait=True):
        """Starts a server. env overrides the defaults (None removes a variable); db is a
        database name on self.pg. Waits for /readyz unless wait=False."""
        overrides = self.base_env(db)
        overrides.update(env or {})
        te = Taskexec(self.binary, child_env(self.binary, overrides), self._log_path("taskexec"), args)
        self.procs.append(te)
        te.start()
        if wait:
            te.wait_ready()
        return te

    __call__ = start

    def run(self, args=(), env=None, db=None, timeout=None, base=True):
        """Runs the binary to completion (CLI use: --help, migrate, bad configuration).
        Returns a CompletedProcess with .returncode and .output (stdout+stderr).
        base=False starts from an environment with no TE_* at all."""
        overrides = self.base_env(db) if base else {}
        overrides.update(env or {})
        log_path = self._log_path("cli")
        timeout = scaled(15) if timeout is None else timeout
        with open(log_path, "wb") as logf:
            p = subprocess.run(
                [str(self.binary), *args],
                env=child_env(self.binary, overrides),
                stdin=subprocess.DEVNULL,
                stdout=logf,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                start_new_session=True,
                cwd=self.tmpdir,
            )
        p.output = log_path.read_text(errors="replace")
        p.log_path = log_path
        self.cli_results.append(p)
        return p

    def cleanup(self):
        """Stops every process still running (each must exit 0 on SIGTERM) and checks every
        log; raises one TaskexecError naming all problems."""
        problems = []
        for te in self.procs:
            try:
                te.stop()
            except TaskexecError as e:
                problems.append(f"{te}: {e}")
            except Exception as e:  # noqa: BLE001 - keep stopping the others
                te.kill()
                problems.append(f"{te}: {e!r}")
        for p in self.cli_results:
            excerpt = sanitizer_excerpt(p.output)
            if excerpt:
                problems.append(f"sanitizer report from `taskexec {' '.join(p.args[1:])}`:\n{excerpt}")
        self.procs.clear()
        self.cli_results.clear()
        if problems:
            raise TaskexecError("\n\n".join(problems))
