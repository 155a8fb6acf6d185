"""Several taskexec processes on ONE database: exactly-once claims under load, recovery of
the executions of a process killed with SIGKILL, and no double cron ticks."""

import time
import uuid
from datetime import timedelta


from harness.api import assert_status, create_immediate_jobs, uniq
from harness.sink import sink  # noqa: F401 - fixture
from harness.util import scaled, wait_until

FAST = {"TE_WORKER_POLL_INTERVAL_MS": "50"}


def sql(conn, query, params=None):
    cur = conn.execute(query, params)
    return cur.fetchall() if cur.description else None


def dbname_of(te):
    return te.env["TE_DATABASE_URL"].rsplit("/", 1)[1]


def make_endpoint(te, url, timeout_ms=5000, retry=None):
    ep = {"name": uniq("ep"), "type": "HTTP",
          "spec": {"url": url, "method": "POST", "timeout_ms": timeout_ms,
                   "body_template": {"n": "{{input.n}}"}}}
    if retry:
        ep["retry_policy"] = retry
    assert_status(te.post("/endpoints", json=ep), 201)
    return ep["name"]


def test_three_processes_deliver_each_execution_exactly_once(pg, te_factory, sink):
    first = te_factory(env={**FAST, "TE_WORKER_ID": "w1"})
    dbname = dbname_of(first)
    procs = [first] + [te_factory(db=dbname, env={**FAST, "TE_WORKER_ID": f"w{i}"}) for i in (2, 3)]
    ep = make_endpoint(first, sink.url("/ok"))
    n_jobs = 2000

    def body(i):
        return {"endpoint": ep, "trigger": "IMMEDIATE", "idempotency_key": f"k{i}-{uuid.uuid4().hex}",
                "input": {"n": i}}

    t0 = time.monotonic()
    xids = create_immediate_jobs(procs, n_jobs, body, workers=24, timeout=scaled(30))
    created_s = time.monotonic() - t0
    assert len(set(xids)) == n_jobs
    assert created_s < scaled(60), f"creating {n_jobs} jobs took {created_s:.1f}s"

    with pg.connect(dbname) as conn:
        def all_done():
            (left,) = sql(conn, "SELECT count(*) FROM executions WHERE status NOT IN"
                                " ('SUCCESS', 'FAILED', 'CANCELLED')")[0]
            return left == 0

        wait_until(all_done, scaled(120), interval=0.25, what="all executions to finish")
        statuses = dict(sql(conn, "SELECT status, count(*) FROM executions GROUP BY status"))
        assert statuses == {"SUCCESS": n_jobs}, statuses
        (n_attempts,) = sql(conn, "SELECT count(*) FROM attempts")[0]
        assert n_attempts == n_jobs
        assert sql(conn, "SELECT max(attempt_count) FROM executions")[0][0] == 1
        workers = dict(sql(conn, "SELECT worker_id, count(*) FROM executions GROUP BY worker_id"))
    assert len(workers) > 1, f"only one worker delivered: {workers}"
    assert set(workers) <= {"w1", "w2", "w3"}, workers

    mine = set(xids)
    keys = [r.idempotency_key for r in sink.requests if r.idempotency_key in mine]
    dupes = len(keys) - len(set(keys))
    assert dupes == 0, f"{dupes} duplicate deliveries"
    assert set(keys) == mine, f"{len(mine - set(keys))} executions never reached the sink"
    print(f"created {n_jobs} jobs in {created_s:.1f}s; done after {time.monotonic() - t0:.1f}s;"
          f" per worker {workers}")


