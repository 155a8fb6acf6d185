"""The scheduler's loops, observed through the database.

Each test gets a fresh database from an `api`-only taskexec (which also applies the schema),
creates endpoints and jobs through its API, moves rows into the situation under test with
SQL (a CRON job that missed ticks, an execution whose worker died), and then starts
scheduler-only processes (TE_ROLES=scheduler: no HTTP, so they are "ready" once their
heartbeat row appears) and watches what they write.

There is no worker yet, so nothing here ever claims an execution.
"""

import time
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from harness.api import assert_status, http_endpoint
from harness.util import scaled, wait_until

MINUTE = timedelta(minutes=1)


# -- helpers ----------------------------------------------------------------------------


@pytest.fixture
def env(pg, te_factory):
    """A fresh database with the schema, an api-only server on it, and an SQL connection."""
    api = te_factory(env={"TE_ROLES": "api"})
    dbname = api.env["TE_DATABASE_URL"].rsplit("/", 1)[1]
    with pg.connect(dbname) as conn:
        yield Env(pg, te_factory, api, dbname, conn)


class Env:
    def __init__(self, pg, factory, api, dbname, conn):
        self.pg, self.factory, self.api, self.dbname, self.db = pg, factory, api, dbname, conn

    def sql(self, query, params=None):
        cur = self.db.execute(query, params)
        return cur.fetchall() if cur.description else None

    def one(self, query, params=None):
        rows = self.sql(query, params)
        assert len(rows) == 1, rows
        return rows[0]

    def endpoint(self, max_attempts=None):
        """An HTTP endpoint; max_attempts None keeps the default retry policy (1 attempt)."""
        ep = http_endpoint()
        if max_attempts is not None:
            ep["retry_policy"] = {"max_attempts": max_attempts}
        assert_status(self.api.post("/endpoints", json=ep), 201)
        return ep["name"]

    def cron_job(self, endpoint, cron="* * * * *", tz="UTC", input=None):
        body = {
            "endpoint": endpoint,
            "trigger": "CRON",
            "cron": cron,
            "timezone": tz,
            "starts_at": iso(self.db_now() - timedelta(days=1)),
            "input": input if input is not None else {"user_id": "u1"},
        }
        return assert_status(self.api.post("/jobs", json=body), 201)["job_id"]

    def immediate_job(self, endpoint):
        body = {"endpoint": endpoint, "trigger": "IMMEDIATE", "idempotency_key": uuid.uuid4().hex, "input": {}}
        job = assert_status(self.api.post("/jobs", json=body), 201)
        return job["job_id"], job["execution"]["execution_id"]

    def db_now(self):
        return self.one("SELECT now()")[0]

    def minute_now(self):
        return self.one("SELECT date_trunc('minute', now())")[0]

    def scheduler(self, worker_id=None, env=None, wait=True):
        """A scheduler-only process on this database; waits for its first heartbeat."""
        worker_id = worker_id or "sched-" + uuid.uuid4().hex[:8]
        e = {"TE_ROLES": "scheduler", "TE_WORKER_ID": worker_id, **(env or {})}
        te = self.factory(db=self.dbname, env=e, wait=False)
        te.worker_id = worker_id
        if wait:
            wait_until(
                lambda: self.heartbeat(worker_id) == "ALIVE" or not te.is_running(),
                scaled(15),
                what=f"heartbeat of {worker_id}",
            )
            assert te.is_running(), te.log_tail(60)
        return te

    def heartbeat(self, worker_id):
        rows = self.sql(
            "SELECT status FROM region_heartbeats WHERE region = 'default' AND component = %s",
            ("scheduler:" + worker_id,),
        )
        return rows[0][0] if rows else None

    def wait_cron_caught_up(self, job_ids, timeout=None):
        def done():
            n = self.one(
                "SELECT count(*) FROM jobs WHERE job_id = ANY(%s)"
                " AND (cron_next_run_at IS NULL OR cron_next_run_at > now())",
                (list(job_ids),),
            )[0]
            return n == len(job_ids)

        wait_until(done, timeout or scaled(30), interval=0.1, what="cron jobs to catch up")


class Listener:
    """LISTEN taskexec_work on its own connection; got() pumps and returns the count."""

    def __init__(self, env):
        self.conn = env.pg.connect(env.dbname)
        self.seen = []
        self.conn.add_notify_handler(self.seen.append)
        self.conn.execute("LISTEN taskexec_work")

    def got(self):
        self.conn.execute("SELECT 1")
        return len(self.seen)

    def close(self):
        self.conn.close()


