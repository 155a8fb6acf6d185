"""The execution engine end to end: jobs created through the API are delivered to a real
HTTP sink (harness/sink.py) by the worker, and the outcome is read back from the database.

One taskexec (all roles, 50 ms poll) serves the module; tests needing their own process
lifecycle (catch-up after a scheduler outage, graceful shutdown) use te_factory.
"""

import signal
import time
import json
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from harness.api import assert_status, uniq
from harness.sink import Sink, sink  # noqa: F401 - sink is a fixture
from harness.taskexec import TaskexecFactory
from harness.util import scaled, wait_until

TERMINAL = ("SUCCESS", "FAILED", "CANCELLED")
FAST = {"TE_WORKER_POLL_INTERVAL_MS": "50"}


# -- fixtures and helpers -----------------------------------------------------------------


@pytest.fixture(scope="module")
def engine(pg, module_db, taskexec_binary, tmp_path_factory):
    factory = TaskexecFactory(pg, tmp_path_factory.mktemp("engine"), taskexec_binary, module_db)
    try:
        yield factory.start(env=FAST)
    finally:
        factory.cleanup()


def iso(dt):
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def sql(conn, query, params=None):
    cur = conn.execute(query, params)
    return cur.fetchall() if cur.description else None


def make_endpoint(te, url, method="POST", body=None, headers=None, timeout_ms=5000, retry=None,
                  config=None, expected=None):
    spec = {"url": url, "method": method, "timeout_ms": timeout_ms}
    if body is not None:
        spec["body_template"] = body
    if headers is not None:
        spec["headers"] = headers
    if expected is not None:
        spec["expected_status_codes"] = expected
    ep = {"name": uniq("ep"), "type": "HTTP", "spec": spec}
    if retry is not None:
        ep["retry_policy"] = retry
    if config is not None:
        ep["config"] = config
    assert_status(te.post("/endpoints", json=ep), 201)
    return ep["name"]


def immediate(te, endpoint, input=None):
    body = {"endpoint": endpoint, "trigger": "IMMEDIATE", "idempotency_key": uuid.uuid4().hex,
            "input": input if input is not None else {}}
    job = assert_status(te.post("/jobs", json=body), 201)
    return job["job_id"], job["execution"]["execution_id"]


def wait_terminal(conn, execution_id, timeout):
    def done():
        rows = sql(conn, "SELECT status FROM executions WHERE execution_id = %s", (execution_id,))
        return rows and rows[0][0] in TERMINAL and rows[0][0]

    return wait_until(done, timeout, interval=0.05, what=f"execution {execution_id} to finish")


def execution(conn, execution_id):
    rows = sql(
        conn,
        "SELECT status, attempt_count, output, worker_id, max_attempts FROM executions"
        " WHERE execution_id = %s",
        (execution_id,),
    )
    assert len(rows) == 1
    s, n, out, wid, mx = rows[0]
    return {"status": s, "attempt_count": n, "output": out, "worker_id": wid, "max_attempts": mx}


def attempts(conn, execution_id):
    return sql(
        conn,
        "SELECT attempt_number, status, output, error FROM attempts WHERE execution_id = %s"
        " ORDER BY attempt_number",
        (execution_id,),
    )


def logs(conn, execution_id):
    return sql(
        conn,
        "SELECT attempt_number, level, message FROM execution_logs WHERE execution_id = %s"
        " ORDER BY logged_at, attempt_number",
        (execution_id,),
    )


def epoch_ms(dt):
    return int(round(dt.timestamp() * 1000))


# -- success and templates ----------------------------------------------------------------