def test_sigkilled_worker_executions_are_reclaimed(pg, te_factory, sink):
    # victim: the only worker while the slow deliveries are claimed
    victim = te_factory(env={**FAST, "TE_WORKER_ID": "victim", "TE_STUCK_EXECUTION_TIMEOUT_SEC": "1",
                             "TE_ROLES": "api,worker"})
    dbname = dbname_of(victim)
    ep = make_endpoint(victim, sink.url("/slow/3000"), timeout_ms=4000,
                       retry={"max_attempts": 3, "backoff": "fixed", "initial_delay_ms": 100})
    xids = []
    for i in range(5):
        body = {"endpoint": ep, "trigger": "IMMEDIATE", "idempotency_key": uuid.uuid4().hex,
                "input": {"n": i}}
        xids.append(assert_status(victim.post("/jobs", json=body), 201)["execution"]["execution_id"])
    mine = set(xids)
    sink.wait_for(5, scaled(10), lambda r: r.idempotency_key in mine)
    with pg.connect(dbname) as conn:
        running = sql(conn, "SELECT execution_id, worker_id, status FROM executions"
                            " WHERE execution_id = ANY(%s)", (xids,))
        assert all(r[1:] == ("victim", "RUNNING") for r in running), running
        victim.kill()  # SIGKILL; the harness does not check a killed process's exit code
        t_kill = time.monotonic()

        survivor = te_factory(db=dbname, env={**FAST, "TE_WORKER_ID": "survivor",
                                              "TE_STUCK_EXECUTION_TIMEOUT_SEC": "1",
                                              "TE_RECLAIM_INTERVAL_SEC": "1"})

        def done():
            rows = sql(conn, "SELECT count(*) FROM executions WHERE execution_id = ANY(%s)"
                             " AND status IN ('SUCCESS', 'FAILED', 'CANCELLED')", (xids,))
            return rows[0][0] == len(xids)

        # lease = 4 s timeout + 1 s grace from the claim; then a 3 s redelivery
        wait_until(done, scaled(25), interval=0.1, what="reclaimed executions to finish")
        rows = sql(conn, "SELECT execution_id, status, attempt_count, worker_id FROM executions"
                         " WHERE execution_id = ANY(%s)", (xids,))
        for xid, status, n, wid in rows:
            assert (status, n, wid) == ("SUCCESS", 2, "survivor"), (xid, status, n, wid)
            atts = sql(conn, "SELECT attempt_number, status, error FROM attempts"
                             " WHERE execution_id = %s ORDER BY attempt_number", (xid,))
            assert [(a[0], a[1]) for a in atts] == [(1, "FAILED"), (2, "SUCCESS")], atts
            assert atts[0][2]["type"] == "LEASE_EXPIRED", atts
            reqs = sorted(sink.requests_for(xid), key=lambda r: r.arrived_mono)
            assert [r.attempt for r in reqs] == [1, 2], [(r.attempt, r.path) for r in reqs]
    assert time.monotonic() - t_kill >= 2.0  # not redelivered before the lease expired
    assert survivor.is_running()


def test_two_schedulers_never_double_tick(pg, te_factory, sink):
    a = te_factory(env={**FAST, "TE_ROLES": "api,scheduler,worker"})
    dbname = dbname_of(a)
    b = te_factory(db=dbname, env={**FAST, "TE_ROLES": "api,scheduler,worker"})
    ep = make_endpoint(a, sink.url("/ok"))
    with pg.connect(dbname) as conn:
        now = sql(conn, "SELECT now()")[0][0]
        starts = (now - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        jobs = []
        for i in range(10):
            body = {"endpoint": ep, "trigger": "CRON", "cron": "* * * * *", "timezone": "UTC",
                    "starts_at": starts, "input": {"n": i}}
            jobs.append(assert_status((a, b)[i % 2].post("/jobs", json=body), 201)["job_id"])
        for rnd in range(3):
            minute = sql(conn, "SELECT date_trunc('minute', now())")[0][0]
            # both schedulers race to catch these jobs up (10 minutes each)
            sql(conn, "UPDATE jobs SET cron_next_run_at = %s WHERE job_id = ANY(%s)",
                (minute - timedelta(minutes=10), jobs))

            def caught_up():
                (n,) = sql(conn, "SELECT count(*) FROM jobs WHERE job_id = ANY(%s)"
                                 " AND cron_next_run_at > now()", (jobs,))[0]
                return n == len(jobs)

            wait_until(caught_up, scaled(20), interval=0.1, what=f"catch-up round {rnd}")
        dupes = sql(conn, "SELECT job_id, run_at, count(*) FROM executions WHERE job_id = ANY(%s)"
                          " GROUP BY job_id, run_at HAVING count(*) > 1", (jobs,))
        assert dupes == [], dupes
        per_job = dict(sql(conn, "SELECT job_id, count(*) FROM executions WHERE job_id = ANY(%s)"
                                 " GROUP BY job_id", (jobs,)))
        assert all(per_job.get(j, 0) >= 10 for j in jobs), per_job
        # every materialized execution is delivered exactly once
        xids = [r[0] for r in sql(conn, "SELECT execution_id FROM executions WHERE job_id = ANY(%s)",
                                  (jobs,))]

        def delivered():
            (n,) = sql(conn, "SELECT count(*) FROM executions WHERE execution_id = ANY(%s)"
                             " AND status = 'SUCCESS'", (xids,))[0]
            return n == len(xids)

        wait_until(delivered, scaled(30), interval=0.2, what="cron executions to be delivered")
        sql(conn, "UPDATE jobs SET status = 'RETIRED', retired_at = now() WHERE job_id = ANY(%s)",
            (jobs,))
    keys = [r.idempotency_key for r in sink.requests if r.idempotency_key in set(xids)]
    assert len(keys) == len(set(keys)) == len(xids)
