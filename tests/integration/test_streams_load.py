"""Mixed load across transports and processes: 1,000 IMMEDIATE executions spread over HTTP,
KAFKA and REDIS_STREAM endpoints, created through two taskexec processes on one database,
all finish SUCCESS and each is delivered exactly once to its target (the HTTP sink, a
several-partition topic on the Kafka-protocol test broker, a stream on a real redis-server)."""

import json
import time
import uuid
from collections import Counter

import pytest

from harness.api import (assert_status, create_immediate_jobs, http_endpoint, kafka_endpoint,
                         redis_endpoint, uniq)
from harness.sink import sink  # noqa: F401 - fixture
from harness.streams import KafkaBroker, header_map
from harness.util import scaled, wait_until

FAST = {"TE_WORKER_POLL_INTERVAL_MS": "50"}
N_JOBS = 1000
TRANSPORTS = ("HTTP", "KAFKA", "REDIS_STREAM")  # execution i goes to TRANSPORTS[i % 3]
PARTITIONS = 4
TERMINAL = ("SUCCESS", "FAILED", "CANCELLED")


@pytest.fixture
def kafka():
    topic = uniq("load").replace("-", "_")
    k = KafkaBroker(f"{topic}:{PARTITIONS}").start()
    k.topic = topic
    yield k
    k.stop()


def sql(conn, query, params=None):
    cur = conn.execute(query, params)
    return cur.fetchall() if cur.description else None


def dbname_of(te):
    return te.env["TE_DATABASE_URL"].rsplit("/", 1)[1]


def topic_record_count(bootstrap, topic):
    """How many records the topic holds: the sum over its partitions of high - low watermark."""
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": uniq("g")})
    try:
        md = c.list_topics(topic, timeout=scaled(10))
        parts = sorted(md.topics[topic].partitions)
        total = 0
        for p in parts:
            low, high = c.get_watermark_offsets(TopicPartition(topic, p), timeout=scaled(10))
            total += high - low
        return total, parts
    finally:
        c.close()