def test_immediate_success_renders_templates_and_headers(engine, sink, db):
    cfg = uniq("cfg")
    assert_status(engine.post("/configs", json={"name": cfg, "values": {"x": "cfg-x", "n": 42}}), 201)
    sec = uniq("tok")
    token = "tok-" + uuid.uuid4().hex
    assert_status(engine.post("/secrets", json={"name": sec, "value": token}), 201)
    engine.forbid_in_log(token)
    ep = make_endpoint(
        engine,
        sink.url("/ok"),
        config=cfg,
        headers={"Authorization": "Bearer {{secret.%s}}" % sec, "X-User": "{{input.user.name}}"},
        body={
            "name": "{{input.user.name}}",
            "age": "{{input.user.age}}",
            "vip": "{{input.user.vip}}",
            "greeting": "hi {{input.user.name}} ({{input.user.age}})",
            "cfg": "{{config.x}}",
            "cfg_n": "{{config.n}}",
            "nested": {"list": ["{{input.user.name}}", 1, {"c": "{{config.x}}"}]},
            "const": "plain",
        },
    )
    _, xid = immediate(engine, ep, {"user": {"name": "Ada", "age": 36, "vip": True}})
    assert wait_terminal(db, xid, scaled(10)) == "SUCCESS", attempts(db, xid)

    reqs = sink.requests_for(xid)
    assert len(reqs) == 1, reqs
    r = reqs[0]
    assert r.method == "POST" and r.path == "/ok"
    assert r.json() == {
        "name": "Ada",
        "age": 36,
        "vip": True,
        "greeting": "hi Ada (36)",
        "cfg": "cfg-x",
        "cfg_n": 42,
        "nested": {"list": ["Ada", 1, {"c": "cfg-x"}]},
        "const": "plain",
    }
    assert r.header("Idempotency-Key") == xid
    assert r.header("X-Taskexec-Attempt") == "1"
    assert r.header("Authorization") == f"Bearer {token}"
    assert r.header("X-User") == "Ada"
    assert r.header("Content-Type", "").startswith("application/json")

    x = execution(db, xid)
    assert x["attempt_count"] == 1
    assert x["output"]["status_code"] == 200
    assert "body" in x["output"]
    rows = attempts(db, xid)
    assert [(a[0], a[1]) for a in rows] == [(1, "SUCCESS")], rows
    assert rows[0][2]["status_code"] == 200 and rows[0][3] is None
    lg = logs(db, xid)
    assert [l[1] for l in lg] == ["INFO"], lg

    # GET /jobs/{id} shows the finished execution
    job_id = sql(db, "SELECT job_id FROM executions WHERE execution_id = %s", (xid,))[0][0]
    job = assert_status(engine.get(f"/jobs/{job_id}"), 200)
    assert job["execution"]["execution_id"] == xid
    assert job["execution"]["status"] == "SUCCESS"


def test_get_without_body_has_no_content_type(engine, sink, db):
    ep = make_endpoint(engine, sink.url("/ok?q={{input.q}}"), method="GET")
    _, xid = immediate(engine, ep, {"q": "v1"})
    assert wait_terminal(db, xid, scaled(10)) == "SUCCESS", attempts(db, xid)
    (r,) = sink.requests_for(xid)
    assert r.method == "GET" and r.path == "/ok?q=v1"
    assert r.body == b""
    assert r.header("Content-Type") is None, r.raw_headers


# -- retries --------------------------------------------------------------------------------


def test_retry_503_twice_then_success_with_backoff(engine, sink, db):
    key = uuid.uuid4().hex[:10]
    ep = make_endpoint(
        engine,
        sink.url(f"/flaky/{key}/2"),
        body={"k": key},
        retry={"max_attempts": 3, "backoff": "exponential", "initial_delay_ms": 200},
    )
    _, xid = immediate(engine, ep)
    assert wait_terminal(db, xid, scaled(15)) == "SUCCESS", attempts(db, xid)

    reqs = sorted(sink.requests_for(xid), key=lambda r: r.arrived_mono)
    assert len(reqs) == 3, [(r.path, r.attempt) for r in reqs]
    assert [r.header("Idempotency-Key") for r in reqs] == [xid] * 3
    assert [r.attempt for r in reqs] == [1, 2, 3]
    gaps = [b.arrived_mono - a.arrived_mono for a, b in zip(reqs, reqs[1:])]
    for gap, delay_ms in zip(gaps, (200, 400)):
        assert gap >= 0.75 * delay_ms / 1000 - 0.005, f"backoff not honoured: gaps {gaps}"

    rows = attempts(db, xid)
    assert [(a[0], a[1]) for a in rows] == [(1, "FAILED"), (2, "FAILED"), (3, "SUCCESS")], rows
    for a in rows[:2]:
        assert a[3]["type"] == "HTTP_ERROR" and a[3]["status_code"] == 503, a
    assert rows[2][2]["status_code"] == 200
    x = execution(db, xid)
    assert x["attempt_count"] == 3 and x["output"]["status_code"] == 200
    assert [l[1] for l in logs(db, xid)] == ["WARN", "WARN", "INFO"], logs(db, xid)


def test_unexpected_status_exhausts_attempts(engine, sink, db):
    ep = make_endpoint(
        engine, sink.url("/status/500"),
        retry={"max_attempts": 2, "backoff": "fixed", "initial_delay_ms": 50},
    )
    _, xid = immediate(engine, ep)
    assert wait_terminal(db, xid, scaled(10)) == "FAILED"
    rows = attempts(db, xid)
    assert [(a[0], a[1], a[3]["type"], a[3]["status_code"]) for a in rows] == [
        (1, "FAILED", "HTTP_ERROR", 500), (2, "FAILED", "HTTP_ERROR", 500)]
    assert len(sink.requests_for(xid)) == 2
    assert [l[1] for l in logs(db, xid)] == ["WARN", "ERROR"], logs(db, xid)


