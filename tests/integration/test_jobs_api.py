"""Jobs and executions API beyond create/get/list: PUT (versions), cancel, status,
versions, a job's executions, and /executions/{id} with its attempts and logs.

The server runs with TE_ROLES=api so that no worker or scheduler moves executions;
tests put executions, attempts and logs in the states they need with SQL."""

import itertools
import math
import threading
import uuid
from datetime import datetime, timedelta, timezone

import pytest
import requests

from harness.api import assert_error, assert_status, http_endpoint, parse_ts, uniq
from harness.taskexec import TaskexecFactory
from harness.util import scaled, wait_until

_seq = itertools.count(1)


def new_id(prefix, at=None):
    """A valid time-ordered id (prefix_ + 32 hex): ms timestamp then a process counter."""
    ms = int((at or datetime.now(timezone.utc)).timestamp() * 1000)
    return f"{prefix}_{ms:012x}{next(_seq):020x}"


@pytest.fixture(scope="module")
def api(pg, module_db, taskexec_binary, tmp_path_factory):
    factory = TaskexecFactory(pg, tmp_path_factory.mktemp("jobs_api"), taskexec_binary, module_db)
    try:
        yield factory.start(env={"TE_ROLES": "api"})
    finally:
        factory.cleanup()


def make_endpoint(api, payload_spec=None):
    ep = http_endpoint(payload_spec=payload_spec)
    assert_status(api.post("/endpoints", json=ep), 201)
    return ep["name"]


def cron_job(api, endpoint, **over):
    body = {"endpoint": endpoint, "trigger": "CRON", "cron": "0 9 * * MON",
            "timezone": "Asia/Kolkata", "input": {"user_id": "u1"}}
    body.update(over)
    return assert_status(api.post("/jobs", json=body), 201)


def oneshot_job(api, endpoint):
    body = {"endpoint": endpoint, "trigger": "IMMEDIATE", "idempotency_key": uuid.uuid4().hex,
            "input": {"user_id": "u1"}}
    return assert_status(api.post("/jobs", json=body), 201)


def add_exec(db, job_id, status, ago=timedelta(0), duration=None, attempts=1, endpoint="x"):
    """Inserts an execution created `ago` before now; finished ones get completed_at."""
    created = datetime.now(timezone.utc) - ago
    eid = new_id("exec", created)
    finished = status in ("SUCCESS", "FAILED", "CANCELLED")
    started = status in ("RUNNING", "SUCCESS", "FAILED")
    db.execute(
        "INSERT INTO executions (execution_id, job_id, endpoint, endpoint_type, status,"
        " attempt_count, max_attempts, created_at, run_at, started_at, completed_at, duration_ms)"
        " VALUES (%s, %s, %s, 'HTTP', %s, %s, 3, %s, %s, %s, %s, %s)",
        (eid, job_id, endpoint, status, attempts, created, created,
         created if started else None, created + timedelta(seconds=1) if finished else None,
         duration),
    )
    return eid


def set_exec_status(db, exec_id, status):
    db.execute("UPDATE executions SET status = %s WHERE execution_id = %s", (status, exec_id))


# ---------------------------------------------------------------- PUT


