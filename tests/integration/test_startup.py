"""Startup: configuration errors, --help, migrations (also concurrent ones)."""

import signal
import time

import pytest

from harness.api import assert_status, uniq
from harness.util import scaled

TABLES = [
    "schema_migrations",
    "payload_specs",
    "configs",
    "secrets",
    "endpoints",
    "jobs",
    "executions",
    "attempts",
    "execution_logs",
    "region_heartbeats",
    "region_status",
]


def tables(pg, db):
    rows = pg.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'", dbname=db)
    return {r[0] for r in rows}


def lines_naming(output, var):
    return [line for line in output.splitlines() if var in line]


def assert_config_error(result, var):
    assert result.returncode not in (0, None), f"exited {result.returncode}:\n{result.output}"
    assert result.returncode > 0, f"killed by signal {-result.returncode}:\n{result.output}"
    assert lines_naming(result.output, var), f"no line names {var}:\n{result.output}"


@pytest.mark.parametrize(
    "value",
    [None, "", "0123456789", "zz" * 32, "00" * 31, "00" * 33],
    ids=["missing", "empty", "10-hex", "not-hex", "31-bytes", "33-bytes"],
)
def test_bad_secret_encryption_key(te_factory, value):
    t0 = time.monotonic()
    res = te_factory.run(env={"TE_SECRET_ENCRYPTION_KEY": value}, timeout=scaled(10))
    assert_config_error(res, "TE_SECRET_ENCRYPTION_KEY")
    assert time.monotonic() - t0 < scaled(5), "took too long to refuse the configuration"


@pytest.mark.parametrize(
    "var,value",
    [
        ("TE_DB_POOL_SIZE", "abc"),
        ("TE_DB_POOL_SIZE", "10abc"),
        ("TE_DB_POOL_SIZE", "-1"),
        ("TE_DB_POOL_SIZE", "99999999999999999999999"),
        ("TE_MAX_BODY_BYTES", "lots"),
        ("TE_LISTEN_ADDR", "not-an-address"),
        ("TE_LISTEN_ADDR", "127.0.0.1:99999"),
    ],
)
def test_bad_setting_is_named(te_factory, var, value):
    res = te_factory.run(env={var: value}, timeout=scaled(10))
    assert_config_error(res, var)


def test_missing_database_url(te_factory):
    res = te_factory.run(env={"TE_DATABASE_URL": None}, timeout=scaled(10))
    assert_config_error(res, "TE_DATABASE_URL")


def test_help(te_factory):
    res = te_factory.run(["--help"], base=False, timeout=scaled(10))
    assert res.returncode == 0, res.output
    for var in ("TE_DATABASE_URL", "TE_LISTEN_ADDR", "TE_API_KEYS", "TE_SECRET_ENCRYPTION_KEY", "TE_MAX_BODY_BYTES"):
        assert var in res.output, f"--help does not list {var}:\n{res.output}"


def test_migrate_command_twice(pg, te_factory):
    db = pg.create_database()
    url = pg.url(db)
    first = te_factory.run(["migrate"], env={"TE_DATABASE_URL": url}, base=False)
    assert first.returncode == 0, first.output
    assert set(TABLES) <= tables(pg, db)
    versions = pg.sql("SELECT count(*) FROM schema_migrations", dbname=db)[0][0]
    assert versions >= 1
    second = te_factory.run(["migrate"], env={"TE_DATABASE_URL": url}, base=False)
    assert second.returncode == 0, second.output
    assert pg.sql("SELECT count(*) FROM schema_migrations", dbname=db)[0][0] == versions
    # and a server on the migrated database starts normally
    srv = te_factory(db=db)
    assert_status(srv.get("/configs"), 200)


def test_server_migrates_fresh_database(pg, te_factory):
    db = pg.create_database()
    srv = te_factory(db=db)
    assert set(TABLES) <= tables(pg, db)
    assert pg.sql("SELECT region, alive FROM region_status", dbname=db) == [("default", True)]
    assert_status(srv.get("/endpoints"), 200)


def test_two_processes_migrate_at_once(pg, te_factory):
    for _ in range(3):
        db = pg.create_database()
        a = te_factory(db=db, wait=False)
        b = te_factory(db=db, wait=False)
        a.wait_ready()
        b.wait_ready()
        assert set(TABLES) <= tables(pg, db)
        assert pg.sql("SELECT count(*) FROM region_status", dbname=db) == [(1,)]
        name = uniq("cfg")
        assert_status(a.post("/configs", json={"name": name, "values": {}}), 201)
        assert_status(b.get(f"/configs/{name}"), 200)
        a.stop()
        b.stop()


def test_restart_on_same_database_keeps_data(pg, te_factory):
    db = pg.create_database()
    first = te_factory(db=db)
    name = uniq("cfg")
    assert_status(first.post("/configs", json={"name": name, "values": {"k": 1}}), 201)
    first.stop()
    second = te_factory(db=db)
    assert second.get(f"/configs/{name}").json()["values"] == {"k": 1}


def test_secret_written_with_one_key_survives_restart_with_same_key(pg, te_factory):
    db = pg.create_database()
    first = te_factory(db=db)
    key = first.env["TE_SECRET_ENCRYPTION_KEY"]
    name = uniq("sec")
    assert_status(first.post("/secrets", json={"name": name, "value": "s3cr3t-value-123"}), 201)
    first.stop()
    second = te_factory(db=db, env={"TE_SECRET_ENCRYPTION_KEY": key})
    assert_status(second.get(f"/secrets/{name}"), 200)


def test_sigint_stops_cleanly(te_factory):
    srv = te_factory()
    srv.stop(sig=signal.SIGINT)