def test_timeout(engine, sink, db):
    ep = make_endpoint(engine, sink.url("/slow/2000"), timeout_ms=300)
    _, xid = immediate(engine, ep)
    assert wait_terminal(db, xid, scaled(10)) == "FAILED"
    (dur,) = sql(db, "SELECT duration_ms FROM attempts WHERE execution_id = %s", (xid,))[0]
    assert dur is not None and 250 <= dur < 1500, f"attempt took {dur} ms: not cut off at 300 ms"
    rows = attempts(db, xid)
    assert len(rows) == 1 and rows[0][1] == "FAILED" and rows[0][3]["type"] == "TIMEOUT", rows
    assert execution(db, xid)["attempt_count"] == 1


def test_connection_refused(engine, db):
    ep = make_endpoint(engine, Sink.refused_url("/nothing"))
    _, xid = immediate(engine, ep)
    assert wait_terminal(db, xid, scaled(10)) == "FAILED"
    rows = attempts(db, xid)
    assert len(rows) == 1 and rows[0][3]["type"] == "CONNECTION_ERROR", rows


def test_unresolvable_template_fails_once_without_delivery(engine, sink, db):
    ep = make_endpoint(
        engine, sink.url("/ok"), body={"v": "{{input.missing}}"},
        retry={"max_attempts": 3, "backoff": "fixed", "initial_delay_ms": 50},
    )
    _, xid = immediate(engine, ep, {"present": 1})
    assert wait_terminal(db, xid, scaled(10)) == "FAILED"
    time.sleep(0.5)  # a (wrong) retry would have happened by now
    rows = attempts(db, xid)
    assert len(rows) == 1, rows
    assert rows[0][1] == "FAILED" and rows[0][3]["type"] == "TEMPLATE_RESOLUTION_FAILED", rows
    assert execution(db, xid)["attempt_count"] == 1
    assert sink.requests_for(xid) == []
    assert [l[1] for l in logs(db, xid)] == ["ERROR"]


# -- secrets ----------------------------------------------------------------------------------


def test_secret_values_are_redacted_everywhere(engine, sink, db):
    sec = uniq("tok")
    token = "s3cr3t-" + uuid.uuid4().hex
    engine.forbid_in_log(token)
    assert_status(engine.post("/secrets", json={"name": sec, "value": token}), 201)
    ref = "{{secret.%s}}" % sec
    ok_ep = make_endpoint(
        engine, sink.url("/echo"),
        headers={"Authorization": f"Bearer {ref}"},
        body={"token": ref, "msg": f"token={ref}"},
    )
    # a failing delivery whose response echoes the secret back (HTTP_ERROR keeps the body)
    bad_ep = make_endpoint(
        engine, sink.url("/echo"),
        headers={"Authorization": f"Bearer {ref}"},
        body={"token": ref}, expected=[201],
    )
    # a connection error whose URL carries the secret
    refused_ep = make_endpoint(engine, Sink.refused_url("/x?t=" + ref))
    jobs = {}
    for ep in (ok_ep, bad_ep, refused_ep):
        jobs[ep] = immediate(engine, ep)
    for ep, (_, xid) in jobs.items():
        wait_terminal(db, xid, scaled(10))

    ok_x = jobs[ok_ep][1]
    assert execution(db, ok_x)["status"] == "SUCCESS"
    # the sink did get the real value...
    (r,) = sink.requests_for(ok_x)
    assert r.header("Authorization") == f"Bearer {token}"
    assert r.json() == {"token": token, "msg": f"token={token}"}
    # ...and the recorded HTTP output (which echoes it) shows *** instead
    out = execution(db, ok_x)["output"]
    assert "***" in str(out), out
    assert execution(db, jobs[bad_ep][1])["status"] == "FAILED"
    assert "***" in str(attempts(db, jobs[bad_ep][1])[0][3]), attempts(db, jobs[bad_ep][1])

    xids = [x for _, x in jobs.values()]
    texts = []
    for (o,) in sql(db, "SELECT output::TEXT FROM executions WHERE execution_id = ANY(%s)", (xids,)):
        texts.append(o or "")
    for o, e in sql(db, "SELECT output::TEXT, error::TEXT FROM attempts WHERE execution_id = ANY(%s)",
                    (xids,)):
        texts += [o or "", e or ""]
    for (m,) in sql(db, "SELECT message FROM execution_logs WHERE execution_id = ANY(%s)", (xids,)):
        texts.append(m)
    for t in texts:
        assert token not in t, t
    for path in (f"/secrets/{sec}", f"/endpoints/{ok_ep}", "/secrets?limit=200"):
        resp = engine.get(path)
        assert resp.status_code == 200 and token not in resp.text, (path, resp.text[:300])
    for ep, (job_id, _) in jobs.items():
        resp = engine.get(f"/jobs/{job_id}")
        assert resp.status_code == 200 and token not in resp.text
    assert token not in engine.log_text()