def test_put_creates_version_chain(api, db):
    ep = make_endpoint(api)
    v1 = cron_job(api, ep)
    v2 = assert_status(api.put(f"/jobs/{v1['job_id']}", json={"cron": "0 10 * * MON"}), 200)
    assert v2["job_id"] != v1["job_id"]
    assert v2["version"] == 2 and v2["previous_version_id"] == v1["job_id"]
    assert v2["status"] == "ACTIVE" and v2["trigger"] == "CRON"
    assert v2["cron"] == "0 10 * * MON"
    assert v2["timezone"] == "Asia/Kolkata" and v2["input"] == {"user_id": "u1"}  # kept
    assert v2["endpoint"] == ep and v2["replaced_by_id"] is None
    assert v2["next_run_at"].endswith("T10:00:00+05:30")
    old = assert_status(api.get(f"/jobs/{v1['job_id']}"), 200)
    assert old["status"] == "RETIRED" and old["replaced_by_id"] == v2["job_id"]
    parse_ts(old["retired_at"])
    # The retired version cannot be updated again.
    assert_error(api.put(f"/jobs/{v1['job_id']}", json={"cron": "0 11 * * MON"}), 409,
                 "JOB_NOT_UPDATABLE", "retired")
    v3 = assert_status(api.put(f"/jobs/{v2['job_id']}", json={"input": {"user_id": "u3"},
                                                              "timezone": "UTC"}), 200)
    assert v3["version"] == 3 and v3["previous_version_id"] == v2["job_id"]
    assert v3["cron"] == "0 10 * * MON" and v3["timezone"] == "UTC"
    assert v3["input"] == {"user_id": "u3"} and v3["next_run_at"].endswith("T10:00:00Z")
    ids = [v3["job_id"], v2["job_id"], v1["job_id"]]
    for member in ids:
        items = assert_status(api.get(f"/jobs/{member}/versions"), 200)
        assert [i["job_id"] for i in items["items"]] == ids and items["cursor"] is None
        assert [i["version"] for i in items["items"]] == [3, 2, 1]
    # Paginated one by one.
    seen, cursor = [], None
    for _ in range(5):
        params = {"limit": 1, **({"cursor": cursor} if cursor else {})}
        page = assert_status(api.get(f"/jobs/{v2['job_id']}/versions", params=params), 200)
        seen += [i["job_id"] for i in page["items"]]
        cursor = page["cursor"]
        if cursor is None:
            break
    assert seen == ids