def test_mixed_load_two_processes_exactly_once(pg, te_factory, sink, redis, kafka):  # noqa: F811
    a = te_factory(env={**FAST, "TE_WORKER_ID": "load-a"})
    dbname = dbname_of(a)
    b = te_factory(db=dbname, env={**FAST, "TE_WORKER_ID": "load-b"})
    procs = (a, b)

    stream = uniq("load-stream")
    eps = {
        "HTTP": http_endpoint(url=sink.url("/ok"), body_template={"seq": "{{input.seq}}"},
                              timeout_ms=10000),
        "KAFKA": kafka_endpoint(bootstrap_servers=kafka.bootstrap, topic=kafka.topic,
                                key_template="{{input.seq}}",
                                value_template={"seq": "{{input.seq}}"},
                                headers={"ce-type": "load"}, timeout_ms=10000),
        # max_len far above the entry count: nothing may be trimmed away
        "REDIS_STREAM": redis_endpoint(redis_url=redis.url(), stream=stream,
                                       fields_template={"seq": "{{input.seq}}"},
                                       max_len=100000, approximate_trimming=False,
                                       timeout_ms=5000),
    }
    for n, t in enumerate(TRANSPORTS):
        assert_status(procs[n % 2].post("/endpoints", json=eps[t]), 201)

    def body(i):
        return {"endpoint": eps[TRANSPORTS[i % 3]]["name"], "trigger": "IMMEDIATE",
                "idempotency_key": f"load-{i}-{uuid.uuid4().hex}", "input": {"seq": i}}

    t0 = time.monotonic()
    xids = create_immediate_jobs(procs, N_JOBS, body, workers=16, timeout=scaled(30))
    created_s = time.monotonic() - t0
    assert len(set(xids)) == N_JOBS
    seq_of = {x: i for i, x in enumerate(xids)}
    by_transport = {t: {x for i, x in enumerate(xids) if TRANSPORTS[i % 3] == t} for t in TRANSPORTS}
    assert [len(by_transport[t]) for t in TRANSPORTS] == [334, 333, 333]

    with pg.connect(dbname) as conn:
        def all_finished():
            (left,) = sql(conn, "SELECT count(*) FROM executions WHERE execution_id = ANY(%s)"
                                " AND status NOT IN ('SUCCESS', 'FAILED', 'CANCELLED')", (xids,))[0]
            return left == 0

        try:
            wait_until(all_finished, scaled(60), interval=0.1, what="all executions to finish")
        except TimeoutError:
            stuck = sql(conn, "SELECT endpoint_type, status, worker_id, count(*) FROM executions"
                              " WHERE execution_id = ANY(%s) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
                        (xids,))
            raise AssertionError(f"not all executions finished: {stuck}")
        done_s = time.monotonic() - t0

        rows = sql(conn, "SELECT execution_id, endpoint_type, status, attempt_count, worker_id,"
                         " input, output FROM executions WHERE execution_id = ANY(%s)", (xids,))
        attempts = sql(conn, "SELECT execution_id, attempt_number, status, output, error"
                             " FROM attempts WHERE execution_id = ANY(%s)", (xids,))
        (others,) = sql(conn, "SELECT count(*) FROM executions WHERE NOT (execution_id = ANY(%s))",
                        (xids,))[0]
    assert others == 0, f"{others} executions nobody created"
    assert len(rows) == N_JOBS

    statuses = Counter((r[1], r[2]) for r in rows)
    assert all(s == "SUCCESS" for _, s in statuses), f"not all SUCCESS: {dict(statuses)}"
    atts_of = {}
    for a_row in attempts:
        atts_of.setdefault(a_row[0], []).append(a_row)

    shapes = {"HTTP": {"status_code", "body"}, "KAFKA": {"partition", "offset"},
              "REDIS_STREAM": {"message_id", "stream"}}
    outputs = {}
    bad = []
    for xid, etype, status, n_att, wid, inp, out in rows:
        t = TRANSPORTS[seq_of[xid] % 3]
        atts = atts_of.get(xid, [])
        problems = []
        if etype != t:
            problems.append(f"endpoint_type {etype}, expected {t}")
        if n_att != 1:
            problems.append(f"attempt_count {n_att}")
        if inp != {"seq": seq_of[xid]}:
            problems.append(f"input {inp}")
        if [(x[1], x[2]) for x in atts] != [(1, "SUCCESS")]:
            problems.append(f"attempts {[(x[1], x[2], x[4]) for x in atts]}")
        else:
            aout = atts[0][3]
            if not isinstance(aout, dict) or set(aout) != shapes[t]:
                problems.append(f"attempt output {aout!r} is not {sorted(shapes[t])}")
            elif out != aout:
                problems.append(f"execution output {out!r} != attempt output {aout!r}")
            else:
                outputs[xid] = aout
        if problems:
            bad.append((xid, t, wid, problems))
    assert not bad, f"{len(bad)} executions are wrong, e.g. {bad[:5]}"

    # -- HTTP: the sink got exactly one request per HTTP execution, nothing else -----------------
    http = by_transport["HTTP"]
    reqs = sink.requests
    keys = Counter(r.idempotency_key for r in reqs)
    dupes = {k: n for k, n in keys.items() if n > 1}
    assert not dupes, f"{len(dupes)} HTTP executions delivered more than once, e.g. {list(dupes.items())[:5]}"
    assert set(keys) == http, (f"sink: {len(http - set(keys))} HTTP executions missing,"
                               f" {len(set(keys) - http)} unexpected keys")
    assert len(reqs) == len(http)
    for r in reqs:
        x = r.idempotency_key
        assert (r.method, r.path, r.attempt) == ("POST", "/ok", 1), (x, r.method, r.path, r.attempt)
        assert r.json() == {"seq": seq_of[x]}, (x, r.body[:200])
        assert outputs[x]["status_code"] == 200, outputs[x]

    # -- Kafka: exactly one record per KAFKA execution, where the attempt output says -----------
    kx = by_transport["KAFKA"]
    total, parts = topic_record_count(kafka.bootstrap, kafka.topic)
    assert parts == list(range(PARTITIONS)), parts
    assert total == len(kx), f"topic holds {total} records, {len(kx)} KAFKA executions"
    msgs = kafka.consume(kafka.topic, len(kx), scaled(30))
    assert len(msgs) == len(kx), f"read back {len(msgs)} of {len(kx)} records"
    kkeys = Counter(header_map(m).get("Idempotency-Key") for m in msgs)
    kdupes = {k: n for k, n in kkeys.items() if n > 1}
    assert not kdupes, f"{len(kdupes)} KAFKA executions produced more than once, e.g. {list(kdupes.items())[:5]}"
    assert set(kkeys) == kx, (f"topic: {len(kx - set(kkeys))} KAFKA executions missing,"
                              f" {len(set(kkeys) - kx)} unexpected keys")
    for m in msgs:
        h = header_map(m)
        x = h["Idempotency-Key"]
        assert h.get("X-Taskexec-Attempt") == "1" and h.get("ce-type") == "load", (x, h)
        assert m.key() == str(seq_of[x]).encode(), (x, m.key())
        assert json.loads(m.value()) == {"seq": seq_of[x]}, (x, m.value()[:200])
        assert (m.partition(), m.offset()) == (outputs[x]["partition"], outputs[x]["offset"]), (
            f"{x}: record at {(m.partition(), m.offset())}, attempt output says {outputs[x]}")
    used = Counter(m.partition() for m in msgs)
    assert len(used) > 1, f"every record went to one partition: {dict(used)}"

    # -- Redis: exactly one stream entry per REDIS_STREAM execution, with the recorded id --------
    rx = by_transport["REDIS_STREAM"]
    entries = redis.stream_entries(stream)
    assert redis.cli("XLEN", stream) == str(len(entries))
    rkeys = Counter(f.get("idempotency_key") for _, f in entries)
    rdupes = {k: n for k, n in rkeys.items() if n > 1}
    assert not rdupes, f"{len(rdupes)} REDIS_STREAM executions added more than once, e.g. {list(rdupes.items())[:5]}"
    assert set(rkeys) == rx, (f"stream: {len(rx - set(rkeys))} REDIS_STREAM executions missing,"
                              f" {len(set(rkeys) - rx)} unexpected keys")
    assert len(entries) == len(rx)
    for eid, f in entries:
        x = f["idempotency_key"]
        assert f == {"seq": str(seq_of[x]), "idempotency_key": x, "attempt": "1"}, (eid, f)
        assert outputs[x] == {"message_id": eid, "stream": stream}, (x, eid, outputs[x])

    # -- both processes delivered a share ------------------------------------------------------
    workers = Counter(r[4] for r in rows)
    split = Counter((r[4], r[1]) for r in rows)
    assert set(workers) == {"load-a", "load-b"}, f"executions per worker: {dict(workers)}"

    a.stop()
    b.stop()
    print(f"\n{N_JOBS} executions (HTTP {len(http)}, KAFKA {len(kx)}, REDIS_STREAM {len(rx)}):"
          f" created in {created_s:.2f}s, all SUCCESS {done_s:.2f}s after the first create;"
          f" per worker {dict(sorted(workers.items()))};"
          f" per worker and transport {dict(sorted(split.items()))};"
          f" Kafka records per partition {dict(sorted(used.items()))}")