def iso(dt):
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def epoch_ms(dt):
    return int(round(dt.timestamp() * 1000))


def ticks_between(first, last):
    """Whole minutes first, first+1min, ..., last."""
    out, t = [], first
    while t <= last:
        out.append(t)
        t += MINUTE
    return out


# -- cron materializer ----------------------------------------------------------------------


def test_cron_catch_up_materializes_every_missed_tick(env):
    ep = env.endpoint(max_attempts=3)
    job = env.cron_job(ep, input={"user_id": "u-42"})
    t0 = env.minute_now() - 5 * MINUTE
    env.sql("UPDATE jobs SET cron_next_run_at = %s WHERE job_id = %s", (t0, job))

    env.scheduler()
    env.wait_cron_caught_up([job])

    nxt, last_tick = env.one("SELECT cron_next_run_at, cron_last_tick_at FROM jobs WHERE job_id = %s", (job,))
    now = env.db_now()
    assert now < nxt <= now + MINUTE, (nxt, now)  # the next future minute
    expected = ticks_between(t0, nxt - MINUTE)
    # 6 unless the minute turned while the test ran
    assert len(expected) in (6, 7), expected
    rows = env.sql(
        "SELECT run_at, idempotency_key, status, input, max_attempts, endpoint, endpoint_type"
        " FROM executions WHERE job_id = %s ORDER BY run_at",
        (job,),
    )
    assert [r[0] for r in rows] == expected
    assert [r[1] for r in rows] == [f"job_{job}_{epoch_ms(t)}" for t in expected]
    for _, _, status, inp, max_attempts, endpoint, etype in rows:
        assert (status, inp, max_attempts, endpoint, etype) == ("QUEUED", {"user_id": "u-42"}, 3, ep, "HTTP")
    assert last_tick == expected[-1]


def test_cron_ticks_before_starts_at_never_fire(env):
    ep = env.endpoint()
    job = env.cron_job(ep)
    m = env.minute_now()
    # The stored tick is older than starts_at (e.g. written by hand): it is skipped.
    env.sql(
        "UPDATE jobs SET cron_next_run_at = %s, cron_starts_at = %s WHERE job_id = %s",
        (m - 5 * MINUTE, m - 2 * MINUTE + timedelta(seconds=30), job),
    )
    env.scheduler()
    env.wait_cron_caught_up([job])
    runs = [r[0] for r in env.sql("SELECT run_at FROM executions WHERE job_id = %s ORDER BY run_at", (job,))]
    assert runs and runs[0] == m - MINUTE, runs
    assert runs == ticks_between(m - MINUTE, runs[-1])
    # max_attempts of an endpoint with the default retry policy
    assert env.one("SELECT DISTINCT max_attempts FROM executions WHERE job_id = %s", (job,))[0] == 1


def test_cron_ends_at_respected(env):
    ep = env.endpoint()
    ended, running = env.cron_job(ep), env.cron_job(ep)
    m = env.minute_now()
    env.sql(
        "UPDATE jobs SET cron_next_run_at = %s, cron_ends_at = %s WHERE job_id = %s",
        (m - 5 * MINUTE, m - 2 * MINUTE, ended),
    )
    # ends_at in the future: ticks up to now fire, and the job stays scheduled
    env.sql(
        "UPDATE jobs SET cron_next_run_at = %s, cron_ends_at = %s WHERE job_id = %s",
        (m - 2 * MINUTE, m + 10 * MINUTE, running),
    )
    env.scheduler()
    env.wait_cron_caught_up([ended, running])

    runs = [r[0] for r in env.sql("SELECT run_at FROM executions WHERE job_id = %s ORDER BY run_at", (ended,))]
    # the missed ticks before ends_at fire, none at or after it
    assert runs == [m - 5 * MINUTE, m - 4 * MINUTE, m - 3 * MINUTE]
    nxt, last = env.one("SELECT cron_next_run_at, cron_last_tick_at FROM jobs WHERE job_id = %s", (ended,))
    assert nxt is None and last == m - 3 * MINUTE

    nxt = env.one("SELECT cron_next_run_at FROM jobs WHERE job_id = %s", (running,))[0]
    assert nxt is not None and nxt > env.db_now() - timedelta(seconds=1)
    runs = [r[0] for r in env.sql("SELECT run_at FROM executions WHERE job_id = %s ORDER BY run_at", (running,))]
    assert runs[:3] == [m - 2 * MINUTE, m - MINUTE, m]

    # a job whose ends_at has already passed when its tick comes: retired from the index
    env.sql(
        "UPDATE jobs SET cron_next_run_at = %s, cron_ends_at = %s WHERE job_id = %s",
        (m - MINUTE, m - MINUTE, ended),
    )
    wait_until(
        lambda: env.one("SELECT cron_next_run_at FROM jobs WHERE job_id = %s", (ended,))[0] is None,
        scaled(10),
        what="job past its ends_at to get cron_next_run_at NULL",
    )
    assert env.one("SELECT count(*) FROM executions WHERE job_id = %s", (ended,))[0] == 3