# -- delayed ----------------------------------------------------------------------------------


def test_delayed_job_delivered_at_run_at(engine, sink, db):
    ep = make_endpoint(engine, sink.url("/ok"), body={"d": 1})
    run_at = datetime.now(timezone.utc) + timedelta(seconds=2)
    run_at = run_at.replace(microsecond=(run_at.microsecond // 1000) * 1000)
    body = {"endpoint": ep, "trigger": "DELAYED", "idempotency_key": uuid.uuid4().hex,
            "run_at": iso(run_at), "input": {}}
    job = assert_status(engine.post("/jobs", json=body), 201)
    xid = job["execution"]["execution_id"]
    assert job["execution"]["status"] == "PENDING"
    (r,) = sink.wait_for_execution(xid, 1, scaled(6))
    lateness = r.arrived - run_at.timestamp()
    assert lateness >= 0, f"delivered {-lateness:.3f}s before run_at"
    assert lateness <= 1.0 * scaled(1), f"delivered {lateness:.3f}s after run_at"
    assert wait_terminal(db, xid, scaled(5)) == "SUCCESS"


# -- cron ---------------------------------------------------------------------------------------


def test_cron_every_minute_fires(engine, sink, db):
    """The one slow test: waits for a real minute boundary (up to ~70 s)."""
    ep = make_endpoint(engine, sink.url("/ok"), body={"job": "{{input.tag}}"})
    tag = uuid.uuid4().hex
    body = {"endpoint": ep, "trigger": "CRON", "cron": "* * * * *", "timezone": "UTC",
            "input": {"tag": tag}}
    job_id = assert_status(engine.post("/jobs", json=body), 201)["job_id"]
    try:
        def fired():
            return sql(db, "SELECT execution_id, idempotency_key, run_at FROM executions"
                           " WHERE job_id = %s ORDER BY run_at", (job_id,))

        rows = wait_until(fired, scaled(75), interval=0.2, what="the first cron execution")
        xid, key, run_at = rows[0]
        assert key == f"job_{job_id}_{epoch_ms(run_at)}", (key, run_at)
        assert run_at.second == 0 and run_at.microsecond == 0, run_at
        assert wait_terminal(db, xid, scaled(10)) == "SUCCESS", attempts(db, xid)
        (r,) = sink.requests_for(xid)
        assert r.json() == {"job": tag}
        assert r.arrived >= run_at.timestamp()
    finally:
        # no DELETE /jobs yet: retire it so that it stops firing for the rest of the module
        sql(db, "UPDATE jobs SET status = 'RETIRED', retired_at = now() WHERE job_id = %s", (job_id,))


def test_cron_catch_up_after_scheduler_outage(pg, te_factory, sink):
    # the "outage": the job is created while no scheduler runs (an api-only process)
    first = te_factory(env={**FAST, "TE_ROLES": "api"})
    dbname = first.env["TE_DATABASE_URL"].rsplit("/", 1)[1]
    ep = make_endpoint(first, sink.url("/ok"), body={"t": "{{input.t}}"})
    with pg.connect(dbname) as conn:
        now = sql(conn, "SELECT now()")[0][0]
        body = {"endpoint": ep, "trigger": "CRON", "cron": "* * * * *", "timezone": "UTC",
                "starts_at": iso(now - timedelta(days=1)), "input": {"t": "x"}}
        job_id = assert_status(first.post("/jobs", json=body), 201)["job_id"]
        first.stop()
        minute = sql(conn, "SELECT date_trunc('minute', now())")[0][0]
        sql(conn, "DELETE FROM executions WHERE job_id = %s AND status IN ('QUEUED', 'PENDING')",
            (job_id,))
        before = sql(conn, "SELECT count(*) FROM executions WHERE job_id = %s", (job_id,))[0][0]
        sql(conn, "UPDATE jobs SET cron_next_run_at = %s WHERE job_id = %s",
            (minute - timedelta(minutes=3), job_id))
        t0 = time.monotonic()
        second = te_factory(db=dbname, env=FAST)  # all roles, scheduler included

        def caught_up():
            n = sql(conn, "SELECT count(*) FROM executions WHERE job_id = %s"
                          " AND run_at >= %s", (job_id, minute - timedelta(minutes=3)))[0][0]
            return n >= 3 and n

        n = wait_until(caught_up, scaled(10), interval=0.1, what="cron catch-up")
        assert time.monotonic() - t0 < scaled(10)
        rows = sql(conn, "SELECT run_at, idempotency_key FROM executions WHERE job_id = %s"
                         " AND run_at >= %s ORDER BY run_at", (job_id, minute - timedelta(minutes=3)))
        runs = [r[0] for r in rows]
        assert runs[:3] == [minute - timedelta(minutes=k) for k in (3, 2, 1)], runs
        assert len(runs) == len(set(runs)), runs
        assert [r[1] for r in rows] == [f"job_{job_id}_{epoch_ms(r[0])}" for r in rows]
        # ...and they are all delivered
        xids = [r[0] for r in sql(conn, "SELECT execution_id FROM executions WHERE job_id = %s"
                                        " AND run_at >= %s", (job_id, minute - timedelta(minutes=3)))]
        for xid in xids:
            assert wait_terminal(conn, xid, scaled(10)) == "SUCCESS"
        assert second.is_running() and before == 0 and n >= 3


# -- graceful shutdown ----------------------------------------------------------------------------


def test_sigterm_waits_for_in_flight_delivery(pg, te_factory, sink):
    te = te_factory(env={**FAST, "TE_WORKER_SHUTDOWN_TIMEOUT_SEC": "10"})
    dbname = te.env["TE_DATABASE_URL"].rsplit("/", 1)[1]
    ep = make_endpoint(te, sink.url("/slow/1500"), timeout_ms=5000)
    _, xid = immediate(te, ep)
    sink.wait_for_execution(xid, 1, scaled(5))
    t0 = time.monotonic()
    te.stop(sig=signal.SIGTERM, timeout=scaled(15), expect_code=0)  # asserts exit code 0
    waited = time.monotonic() - t0
    assert waited >= 1.0, f"exited {waited:.2f}s after SIGTERM, before the delivery finished"
    with pg.connect(dbname) as conn:
        x = execution(conn, xid)
        assert x["status"] == "SUCCESS", (x, attempts(conn, xid), te.log_tail(30))
        assert x["attempt_count"] == 1
        assert [(a[0], a[1]) for a in attempts(conn, xid)] == [(1, "SUCCESS")]
    assert len(sink.requests_for(xid)) == 1


def test_many_headers_and_status_codes(engine, sink, db):
    """No fixed limit: 80 headers (the sink's http.server takes at most 100 in all) all reach
    the target, and a status listed 40th in expected_status_codes counts as success."""
    headers = {f"X-H{i:03}": f"v{i}-{{{{input.tag}}}}" for i in range(80)}
    expected = list(range(200, 240))
    ep = make_endpoint(engine, sink.url("/status/239"), headers=headers, expected=expected,
                       body={"t": "{{input.tag}}"})
    _, xid = immediate(engine, ep, {"tag": "z"})
    assert wait_terminal(db, xid, scaled(10)) == "SUCCESS", attempts(db, xid)
    (r,) = sink.requests_for(xid)
    assert all(r.header(f"X-H{i:03}") == f"v{i}-z" for i in range(80))
    assert r.header("Idempotency-Key") == xid


def test_every_secret_used_is_redacted(engine, sink, db):
    """However many distinct secrets a delivery uses (40 here), each is hidden in what is
    recorded: /echo sends all the headers back, and the output holds none of their values."""
    values = [f"s3cr3t-{i:02}-{uuid.uuid4().hex}" for i in range(40)]
    names = [uniq("many") for _ in values]
    for n, v in zip(names, values):
        assert_status(engine.post("/secrets", json={"name": n, "value": v}), 201)
    headers = {f"X-S{i:02}": "{{secret.%s}}" % n for i, n in enumerate(names)}
    ep = make_endpoint(engine, sink.url("/echo"), headers=headers)
    _, xid = immediate(engine, ep)
    assert wait_terminal(db, xid, scaled(10)) == "SUCCESS"
    (r,) = sink.requests_for(xid)
    assert [r.header(f"X-S{i:02}") for i in range(40)] == values
    recorded = json.dumps(execution(db, xid)["output"]) + engine.get(f"/executions/{xid}").text
    assert "***" in recorded
    leaked = [v for v in values if v in recorded]
    assert leaked == []
