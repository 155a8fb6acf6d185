"""A private, throw-away PostgreSQL server for the integration tests.

initdb into a fresh directory under /tmp, start with pg_ctl on a free loopback port with
durability turned off (fsync, synchronous_commit, full_page_writes), and remove it all at
the end. PostgreSQL refuses to run as root, so when we are root every PostgreSQL command
runs as the `postgres` user through runuser and the directory is chowned to it.

Each test module (or test) gets its own database from create_database(): cheaper than a
server per test and just as isolated for our purposes.
"""

import atexit
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psycopg

from .util import free_port, tail

PG_USER = "postgres"


def find_pg_bindir():
    env = os.environ.get("TE_PG_BINDIR")
    if env:
        return Path(env)
    root = Path("/usr/lib/postgresql")
    if root.is_dir():
        versions = sorted(
            (p for p in root.iterdir() if (p / "bin" / "pg_ctl").exists()),
            key=lambda p: int(p.name) if p.name.isdigit() else 0,
        )
        if versions:
            return versions[-1] / "bin"
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    raise RuntimeError("PostgreSQL server binaries not found (set TE_PG_BINDIR)")


class Postgres:
    def __init__(self, bindir=None, max_connections=200):
        self.bindir = Path(bindir) if bindir else find_pg_bindir()
        self.max_connections = max_connections
        self.as_root = os.geteuid() == 0
        self.base = Path(tempfile.mkdtemp(prefix="te-pg-", dir="/tmp"))
        self.datadir = self.base / "data"
        self.log_path = self.base / "postgres.log"
        self.port = None
        self.running = False
        self._cleaned = False
        if self.as_root:
            pw = pwd.getpwnam(PG_USER)
            os.chown(self.base, pw.pw_uid, pw.pw_gid)
        os.chmod(self.base, 0o700)
        atexit.register(self.cleanup)

    # -- commands ---------------------------------------------------------------------

    def _argv(self, prog, *args):
        argv = [str(self.bindir / prog), *map(str, args)]
        if self.as_root:
            argv = ["runuser", "-u", PG_USER, "--", *argv]
        return argv

    def _run(self, prog, *args, timeout=120, check=True):
        # A new session: a Ctrl-C on the terminal must not reach the postmaster
        # before our own teardown has stopped taskexec and then PostgreSQL in order.
        p = subprocess.run(
            self._argv(prog, *args),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=timeout,
            start_new_session=True,
            cwd=self.base,
        )
        if check and p.returncode != 0:
            raise RuntimeError(
                f"{prog} {' '.join(map(str, args))} exited {p.returncode}:\n{p.stdout}\n"
                f"--- postgres log tail ---\n{self.log_tail()}"
            )
        return p

    def initdb(self):
        self._run(
            "initdb",
            "-D",
            self.datadir,
            "-A",
            "trust",
            "-U",
            PG_USER,
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
            "--no-instructions",
        )

    def start(self):
        if self.port is None:
            self.port = free_port()
        opts = " ".join(
            [
                f"-p {self.port}",
                "-c listen_addresses=127.0.0.1",
                f"-c unix_socket_directories='{self.base}'",
                f"-c max_connections={self.max_connections}",
                "-c fsync=off",
                "-c synchronous_commit=off",
                "-c full_page_writes=off",
            ]
        )
        self._run("pg_ctl", "-D", self.datadir, "-l", self.log_path, "-w", "-t", "60", "-o", opts, "start")
        self.running = True

    def stop(self, mode="fast"):
        self._run("pg_ctl", "-D", self.datadir, "-m", mode, "-w", "-t", "60", "stop")
        self.running = False

    def restart(self):
        self.stop()
        self.start()

    def is_running(self):
        return self._run("pg_ctl", "-D", self.datadir, "status", check=False).returncode == 0

    # -- SQL --------------------------------------------------------------------------

    def url(self, dbname="postgres"):
        return f"postgresql://{PG_USER}@127.0.0.1:{self.port}/{dbname}"

    def connect(self, dbname="postgres", **kw):
        """A psycopg connection (autocommit) to dbname; the caller closes it."""
        kw.setdefault("autocommit", True)
        kw.setdefault("connect_timeout", 10)
        return psycopg.connect(self.url(dbname), **kw)

    def sql(self, query, params=None, dbname="postgres"):
        """Runs one statement; returns all rows when it yields rows, else None."""
        with self.connect(dbname) as conn:
            cur = conn.execute(query, params)
            return cur.fetchall() if cur.description else None

    def create_database(self, name=None):
        name = name or f"te_{uuid.uuid4().hex[:12]}"
        self.sql(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name):
        self.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    # -- diagnostics and cleanup ------------------------------------------------------

    def log_tail(self, n=40):
        try:
            return tail(self.log_path.read_text(errors="replace"), n)
        except OSError:
            return "(no postgres log)"

    def _postmaster_pid(self):
        try:
            return int((self.datadir / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None

    def cleanup(self):
        """Stops the server (if it runs) and removes its directory. Idempotent."""
        if self._cleaned:
            return
        self._cleaned = True
        pid = self._postmaster_pid()
        if pid is not None:
            try:
                self._run("pg_ctl", "-D", self.datadir, "-m", "immediate", "-w", "-t", "30", "stop", check=False)
            except Exception:  # noqa: BLE001 - fall through to the kill below
                pass
            # The postmaster is ours (started above); if pg_ctl could not stop it, kill it.
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                except PermissionError:
                    break
                time.sleep(0.05)
            else:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        self.running = False
        shutil.rmtree(self.base, ignore_errors=True)