def test_cron_retired_jobs_do_not_fire(env):
    ep = env.endpoint()
    job = env.cron_job(ep)
    env.sql(
        "UPDATE jobs SET status = 'RETIRED', retired_at = now(), cron_next_run_at = %s WHERE job_id = %s",
        (env.minute_now() - 3 * MINUTE, job),
    )
    te = env.scheduler(env={"TE_CRON_TICK_INTERVAL_SEC": "1"})
    time.sleep(2.5)
    assert env.one("SELECT count(*) FROM executions WHERE job_id = %s", (job,))[0] == 0
    assert te.is_running()


def test_two_schedulers_never_duplicate(env):
    ep = env.endpoint()
    jobs = [env.cron_job(ep) for _ in range(50)]
    t0 = env.minute_now() - 19 * MINUTE
    env.sql("UPDATE jobs SET cron_next_run_at = %s WHERE job_id = ANY(%s)", (t0, jobs))
    held, free = jobs[:10], jobs[10:]

    # Another transaction holds 10 of the jobs: the schedulers skip them instead of
    # waiting (SKIP LOCKED), and get to them once the lock is gone.
    with env.pg.connect(env.dbname, autocommit=False) as locker:
        locker.execute("SELECT 1 FROM jobs WHERE job_id = ANY(%s) FOR UPDATE", (held,))
        # Small batches: many rounds, so the two processes keep running into each other.
        small = {"TE_CRON_BATCH_SIZE": "7", "TE_CRON_TICK_INTERVAL_SEC": "1"}
        a = env.scheduler(env=small, wait=False)
        b = env.scheduler(env=small, wait=False)
        env.wait_cron_caught_up(free, timeout=scaled(60))
        still = env.one(
            "SELECT count(*) FROM jobs WHERE job_id = ANY(%s) AND cron_next_run_at = %s", (held, t0)
        )[0]
        assert still == 10
        assert env.one("SELECT count(*) FROM executions WHERE job_id = ANY(%s)", (held,))[0] == 0
        locker.rollback()
    env.wait_cron_caught_up(jobs, timeout=scaled(60))
    check_every_tick_once(env, jobs, t0)

    # As if every CAS had been lost (say, a restored backup): the ticks are materialized
    # again, and the unique key turns every repeat into nothing.
    env.sql("UPDATE jobs SET cron_next_run_at = %s WHERE job_id = ANY(%s)", (t0, jobs))
    env.wait_cron_caught_up(jobs, timeout=scaled(60))
    check_every_tick_once(env, jobs, t0)
    for te in (a, b):
        assert te.is_running(), te.log_tail(40)


def check_every_tick_once(env, jobs, t0):
    dups = env.sql(
        "SELECT job_id, run_at, count(*) FROM executions WHERE job_id = ANY(%s)"
        " GROUP BY job_id, run_at HAVING count(*) > 1",
        (jobs,),
    )
    assert dups == []
    rows = env.sql(
        "SELECT j.job_id, j.cron_next_run_at, count(e.*), min(e.run_at), max(e.run_at)"
        " FROM jobs j LEFT JOIN executions e ON e.job_id = j.job_id"
        " WHERE j.job_id = ANY(%s) GROUP BY j.job_id, j.cron_next_run_at",
        (jobs,),
    )
    assert len(rows) == len(jobs)
    total = 0
    for job, nxt, count, first, last in rows:
        # every tick from t0 up to the one before the next, each exactly once
        assert first == t0 and last == nxt - MINUTE, (job, first, last, nxt)
        assert count == len(ticks_between(t0, last)) >= 20, (job, count)
        total += count
    keys = env.one("SELECT count(DISTINCT idempotency_key) FROM executions WHERE job_id = ANY(%s)", (jobs,))[0]
    assert keys == total


# -- delayed promoter -----------------------------------------------------------------------