def test_put_starts_from_now_not_past_start(api, db):
    ep = make_endpoint(api)
    start = (datetime.now(timezone.utc) - timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
    v1 = cron_job(api, ep, cron="*/5 * * * *", timezone="UTC", starts_at=start)
    v2 = assert_status(api.put(f"/jobs/{v1['job_id']}", json={"cron": "*/10 * * * *"}), 200)
    assert parse_ts(v2["starts_at"]) == parse_ts(start)  # taken from the old version
    nxt = parse_ts(v2["next_run_at"])
    assert nxt >= datetime.now(timezone.utc) - timedelta(seconds=5)
    assert nxt.minute % 10 == 0


END = datetime(2099, 1, 1, tzinfo=timezone.utc)


def test_put_ends_at_set_and_cleared(api):
    ep = make_endpoint(api)
    v1 = cron_job(api, ep, timezone="UTC")
    v2 = assert_status(api.put(f"/jobs/{v1['job_id']}", json={"ends_at": "2099-01-01T00:00:00Z"}), 200)
    assert parse_ts(v2["ends_at"]) == END
    v3 = assert_status(api.put(f"/jobs/{v2['job_id']}", json={}), 200)
    assert parse_ts(v3["ends_at"]) == END  # kept when missing
    v4 = assert_status(api.put(f"/jobs/{v3['job_id']}", json={"ends_at": None}), 200)
    assert v4["ends_at"] is None and v4["version"] == 4


def test_put_validation(api, db):
    spec = uniq("ps")
    assert_status(api.post("/payload-specs", json={"name": spec, "schema": {
        "type": "object", "required": ["user_id"],
        "properties": {"user_id": {"type": "string"}}}}), 201)
    ep = make_endpoint(api, payload_spec=spec)
    job = cron_job(api, ep)
    path = f"/jobs/{job['job_id']}"
    assert_error(api.put(path, json={"cron": "61 * * * *"}), 422, "INVALID_CRON")
    assert_error(api.put(path, json={"cron": "0 0 30 2 *"}), 422, "INVALID_CRON")
    assert_error(api.put(path, json={"timezone": "Mars/Olympus"}), 422, "INVALID_TIMEZONE")
    assert_error(api.put(path, json={"trigger": "CRON"}), 400, "INVALID_REQUEST")
    assert_error(api.put(path, json={"endpoint": ep}), 400, "INVALID_REQUEST")
    assert_error(api.put(path, json={"cron": 5}), 400, "INVALID_REQUEST")
    assert_error(api.put(path, json={"starts_at": "yesterday"}), 400, "INVALID_REQUEST", "starts_at")
    assert_error(api.put(path, json={"starts_at": "2030-01-02T00:00:00Z",
                                     "ends_at": "2030-01-01T00:00:00Z"}), 400, "INVALID_REQUEST")
    assert_error(api.put(path, data="not json", headers={"Content-Type": "application/json"}),
                 400, "INVALID_REQUEST")
    assert_error(api.put(path, json=[1]), 400, "INVALID_REQUEST")
    r = api.put(path, json={"input": {"user_id": 7}})
    assert_error(r, 422, "INPUT_VALIDATION_FAILED")
    assert r.json()["error"]["details"]
    # Nothing changed by the failures.
    assert assert_status(api.get(path), 200)["status"] == "ACTIVE"
    assert db.execute("SELECT count(*) FROM jobs WHERE previous_version_id = %s",
                      (job["job_id"],)).fetchone()[0] == 0


def test_put_one_shot_unknown_malformed(api):
    ep = make_endpoint(api)
    one = oneshot_job(api, ep)
    assert_error(api.put(f"/jobs/{one['job_id']}", json={"cron": "* * * * *"}), 409,
                 "JOB_NOT_UPDATABLE", "one-shot")
    assert_error(api.put(f"/jobs/{new_id('job')}", json={}), 404, "JOB_NOT_FOUND")
    assert_error(api.put("/jobs/nope", json={}), 404, "JOB_NOT_FOUND")
    assert_error(api.put(f"/jobs/{new_id('exec')}", json={}), 404, "JOB_NOT_FOUND")


def test_put_concurrent_exactly_one_wins(api, db):
    ep = make_endpoint(api)
    for _ in range(5):
        job = cron_job(api, ep)
        url = api.url(f"/jobs/{job['job_id']}")
        barrier = threading.Barrier(2)
        results = []

        def put(cron):
            barrier.wait()
            results.append(requests.put(url, json={"cron": cron}, headers=dict(api.session.headers),
                                        timeout=api.http_timeout))

        threads = [threading.Thread(target=put, args=(c,)) for c in ("1 * * * *", "2 * * * *")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        codes = sorted(r.status_code for r in results)
        assert codes == [200, 409], [r.text for r in results]
        loser = next(r for r in results if r.status_code == 409)
        assert_error(loser, 409, "JOB_NOT_UPDATABLE")
        n = db.execute("SELECT count(*) FROM jobs WHERE previous_version_id = %s",
                       (job["job_id"],)).fetchone()[0]
        assert n == 1


# ---------------------------------------------------------------- cancel a job


def test_cancel_cron_job(api, db):
    ep = make_endpoint(api)
    job = cron_job(api, ep)
    jid = job["job_id"]
    pending = add_exec(db, jid, "PENDING", endpoint=ep)
    queued = add_exec(db, jid, "QUEUED", endpoint=ep)
    running = add_exec(db, jid, "RUNNING", endpoint=ep)
    retrying = add_exec(db, jid, "RETRYING", endpoint=ep)
    done = add_exec(db, jid, "SUCCESS", endpoint=ep, duration=5)
    body = assert_status(api.post(f"/jobs/{jid}/cancel"), 200)
    assert body["job_id"] == jid and body["status"] == "RETIRED" and body["retired_at"]
    rows = dict(db.execute("SELECT execution_id, status FROM executions WHERE job_id = %s",
                           (jid,)).fetchall())
    assert rows == {pending: "CANCELLED", queued: "CANCELLED", running: "RUNNING",
                    retrying: "RETRYING", done: "SUCCESS"}
    # Idempotent; a retired CRON job is not updatable.
    assert assert_status(api.post(f"/jobs/{jid}/cancel"), 200)["status"] == "RETIRED"
    assert_error(api.put(f"/jobs/{jid}", json={}), 409, "JOB_NOT_UPDATABLE")


@pytest.mark.parametrize("status", ["PENDING", "QUEUED", "RETRYING"])
def test_cancel_one_shot_cancellable(api, db, status):
    ep = make_endpoint(api)
    job = oneshot_job(api, ep)
    eid = job["execution"]["execution_id"]
    set_exec_status(db, eid, status)
    body = assert_status(api.post(f"/jobs/{job['job_id']}/cancel"), 200)
    assert body["status"] == "RETIRED" and body["execution"]["status"] == "CANCELLED"
    st, completed = db.execute("SELECT status, completed_at FROM executions WHERE execution_id = %s",
                               (eid,)).fetchone()
    assert st == "CANCELLED" and completed is not None
    assert_error(api.post(f"/jobs/{job['job_id']}/cancel"), 409, "EXECUTION_NOT_CANCELLABLE",
                 "CANCELLED")


@pytest.mark.parametrize("status", ["RUNNING", "SUCCESS", "FAILED", "CANCELLED"])
def test_cancel_one_shot_not_cancellable(api, db, status):
    ep = make_endpoint(api)
    job = oneshot_job(api, ep)
    eid = job["execution"]["execution_id"]
    set_exec_status(db, eid, status)
    assert_error(api.post(f"/jobs/{job['job_id']}/cancel"), 409, "EXECUTION_NOT_CANCELLABLE", status)
    assert db.execute("SELECT status FROM executions WHERE execution_id = %s",
                      (eid,)).fetchone()[0] == status
    assert assert_status(api.get(f"/jobs/{job['job_id']}"), 200)["status"] == "ACTIVE"


def test_cancel_unknown_and_malformed(api):
    assert_error(api.post(f"/jobs/{new_id('job')}/cancel"), 404, "JOB_NOT_FOUND")
    assert_error(api.post("/jobs/job_XYZ/cancel"), 404, "JOB_NOT_FOUND")


# ---------------------------------------------------------------- status


def nearest_rank_p99(values):
    s = sorted(values)
    return s[math.ceil(0.99 * len(s)) - 1]


def test_status_shape_and_stats(api, db):
    ep = make_endpoint(api)
    job = cron_job(api, ep)
    jid = job["job_id"]
    durations = [10 * i for i in range(1, 121)]  # 120 values; mean 605
    for i, d in enumerate(durations):
        add_exec(db, jid, "FAILED" if i % 40 == 0 else "SUCCESS", ago=timedelta(hours=20) -
                 timedelta(seconds=i), duration=d, endpoint=ep)
    # Older than 24 h: not counted.
    for _ in range(5):
        add_exec(db, jid, "FAILED", ago=timedelta(hours=30), duration=99999, endpoint=ep)
    add_exec(db, jid, "PENDING", endpoint=ep)
    add_exec(db, jid, "QUEUED", endpoint=ep)
    add_exec(db, jid, "RETRYING", endpoint=ep)
    last = add_exec(db, jid, "RUNNING", endpoint=ep, attempts=2)
    body = assert_status(api.get(f"/jobs/{jid}/status"), 200)
    assert set(body) == {"job_id", "endpoint", "endpoint_type", "trigger", "health", "version",
                         "last_execution", "active_executions", "cron", "stats"}
    assert body["job_id"] == jid and body["endpoint"] == ep and body["endpoint_type"] == "HTTP"
    assert body["trigger"] == "CRON" and body["version"] == 1
    le = body["last_execution"]
    assert le["execution_id"] == last and le["status"] == "RUNNING" and le["attempt_number"] == 2
    parse_ts(le["started_at"])
    assert le["completed_at"] is None
    assert body["active_executions"] == {"pending": 3, "running": 1, "total": 4}
    assert body["cron"]["expression"] == "0 9 * * MON"
    assert body["cron"]["next_run_at"].endswith("T09:00:00+05:30")
    assert body["cron"]["last_tick_at"] is None
    stats = body["stats"]["last_24h"]
    assert stats["total"] == 124 and stats["succeeded"] == 117 and stats["failed"] == 3
    assert stats["avg_duration_ms"] == 605
    assert stats["p99_duration_ms"] == nearest_rank_p99(durations) == 1190
    assert body["health"] == "HEALTHY"  # 3/120 = 2.5 % failed


def test_status_health(api, db):
    ep = make_endpoint(api)

    def status_of(statuses, ago=timedelta(hours=1)):
        jid = cron_job(api, ep)["job_id"]
        for i, s in enumerate(statuses):  # oldest first
            add_exec(db, jid, s, ago=ago - timedelta(seconds=i), duration=1, endpoint=ep)
        return assert_status(api.get(f"/jobs/{jid}/status"), 200)

    idle = status_of([])
    assert idle["health"] == "IDLE" and idle["last_execution"] is None
    assert idle["stats"]["last_24h"] == {"total": 0, "succeeded": 0, "failed": 0,
                                         "avg_duration_ms": None, "p99_duration_ms": None}
    assert status_of(["SUCCESS"] * 20)["health"] == "HEALTHY"
    assert status_of(["FAILED"] + ["SUCCESS"] * 19)["health"] == "DEGRADED"  # 5 %
    assert status_of(["FAILED"] + ["SUCCESS"] * 20)["health"] == "HEALTHY"  # < 5 %
    assert status_of(["FAILED"] * 5 + ["SUCCESS"] * 5)["health"] == "FAILING"  # 50 %
    assert status_of(["SUCCESS"] * 97 + ["FAILED"] * 3)["health"] == "DEGRADED"  # streak
    assert status_of(["FAILED"] * 3, ago=timedelta(days=3))["health"] == "DEGRADED"  # old streak
    assert status_of(["SUCCESS"] * 3, ago=timedelta(days=3))["health"] == "IDLE"


def test_status_one_shot_and_404(api, db):
    ep = make_endpoint(api)
    job = oneshot_job(api, ep)
    body = assert_status(api.get(f"/jobs/{job['job_id']}/status"), 200)
    assert body["trigger"] == "IMMEDIATE" and body["cron"] is None
    assert body["active_executions"] == {"pending": 1, "running": 0, "total": 1}
    assert_error(api.get(f"/jobs/{new_id('job')}/status"), 404, "JOB_NOT_FOUND")
    assert_error(api.get("/jobs/bad/status"), 404, "JOB_NOT_FOUND")


# ---------------------------------------------------------------- versions


def test_versions_single_and_errors(api):
    ep = make_endpoint(api)
    job = cron_job(api, ep)
    body = assert_status(api.get(f"/jobs/{job['job_id']}/versions"), 200)
    assert [i["job_id"] for i in body["items"]] == [job["job_id"]] and body["cursor"] is None
    assert_error(api.get(f"/jobs/{new_id('job')}/versions"), 404, "JOB_NOT_FOUND")
    assert_error(api.get("/jobs/x/versions"), 404, "JOB_NOT_FOUND")
    assert_error(api.get(f"/jobs/{job['job_id']}/versions", params={"limit": 0}), 400,
                 "INVALID_REQUEST")
    assert_error(api.get(f"/jobs/{job['job_id']}/versions", params={"cursor": "junk"}), 400,
                 "INVALID_REQUEST")


# ---------------------------------------------------------------- a job's executions


def walk(api, path, limit, **params):
    items, cursor = [], None
    for _ in range(1000):
        q = {"limit": limit, **params, **({"cursor": cursor} if cursor else {})}
        page = assert_status(api.get(path, params=q), 200)
        assert set(page) == {"items", "cursor"}
        items += page["items"]
        cursor = page["cursor"]
        if cursor is None:
            return items
    raise AssertionError("pagination does not end")


def test_job_executions_list(api, db):
    ep = make_endpoint(api)
    jid = cron_job(api, ep)["job_id"]
    ids = [add_exec(db, jid, "SUCCESS" if i % 3 else "FAILED", ago=timedelta(minutes=50 - i),
                    duration=i, endpoint=ep) for i in range(7)]
    newest_first = list(reversed(ids))
    for limit in (1, 2, 3, 7, 50):
        got = walk(api, f"/jobs/{jid}/executions", limit)
        assert [x["execution_id"] for x in got] == newest_first
    failed = walk(api, f"/jobs/{jid}/executions", 2, status="FAILED")
    assert [x["execution_id"] for x in failed] == [ids[6], ids[3], ids[0]]
    assert all(x["status"] == "FAILED" and x["job_id"] == jid for x in failed)
    path = f"/jobs/{jid}/executions"
    assert_error(api.get(path, params={"status": "DONE"}), 400, "INVALID_REQUEST", "status")
    assert_error(api.get(path, params={"limit": 201}), 400, "INVALID_REQUEST", "limit")
    assert_error(api.get(path, params={"cursor": "!!"}), 400, "INVALID_REQUEST")
    assert_error(api.get(f"/jobs/{new_id('job')}/executions"), 404, "JOB_NOT_FOUND")
    assert_error(api.get("/jobs/zz/executions"), 404, "JOB_NOT_FOUND")
    empty = cron_job(api, ep)["job_id"]
    assert assert_status(api.get(f"/jobs/{empty}/executions"), 200) == {"items": [], "cursor": None}


# ---------------------------------------------------------------- executions


def add_attempts_and_logs(db, eid, n_attempts, logs_per_attempt):
    base = datetime.now(timezone.utc) - timedelta(minutes=10)
    log_ids = []
    for a in range(1, n_attempts + 1):
        ok = a == n_attempts
        db.execute(
            "INSERT INTO attempts (attempt_id, execution_id, attempt_number, status, started_at,"
            " completed_at, duration_ms, output, error) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (new_id("att"), eid, a, "SUCCESS" if ok else "FAILED", base, base, 10 * a,
             '{"status_code": 200}' if ok else None,
             None if ok else '{"message": "boom %d"}' % a),
        )
        for k in range(logs_per_attempt):
            lid = new_id("log")
            # Same timestamp within an attempt: the log_id breaks the tie.
            db.execute(
                "INSERT INTO execution_logs (log_id, execution_id, attempt_number, level, message,"
                " logged_at) VALUES (%s, %s, %s, 'INFO', %s, %s)",
                (lid, eid, a, f"attempt {a} line {k}", base + timedelta(seconds=a)),
            )
            log_ids.append(lid)
    return log_ids


def test_execution_get(api, db):
    ep = make_endpoint(api)
    job = oneshot_job(api, ep)
    eid = job["execution"]["execution_id"]
    body = assert_status(api.get(f"/executions/{eid}"), 200)
    assert set(body) == {"execution_id", "job_id", "endpoint", "endpoint_type", "status", "attempts",
                         "max_attempts", "worker_id", "idempotency_key", "run_at", "started_at",
                         "completed_at", "duration_ms", "input", "output", "created_at",
                         "last_error"}
    assert body["execution_id"] == eid and body["job_id"] == job["job_id"]
    assert body["endpoint"] == ep and body["endpoint_type"] == "HTTP"
    assert body["status"] == "QUEUED" and body["attempts"] == 0 and body["max_attempts"] == 1
    assert body["input"] == {"user_id": "u1"} and body["output"] is None
    assert body["last_error"] is None and body["idempotency_key"] == job["idempotency_key"]
    parse_ts(body["run_at"]), parse_ts(body["created_at"])
    db.execute("UPDATE executions SET status = 'FAILED', attempt_count = 2, worker_id = 'w1',"
               " started_at = now(), completed_at = now(), duration_ms = 42,"
               " output = '{\"a\": 1}' WHERE execution_id = %s", (eid,))
    add_attempts_and_logs(db, eid, 2, 0)
    db.execute("UPDATE attempts SET status = 'FAILED', error = '{\"message\": \"last\"}'"
               " WHERE execution_id = %s AND attempt_number = 2", (eid,))
    body = assert_status(api.get(f"/executions/{eid}"), 200)
    assert body["status"] == "FAILED" and body["attempts"] == 2 and body["worker_id"] == "w1"
    assert body["duration_ms"] == 42 and body["output"] == {"a": 1}
    assert body["last_error"] == {"message": "last"}
    parse_ts(body["started_at"]), parse_ts(body["completed_at"])
    assert_error(api.get(f"/executions/{new_id('exec')}"), 404, "EXECUTION_NOT_FOUND")
    assert_error(api.get(f"/executions/{job['job_id']}"), 404, "EXECUTION_NOT_FOUND")
    assert_error(api.get("/executions/exec_123"), 404, "EXECUTION_NOT_FOUND")


@pytest.mark.parametrize("status", ["PENDING", "QUEUED", "RETRYING"])
def test_execution_cancel_ok(api, db, status):
    ep = make_endpoint(api)
    eid = oneshot_job(api, ep)["execution"]["execution_id"]
    set_exec_status(db, eid, status)
    body = assert_status(api.post(f"/executions/{eid}/cancel"), 200)
    assert body["execution_id"] == eid and body["status"] == "CANCELLED"
    parse_ts(body["completed_at"])


@pytest.mark.parametrize("status", ["RUNNING", "SUCCESS", "FAILED", "CANCELLED"])
def test_execution_cancel_conflict(api, db, status):
    ep = make_endpoint(api)
    eid = oneshot_job(api, ep)["execution"]["execution_id"]
    set_exec_status(db, eid, status)
    assert_error(api.post(f"/executions/{eid}/cancel"), 409, "EXECUTION_NOT_CANCELLABLE", status)
    assert db.execute("SELECT status FROM executions WHERE execution_id = %s",
                      (eid,)).fetchone()[0] == status


def test_execution_cancel_404(api):
    assert_error(api.post(f"/executions/{new_id('exec')}/cancel"), 404, "EXECUTION_NOT_FOUND")
    assert_error(api.post("/executions/nope/cancel"), 404, "EXECUTION_NOT_FOUND")


def test_attempts_and_logs(api, db):
    ep = make_endpoint(api)
    eid = oneshot_job(api, ep)["execution"]["execution_id"]
    log_ids = add_attempts_and_logs(db, eid, 3, 4)
    for limit in (1, 2, 50):
        atts = walk(api, f"/executions/{eid}/attempts", limit)
        assert [a["attempt_number"] for a in atts] == [1, 2, 3]
    a1, _, a3 = atts
    assert set(a1) == {"attempt_id", "attempt_number", "status", "started_at", "completed_at",
                       "duration_ms", "output", "error"}
    assert a1["status"] == "FAILED" and a1["error"] == {"message": "boom 1"} and a1["output"] is None
    assert a3["status"] == "SUCCESS" and a3["output"] == {"status_code": 200} and a3["error"] is None
    assert a3["duration_ms"] == 30 and a1["attempt_id"].startswith("att_")
    for limit in (1, 5, 200):
        logs = walk(api, f"/executions/{eid}/logs", limit)
        assert [x["log_id"] for x in logs] == log_ids
    assert set(logs[0]) == {"log_id", "attempt_number", "level", "message", "logged_at"}
    assert logs[0]["message"] == "attempt 1 line 0" and logs[0]["level"] == "INFO"
    parse_ts(logs[0]["logged_at"])
    second = walk(api, f"/executions/{eid}/logs", 3, attempt=2)
    assert [x["log_id"] for x in second] == log_ids[4:8]
    assert walk(api, f"/executions/{eid}/logs", 3, attempt=9) == []
    assert_error(api.get(f"/executions/{eid}/logs", params={"attempt": "x"}), 400,
                 "INVALID_REQUEST", "attempt")
    for sub in ("attempts", "logs"):
        assert_error(api.get(f"/executions/{eid}/{sub}", params={"limit": "0"}), 400,
                     "INVALID_REQUEST")
        assert_error(api.get(f"/executions/{eid}/{sub}", params={"cursor": "garbage"}), 400,
                     "INVALID_REQUEST")
        assert_error(api.get(f"/executions/{new_id('exec')}/{sub}"), 404, "EXECUTION_NOT_FOUND")
        assert_error(api.get(f"/executions/bad/{sub}"), 404, "EXECUTION_NOT_FOUND")
    empty = oneshot_job(api, ep)["execution"]["execution_id"]
    assert assert_status(api.get(f"/executions/{empty}/attempts"), 200) == {"items": [], "cursor": None}
    assert assert_status(api.get(f"/executions/{empty}/logs"), 200) == {"items": [], "cursor": None}


def test_methods_and_auth(api):
    jid = new_id("job")
    assert api.delete(f"/jobs/{jid}").status_code == 405
    assert api.get(f"/jobs/{jid}/cancel").status_code == 405
    for method, path in [("PUT", f"/jobs/{jid}"), ("POST", f"/jobs/{jid}/cancel"),
                         ("GET", f"/jobs/{jid}/status"), ("GET", f"/jobs/{jid}/versions"),
                         ("GET", f"/jobs/{jid}/executions"), ("GET", f"/executions/{jid}"),
                         ("POST", f"/executions/{jid}/cancel"),
                         ("GET", f"/executions/{jid}/attempts"), ("GET", f"/executions/{jid}/logs")]:
        assert_error(api.anon(method, path), 401, "UNAUTHORIZED")


# ---------------------------------------------------------------- with a real worker


def test_executed_job_end_to_end(te_factory):
    """A server with every role runs a job against a closed port: the execution, its
    attempts and logs as the worker wrote them read back through the API."""
    full = te_factory()
    ep = make_endpoint(full)
    job = oneshot_job(full, ep)
    eid = job["execution"]["execution_id"]

    def finished():
        return full.get(f"/executions/{eid}").json()["status"] in ("SUCCESS", "FAILED")

    wait_until(finished, scaled(30), interval=0.1, what="the execution to finish")
    ex = assert_status(full.get(f"/executions/{eid}"), 200)
    assert ex["status"] == "FAILED" and ex["attempts"] == 1 and ex["last_error"] is not None
    parse_ts(ex["started_at"]), parse_ts(ex["completed_at"])
    atts = assert_status(full.get(f"/executions/{eid}/attempts"), 200)["items"]
    assert [a["attempt_number"] for a in atts] == [1] and atts[0]["status"] == "FAILED"
    assert atts[0]["error"] == ex["last_error"]
    logs = assert_status(full.get(f"/executions/{eid}/logs"), 200)["items"]
    assert logs and all(x["attempt_number"] == 1 for x in logs)
    listed = assert_status(full.get(f"/jobs/{job['job_id']}/executions"), 200)["items"]
    assert [x["execution_id"] for x in listed] == [eid]
    st = assert_status(full.get(f"/jobs/{job['job_id']}/status"), 200)
    assert st["last_execution"]["execution_id"] == eid and st["health"] == "FAILING"
    assert st["stats"]["last_24h"]["failed"] == 1
    assert_error(full.post(f"/executions/{eid}/cancel"), 409, "EXECUTION_NOT_CANCELLABLE", "FAILED")
