"""Readiness, and riding out a PostgreSQL outage without a restart of taskexec.

This module stops the session's PostgreSQL; it always starts it again."""

import time

import pytest
import requests

from harness.api import assert_error, assert_status, uniq
from harness.util import scaled, wait_until


def readyz(te):
    return requests.get(te.url("/readyz"), timeout=te.http_timeout)


def test_readyz_and_healthz_when_db_works(te):
    r = readyz(te)
    assert r.status_code == 200, r.text
    assert r.headers.get("X-Request-Id")
    r = requests.get(te.url("/healthz"), timeout=te.http_timeout)
    assert r.status_code == 200, r.text


@pytest.fixture
def pg_outage(pg):
    """Stops PostgreSQL for the test; starts it again whatever happens."""
    pg.stop()
    try:
        yield pg
    finally:
        if not pg.is_running():
            pg.start()


def test_db_outage_503_then_recovery(pg, te, te_factory, module_db):
    srv = te_factory(db=module_db)
    name = uniq("cfg")
    assert_status(srv.post("/configs", json={"name": name, "values": {"a": 1}}), 201)

    pg.stop()
    try:
        # the probe notices within a few seconds
        wait_until(lambda: readyz(srv).status_code == 503, scaled(10), what="/readyz 503 during the outage")
        r = readyz(srv)
        assert r.status_code == 503 and r.headers.get("X-Request-Id")

        # every API call during the outage: 503 with the error shape, promptly
        deadline = time.monotonic() + 3
        calls = 0
        while time.monotonic() < deadline or calls < 6:
            for resp in (
                srv.get("/configs"),
                srv.get(f"/configs/{name}"),
                srv.post("/configs", json={"name": uniq("cfg"), "values": {}}),
            ):
                assert_error(resp, 503, "SERVICE_UNAVAILABLE")
                calls += 1
            time.sleep(0.2)
        # things that need no database still work
        assert_error(srv.get("/nope"), 404, "NOT_FOUND")
        assert_error(srv.anon("GET", "/configs"), 401, "UNAUTHORIZED")
        assert requests.get(srv.url("/healthz"), timeout=srv.http_timeout).status_code == 200
        assert srv.is_running(), "taskexec exited during the outage"
    finally:
        pg.start()

    # back within ~15 s, same process
    wait_until(lambda: srv.get("/configs").status_code == 200, scaled(15), what="API to recover after the outage")
    wait_until(lambda: readyz(srv).status_code == 200, scaled(15), what="/readyz 200 after the outage")
    assert srv.get(f"/configs/{name}").json()["values"] == {"a": 1}
    other = uniq("cfg")
    assert_status(srv.post("/configs", json={"name": other, "values": {}}), 201)
    # a burst of requests: every pooled connection has been replaced
    for _ in range(50):
        assert_status(srv.get(f"/configs/{other}"), 200)
    # the module's other server recovered as well
    wait_until(lambda: te.get("/configs").status_code == 200, scaled(15), what="second server to recover")


def test_outage_while_server_idle_then_restart_of_pg(pg, te_factory, module_db):
    """A quick restart (no requests during the outage) is invisible after recovery."""
    srv = te_factory(db=module_db)
    pg.restart()
    wait_until(lambda: srv.get("/configs").status_code == 200, scaled(15), what="API after a PostgreSQL restart")
    assert_status(srv.post("/configs", json={"name": uniq("cfg"), "values": {}}), 201)


def test_start_while_db_down_becomes_ready_later(pg_outage, te_factory, module_db):
    """taskexec started while PostgreSQL is down either waits (not listening yet, or
    /readyz 503) or exits non-zero; if it waits, it becomes ready once PostgreSQL is back."""
    srv = te_factory(db=module_db, wait=False)
    time.sleep(scaled(1.5))
    if not srv.is_running():
        code = srv.wait_exit()
        srv.stopped = True
        assert code != 0, "exited 0 without a database"
        return
    try:
        r = readyz(srv)
        assert r.status_code == 503, r.text
    except requests.ConnectionError:
        pass  # not listening before the database is there: fine too
    pg_outage.start()
    srv.wait_ready()
    assert_status(srv.get("/configs"), 200)