def test_pending_execution_promoted_on_time(env):
    ep = env.endpoint()
    env.scheduler(env={"TE_PROMOTE_INTERVAL_MS": "500"})
    listener = Listener(env)
    run_at = env.db_now() + timedelta(milliseconds=1500)
    body = {
        "endpoint": ep,
        "trigger": "DELAYED",
        "idempotency_key": uuid.uuid4().hex,
        "run_at": iso(run_at),
        "input": {},
    }
    job = assert_status(env.api.post("/jobs", json=body), 201)
    exec_id = job["execution"]["execution_id"]
    assert job["execution"]["status"] == "PENDING"

    seen_queued_at = None
    deadline = time.monotonic() + scaled(10)
    while time.monotonic() < deadline:
        status, now = env.one("SELECT status, clock_timestamp() FROM executions WHERE execution_id = %s", (exec_id,))
        if status == "QUEUED":
            seen_queued_at = now
            break
        assert status == "PENDING", status
        time.sleep(0.01)
    assert seen_queued_at is not None, "never promoted"
    lag = (seen_queued_at - run_at).total_seconds()
    print(f"promoted {lag * 1000:.0f} ms after run_at")
    assert lag >= 0, f"promoted {-lag:.3f}s before run_at"
    assert lag <= scaled(1.0), f"promoted {lag:.3f}s after run_at"
    # idle workers are woken (TE_DB_NOTIFY is on by default)
    wait_until(listener.got, scaled(5), what="NOTIFY taskexec_work after the promotion")
    listener.close()


def test_promoter_without_notify(env):
    ep = env.endpoint()
    job, exec_id = env.immediate_job(ep)
    env.sql("UPDATE executions SET status = 'PENDING', run_at = now() + interval '300 ms' WHERE execution_id = %s", (exec_id,))
    listener = Listener(env)
    env.scheduler(env={"TE_DB_NOTIFY": "off"})
    wait_until(
        lambda: env.one("SELECT status FROM executions WHERE execution_id = %s", (exec_id,))[0] == "QUEUED",
        scaled(5),
        what="promotion with TE_DB_NOTIFY=off",
    )
    time.sleep(0.3)
    assert listener.got() == 0
    listener.close()


def test_promoter_handles_many_and_leaves_future_rows(env):
    ep = env.endpoint()
    job, _ = env.immediate_job(ep)
    # 2500 due rows (more than one round's batch) and one far in the future
    env.sql(
        "INSERT INTO executions (execution_id, job_id, endpoint, endpoint_type, status, run_at)"
        " SELECT 'exec_p' || g, %s, %s, 'HTTP', 'PENDING', now() - interval '1 minute'"
        " FROM generate_series(1, 2500) g",
        (job, ep),
    )
    env.sql(
        "INSERT INTO executions (execution_id, job_id, endpoint, endpoint_type, status, run_at)"
        " VALUES ('exec_future', %s, %s, 'HTTP', 'PENDING', now() + interval '1 hour')",
        (job, ep),
    )
    env.scheduler()
    env.scheduler()
    wait_until(
        lambda: env.one("SELECT count(*) FROM executions WHERE status = 'PENDING'")[0] == 1,
        scaled(15),
        what="due PENDING rows to be promoted",
    )
    assert env.one("SELECT count(*) FROM executions WHERE execution_id LIKE 'exec_p%%' AND status = 'QUEUED'")[0] == 2500
    assert env.one("SELECT status FROM executions WHERE execution_id = 'exec_future'")[0] == "PENDING"


# -- lease reclaimer ------------------------------------------------------------------------


def make_running(env, exec_id, attempt_count, max_attempts, started_ago, lease):
    """lease: seconds from now (negative: expired) or None (a legacy row without one)."""
    env.sql(
        "UPDATE executions SET status = 'RUNNING', attempt_count = %s, max_attempts = %s,"
        " worker_id = 'worker-gone', started_at = now() - %s * interval '1 second',"
        " lease_expires_at = CASE WHEN %s::FLOAT8 IS NULL THEN NULL"
        "   ELSE now() + %s::FLOAT8 * interval '1 second' END"
        " WHERE execution_id = %s",
        (attempt_count, max_attempts, started_ago, lease, lease, exec_id),
    )


