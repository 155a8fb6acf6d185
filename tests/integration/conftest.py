"""Fixtures for the taskexec integration tests (pgbouncer test/conftest.py style).

    pg          session   one private PostgreSQL for the whole run (harness/postgres.py)
    module_db   module    a fresh database name on pg for the test module
    te          module    one taskexec on module_db, ready, for the test module
    te_factory  function  starts more taskexec processes: te_factory(db=..., env={...})
                          (db=None → a fresh database); stopped and checked after the test
    db          function  a psycopg connection (autocommit) to module_db
    redis       function  a private redis-server on a free loopback port (harness/streams.py)

Run one test:  TE_BIN=$PWD/build/taskexec /usr/bin/python3 -m pytest -q \
                   tests/integration/test_configs.py::test_crud
The binary is TE_BIN (default build/taskexec); a path containing /asan/ means an
ASan+UBSan build: sanitizer options are set and every timeout is multiplied by 4.
"""

import os

import pytest

from harness.postgres import Postgres
from harness.streams import Redis
from harness.taskexec import Taskexec, TaskexecFactory
from harness.util import te_bin


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "jobs_via_sql: inserts jobs rows directly with SQL because POST /jobs does not "
        "exist yet; rewrite with the API once it does",
    )


@pytest.fixture(scope="session")
def taskexec_binary():
    path = te_bin()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"taskexec binary {path} not found or not executable: run `make` (or set TE_BIN)")
    return path


@pytest.fixture(scope="session")
def pg():
    """The session's PostgreSQL; stopped and removed at the end (also on failure/Ctrl-C)."""
    server = Postgres()
    try:
        server.initdb()
        server.start()
        yield server
    finally:
        server.cleanup()


@pytest.fixture(scope="module")
def module_db(pg):
    return pg.create_database()


@pytest.fixture(scope="module")
def te(pg, module_db, taskexec_binary, tmp_path_factory, request):
    factory = TaskexecFactory(pg, tmp_path_factory.mktemp(request.module.__name__), taskexec_binary, module_db)
    try:
        yield factory.start()
    finally:
        factory.cleanup()


@pytest.fixture
def te_factory(pg, taskexec_binary, tmp_path):
    factory = TaskexecFactory(pg, tmp_path, taskexec_binary)
    try:
        yield factory
    finally:
        factory.cleanup()


@pytest.fixture
def db(pg, module_db):
    with pg.connect(module_db) as conn:
        yield conn


@pytest.fixture
def redis(tmp_path):
    r = Redis(tmp_path)
    r.start()
    try:
        yield r
    finally:
        r.stop()


@pytest.fixture
def tools_dir():
    """Where the helper binaries of tests/tools are built (the Makefile sets TE_TOOLS)."""
    return os.environ.get("TE_TOOLS") or str(te_bin().parent / "tools")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On failure, attach the tails of the taskexec and PostgreSQL logs to the report."""
    outcome = yield
    rep = outcome.get_result()
    if not rep.failed:
        return
    funcargs = getattr(item, "funcargs", {}) or {}
    seen = set()
    for value in funcargs.values():
        procs = []
        if isinstance(value, Taskexec):
            procs = [value]
        elif isinstance(value, TaskexecFactory):
            procs = value.procs
        for te in procs:
            if id(te) in seen:
                continue
            seen.add(id(te))
            rep.sections.append((f"taskexec log tail {te.log_path}", te.log_tail(60)))
    pg = funcargs.get("pg")
    if isinstance(pg, Postgres):
        rep.sections.append(("postgres log tail", pg.log_tail(30)))