def test_reclaimer(env):
    ep = env.endpoint(max_attempts=3)
    ids = {name: env.immediate_job(ep)[1] for name in ("retry", "fail", "alive", "legacy", "legacy_young")}
    make_running(env, ids["retry"], 1, 3, 60, -5)
    make_running(env, ids["fail"], 3, 3, 60, -5)
    make_running(env, ids["alive"], 1, 3, 60, 600)  # slow but within its lease
    make_running(env, ids["legacy"], 1, 3, 7200, None)
    make_running(env, ids["legacy_young"], 1, 3, 10, None)

    listener = Listener(env)
    fast = {"TE_RECLAIM_INTERVAL_SEC": "1", "TE_STUCK_EXECUTION_TIMEOUT_SEC": "300"}
    env.scheduler(env=fast)
    env.scheduler(env=fast)  # two reclaimers: still one attempt per lost attempt

    def status(name):
        return env.one("SELECT status FROM executions WHERE execution_id = %s", (ids[name],))[0]

    wait_until(
        lambda: status("retry") == "RETRYING" and status("fail") == "FAILED" and status("legacy") == "RETRYING",
        scaled(15),
        what="expired executions to be reclaimed",
    )
    wait_until(listener.got, scaled(5), what="NOTIFY taskexec_work for the RETRYING executions")
    listener.close()
    time.sleep(2.5)  # a few more reclaimer rounds in both processes

    now = env.db_now()
    st, worker, lease, run_at, completed = env.one(
        "SELECT status, worker_id, lease_expires_at, run_at, completed_at FROM executions WHERE execution_id = %s",
        (ids["retry"],),
    )
    assert (st, worker, lease, completed) == ("RETRYING", None, None, None)
    assert now - timedelta(seconds=scaled(20)) < run_at <= now

    st, worker, lease, completed, duration = env.one(
        "SELECT status, worker_id, lease_expires_at, completed_at, duration_ms FROM executions"
        " WHERE execution_id = %s",
        (ids["fail"],),
    )
    # like the worker's own finalize: a FAILED execution keeps the worker that ran it last
    assert (st, worker, lease) == ("FAILED", "worker-gone", None) and completed is not None
    assert 59000 <= duration <= 60000 + scaled(20) * 1000, duration

    for name, number in (("retry", 1), ("fail", 3), ("legacy", 1)):
        atts = env.sql(
            "SELECT attempt_id, attempt_number, status, error, duration_ms FROM attempts WHERE execution_id = %s",
            (ids[name],),
        )
        assert len(atts) == 1, (name, atts)
        att_id, n, st, err, dur = atts[0]
        assert att_id.startswith("att_") and n == number and st == "FAILED"
        assert err["type"] == "LEASE_EXPIRED" and "worker-gone" in err["message"], err
        logs = env.sql(
            "SELECT level, attempt_number, message FROM execution_logs WHERE execution_id = %s", (ids[name],)
        )
        assert len(logs) == 1 and logs[0][0] == "WARN" and logs[0][1] == number, logs
    assert "stopped renewing its lease" in env.one(
        "SELECT error->>'message' FROM attempts WHERE execution_id = %s", (ids["retry"],)
    )[0]

    for name in ("alive", "legacy_young"):
        st, worker = env.one("SELECT status, worker_id FROM executions WHERE execution_id = %s", (ids[name],))
        assert (st, worker) == ("RUNNING", "worker-gone"), name
        assert env.one("SELECT count(*) FROM attempts WHERE execution_id = %s", (ids[name],))[0] == 0
        assert env.one("SELECT count(*) FROM execution_logs WHERE execution_id = %s", (ids[name],))[0] == 0


# -- heartbeat and lifecycle ----------------------------------------------------------------


def test_heartbeat_alive_then_dead(env):
    te = env.scheduler()
    assert env.heartbeat(te.worker_id) == "ALIVE"
    te.stop()
    assert env.heartbeat(te.worker_id) == "DEAD"


def test_scheduler_rides_out_db_outage(env):
    ep = env.endpoint()
    te = env.scheduler(
        env={
            "TE_PROMOTE_INTERVAL_MS": "100",
            "TE_CRON_TICK_INTERVAL_SEC": "1",
        }
    )
    env.db.close()
    env.pg.stop()
    try:
        time.sleep(3)
        assert te.is_running()
    finally:
        env.pg.start()
    wait_until(lambda: env.api.get("/configs").status_code == 200, scaled(15), what="the API to recover")
    with env.pg.connect(env.dbname) as conn:
        env.db = conn
        job = env.cron_job(ep)
        env.sql("UPDATE jobs SET cron_next_run_at = %s WHERE job_id = %s", (env.minute_now() - MINUTE, job))
        env.wait_cron_caught_up([job], timeout=scaled(20))
        assert env.one("SELECT count(*) FROM executions WHERE job_id = %s", (job,))[0] >= 2
    warnings = [l for l in te.log_text().splitlines() if " warn " in l and "scheduler: " in l]
    # one warning per loop for the whole outage, not one per round
    for loop in ("cron materializer", "delayed promoter"):
        assert len([l for l in warnings if loop in l]) <= 2, warnings
    assert any("working again" in l for l in te.log_text().splitlines())
