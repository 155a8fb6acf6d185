"""KAFKA and REDIS_STREAM delivery through the real pipeline: a real redis-server and the
Kafka-protocol test broker (tests/tools/kafka_mock_broker), consumed with real clients."""

import json
import subprocess
import time
import uuid

import pytest

from harness.api import assert_error, assert_status, kafka_endpoint, redis_endpoint, uniq
from harness.streams import KafkaBroker, Redis
from harness.util import free_port, scaled, wait_until


@pytest.fixture(scope="module")
def kafka():
    k = KafkaBroker("orders:2").start()
    yield k
    k.stop()


@pytest.fixture(scope="module")
def broker(kafka):
    return kafka.bootstrap


def create_job(te, endpoint, inp):
    body = {"endpoint": endpoint, "trigger": "IMMEDIATE", "idempotency_key": uuid.uuid4().hex,
            "input": inp}
    return assert_status(te.post("/jobs", json=body), 201)["execution"]["execution_id"]


def final(db, exec_id, timeout=20):
    def done():
        row = db.execute("SELECT status, output, attempt_count FROM executions"
                         " WHERE execution_id = %s", (exec_id,)).fetchone()
        return row if row and row[0] in ("SUCCESS", "FAILED") else None
    return wait_until(done, scaled(timeout), what=f"{exec_id} to finish")


def failed_without_retry(db, exec_id):
    """Waits for exec_id to be FAILED after its first attempt; returns that attempt's error."""
    status, _, attempts = final(db, exec_id)
    assert status == "FAILED" and attempts == 1, (status, attempts)
    return attempt_errors(db, exec_id)[0]


def attempt_errors(db, exec_id):
    rows = db.execute("SELECT error FROM attempts WHERE execution_id = %s ORDER BY attempt_number",
                      (exec_id,)).fetchall()
    return [r[0] for r in rows]


def test_redis_fields_maxlen_and_id(te, db, redis):
    ep = redis_endpoint(redis_url=redis.url(), stream="notif", max_len=2, approximate_trimming=False,
                        fields_template={"user": "{{input.user}}", "n": "{{input.n}}",
                                         "obj": "{{input.o}}"})
    assert_status(te.post("/endpoints", json=ep), 201)
    ids = [create_job(te, ep["name"], {"user": f"u{i}", "n": i, "o": {"a": [1]}}) for i in range(3)]
    outs = [final(db, i) for i in ids]
    assert all(o[0] == "SUCCESS" for o in outs), outs
    assert all(o[1]["stream"] == "notif" and "-" in o[1]["message_id"] for o in outs)
    assert redis.cli("XLEN", "notif") == "2"
    flat = redis.cli("XRANGE", "notif", "-", "+").split("\n")
    assert "u2" in flat and '{"a":[1]}' in flat and "idempotency_key" in flat
    assert ids[2] in flat and "u0" not in flat


def test_redis_down_then_back(te_factory, tmp_path):
    srv = te_factory(env={"TE_WORKER_POLL_INTERVAL_MS": "50"})
    import psycopg
    db = psycopg.connect(srv.env["TE_DATABASE_URL"], autocommit=True)
    r = Redis(tmp_path)
    r.start()
    ep = redis_endpoint(redis_url=r.url(), stream="s", timeout_ms=1000)
    ep["retry_policy"] = {"max_attempts": 2, "initial_delay_ms": 100}
    assert_status(srv.post("/endpoints", json=ep), 201)
    assert final(db, create_job(srv, ep["name"], {"user_id": "a"}))[0] == "SUCCESS"
    r.stop()
    failed = create_job(srv, ep["name"], {"user_id": "b"})
    row = final(db, failed)
    assert row[0] == "FAILED" and row[2] == 2
    assert all(e["type"] in ("CONNECTION_ERROR", "TIMEOUT") for e in attempt_errors(db, failed))
    r.start()
    ok = create_job(srv, ep["name"], {"user_id": "c"})
    assert final(db, ok, 30)[0] == "SUCCESS"
    r.stop()
    db.close()


def test_redis_wrong_password_is_clear_and_not_leaked(te, db, tmp_path):
    r = Redis(tmp_path, password="right-password-123")
    r.start()
    try:
        ep = redis_endpoint(redis_url=r.url(password="wrong-password-456"), stream="s")
        assert_status(te.post("/endpoints", json=ep), 201)
        eid = create_job(te, ep["name"], {"user_id": "x"})
        assert final(db, eid)[0] == "FAILED"
        err = attempt_errors(db, eid)[0]
        assert err["type"] == "CONNECTION_ERROR" and "auth" in err["message"].lower()
        assert "wrong-password-456" not in str(err)
        assert "wrong-password-456" not in te.log_text()
    finally:
        r.stop()


def test_kafka_message_with_key_value_headers(te, db, broker):
    from confluent_kafka import Consumer
    ep = kafka_endpoint(bootstrap_servers=broker, topic="orders", key_template="{{input.order_id}}",
                        value_template={"order_id": "{{input.order_id}}", "amount": "{{input.amount}}"},
                        headers={"ce-type": "order.{{input.kind}}"})
    assert_status(te.post("/endpoints", json=ep), 201)
    eid = create_job(te, ep["name"], {"order_id": "o-1", "amount": 12.5, "kind": "created"})
    status, output, _ = final(db, eid)
    assert status == "SUCCESS" and output["partition"] in (0, 1) and output["offset"] >= 0
    c = Consumer({"bootstrap.servers": broker, "group.id": uniq("g"),
                  "auto.offset.reset": "earliest"})
    c.subscribe(["orders"])
    found, deadline = None, time.time() + scaled(20)
    while not found and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error() and m.key() == b"o-1":
            found = m
    c.close()
    assert found is not None
    assert json.loads(found.value()) == {"order_id": "o-1", "amount": 12.5}
    headers = {k: v.decode() for k, v in found.headers()}
    assert headers["ce-type"] == "order.created" and headers["Idempotency-Key"] == eid
    assert headers["X-Taskexec-Attempt"] == "1"
    # The same record through kcat, as an operator would look at it.
    out = subprocess.run(["kcat", "-b", broker, "-C", "-t", "orders", "-o", "beginning", "-e",
                          "-q", "-J"], capture_output=True, text=True, timeout=scaled(30)).stdout
    seen = [json.loads(line) for line in out.splitlines() if line.strip()]
    mine = [r for r in seen if r.get("key") == "o-1"]
    assert len(mine) == 1, seen
    rec = mine[0]
    assert json.loads(rec["payload"]) == {"order_id": "o-1", "amount": 12.5}
    assert (rec["partition"], rec["offset"]) == (output["partition"], output["offset"])
    kh = dict(zip(rec["headers"][0::2], rec["headers"][1::2]))
    assert kh["Idempotency-Key"] == eid and kh["ce-type"] == "order.created"


def test_kafka_unreachable_broker_fails_after_retries(te, db):
    dead = f"127.0.0.1:{free_port()}"
    ep = kafka_endpoint(bootstrap_servers=dead, topic="t", timeout_ms=500)
    ep["retry_policy"] = {"max_attempts": 2, "initial_delay_ms": 100}
    assert_status(te.post("/endpoints", json=ep), 201)
    eid = create_job(te, ep["name"], {"order_id": "x"})
    row = final(db, eid, 30)
    assert row[0] == "FAILED" and row[2] == 2
    assert all(e["type"] in ("BROKER_ERROR", "TIMEOUT") for e in attempt_errors(db, eid))


def test_kafka_broker_down_then_back_without_restart(te, db):
    """An outage fails attempts with BROKER_ERROR/TIMEOUT and retries per the policy; once the
    broker is back, new executions succeed on the same taskexec (its producer reconnects)."""
    k = KafkaBroker("outage:1").start()
    try:
        srv = te
        ep = kafka_endpoint(bootstrap_servers=k.bootstrap, topic="outage", timeout_ms=500,
                            key_template="{{input.order_id}}")
        ep["retry_policy"] = {"max_attempts": 3, "backoff": "fixed", "initial_delay_ms": 200}
        assert_status(srv.post("/endpoints", json=ep), 201)
        assert final(db, create_job(srv, ep["name"], {"order_id": "before"}))[0] == "SUCCESS"

        k.down()
        failed = create_job(srv, ep["name"], {"order_id": "during"})
        status, _, attempts = final(db, failed, 30)
        assert status == "FAILED" and attempts == 3
        errors = attempt_errors(db, failed)
        assert len(errors) == 3
        assert all(e["type"] in ("BROKER_ERROR", "TIMEOUT") and e["message"] for e in errors), errors
        # The policy's fixed delay separates the attempts.
        starts = [r[0] for r in db.execute(
            "SELECT started_at FROM attempts WHERE execution_id = %s ORDER BY attempt_number",
            (failed,)).fetchall()]
        assert all((b - a).total_seconds() >= 0.2 for a, b in zip(starts, starts[1:])), starts

        k.up()
        after = [create_job(srv, ep["name"], {"order_id": f"after-{i}"}) for i in range(3)]
        assert all(final(db, e, 30)[0] == "SUCCESS" for e in after)
        keys = {m.key() for m in k.consume("outage", 4, scaled(20))}
        assert {b"before", b"after-0", b"after-1", b"after-2"} <= keys
        assert srv.is_running()
    finally:
        k.stop()


def test_kafka_security_settings_reach_their_own_producer(te, db, broker):
    """spec.security selects librdkafka's security.protocol and SASL settings, with the password
    taken from a secret: a SASL endpoint gets a producer of its own (the test broker speaks no
    SASL, so its attempts fail with librdkafka's reason), while a plaintext endpoint to the same
    broker keeps delivering. The password appears in no response, attempt or log line."""
    password = "kafka-sasl-" + uuid.uuid4().hex
    secret = uniq("kpw")
    assert_status(te.post("/secrets", json={"name": secret, "value": password}), 201)
    plain = kafka_endpoint(bootstrap_servers=broker, topic="orders", timeout_ms=1500)
    sasl = kafka_endpoint(bootstrap_servers=broker, topic="orders", timeout_ms=1500,
                          security={"protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN",
                                    "sasl_username": "svc-orders",
                                    "sasl_password": "{{secret.%s}}" % secret})
    assert_status(te.post("/endpoints", json=plain), 201)
    created = assert_status(te.post("/endpoints", json=sasl), 201)
    assert created["spec"]["security"]["sasl_password"] == "{{secret.%s}}" % secret

    before = create_job(te, plain["name"], {"order_id": "p-1"})
    denied = create_job(te, sasl["name"], {"order_id": "s-1"})
    assert final(db, before, 30)[0] == "SUCCESS"
    status, _, attempts = final(db, denied, 30)
    assert status == "FAILED" and attempts == 1
    err = attempt_errors(db, denied)[0]
    assert err["type"] in ("BROKER_ERROR", "TIMEOUT") and "SASL" in err["message"], err
    after = create_job(te, plain["name"], {"order_id": "p-2"})
    assert final(db, after, 30)[0] == "SUCCESS"

    # The secret is in use: it cannot be deleted under the endpoint.
    assert te.delete(f"/secrets/{secret}").status_code == 409
    shown = te.get(f"/endpoints/{sasl['name']}").text + te.get(f"/executions/{denied}/attempts").text
    assert password not in shown
    assert password not in te.log_text()


def _running(db, ids):
    rows = db.execute("SELECT count(*) FROM executions WHERE execution_id = ANY(%s)"
                      " AND status = 'RUNNING'", (ids,)).fetchone()
    return rows[0] == len(ids)


def _slow_deliveries(te_factory, broker, topic, n, shutdown_sec, timeout_ms):
    """A taskexec with n KAFKA executions RUNNING against broker: (taskexec, db, ids)."""
    import psycopg
    srv = te_factory(env={"TE_WORKER_SHUTDOWN_TIMEOUT_SEC": str(shutdown_sec)})
    db = psycopg.connect(srv.env["TE_DATABASE_URL"], autocommit=True)
    ep = kafka_endpoint(bootstrap_servers=broker.bootstrap, topic=topic, timeout_ms=timeout_ms)
    assert_status(srv.post("/endpoints", json=ep), 201)
    ids = [create_job(srv, ep["name"], {"order_id": f"{topic}-{i}"}) for i in range(n)]
    wait_until(lambda: _running(db, ids), scaled(10), what=f"{n} executions RUNNING")
    return srv, db, ids


def test_sigterm_lets_kafka_deliveries_in_flight_finish(te_factory):
    """SIGTERM with produce requests in flight (each broker round trip takes 400 ms and a new
    producer needs several): taskexec stops claiming, waits (at most the shutdown timeout) for
    the broker's acknowledgements, records them and exits 0."""
    k = KafkaBroker("slow:1", rtt_ms=400).start()
    try:
        srv, db, ids = _slow_deliveries(te_factory, k, "slow", 5, 30, 30000)
        with db:
            t0 = time.monotonic()
            srv.stop(timeout=scaled(40))
            took = time.monotonic() - t0
            rows = db.execute("SELECT status, attempt_count FROM executions"
                              " WHERE execution_id = ANY(%s)", (ids,)).fetchall()
            assert rows == [("SUCCESS", 1)] * 5, rows
            assert took < 30, took
        keys = sorted(m.key() for m in k.consume("slow", 5, scaled(20)))
        assert keys == [f"slow-{i}".encode() for i in range(5)]
    finally:
        k.stop()


def test_sigterm_is_bounded_by_the_shutdown_timeout(te_factory):
    """A broker slower than the shutdown timeout: taskexec exits on time anyway; the executions
    stay RUNNING under their lease (a later reclaim retries them), none is marked done."""
    k = KafkaBroker("slower:1", rtt_ms=5000).start()
    try:
        srv, db, ids = _slow_deliveries(te_factory, k, "slower", 3, 1, 60000)
        with db:
            t0 = time.monotonic()
            srv.stop(timeout=scaled(15))
            assert time.monotonic() - t0 < scaled(6)
            assert _running(db, ids)
            assert "deadline reached" in srv.log_text()
    finally:
        k.stop()


def test_kafka_producer_that_cannot_be_created_fails_without_retry(te, db, broker):
    """A CA path that does not exist stops librdkafka from creating the producer: the attempt
    fails at once with librdkafka's reason and is not retried (another try cannot help)."""
    ep = kafka_endpoint(bootstrap_servers=broker, topic="orders",
                        security={"protocol": "SSL", "ssl_ca_location": "/nonexistent/ca.pem"})
    ep["retry_policy"] = {"max_attempts": 3, "initial_delay_ms": 100}
    assert_status(te.post("/endpoints", json=ep), 201)
    err = failed_without_retry(db, create_job(te, ep["name"], {"order_id": "x"}))
    assert err["type"] == "BROKER_ERROR" and "ssl.ca.location" in err["message"], err


def test_redis_wrong_key_type_is_a_stream_error(te, db, redis):
    """XADD onto a key that holds a string: Redis answers WRONGTYPE, recorded as STREAM_ERROR
    with Redis's words, and retried per the policy (someone may fix the key meanwhile)."""
    redis.cli("SET", "not-a-stream", "x")
    ep = redis_endpoint(redis_url=redis.url(), stream="not-a-stream")
    ep["retry_policy"] = {"max_attempts": 2, "initial_delay_ms": 100}
    assert_status(te.post("/endpoints", json=ep), 201)
    eid = create_job(te, ep["name"], {"user_id": "u"})
    status, _, attempts = final(db, eid)
    assert status == "FAILED" and attempts == 2
    errors = attempt_errors(db, eid)
    assert all(e["type"] == "STREAM_ERROR" and "WRONGTYPE" in e["message"] for e in errors), errors
    assert redis.cli("GET", "not-a-stream") == "x"


def test_redis_approximate_trimming_keeps_at_least_max_len(te, db, redis):
    """approximate_trimming (the default) sends MAXLEN ~ n: Redis trims whole nodes only (5
    entries each here), so 42 entries leave more than n; the exact form (tested above) leaves
    exactly n."""
    redis.cli("CONFIG", "SET", "stream-node-max-entries", "5")
    ep = redis_endpoint(redis_url=redis.url(), stream="approx", max_len=5,
                        fields_template={"n": "{{input.n}}"})
    assert_status(te.post("/endpoints", json=ep), 201)
    ids = [create_job(te, ep["name"], {"n": i}) for i in range(42)]
    assert all(final(db, i)[0] == "SUCCESS" for i in ids)
    length = int(redis.cli("XLEN", "approx"))
    assert 5 < length < 42, length
    entries = redis.stream_entries("approx")
    assert len(entries) == length and entries[-1][1]["n"] in {str(i) for i in range(42)}


def test_redis_endpoint_from_config_and_secret(te, db, tmp_path):
    """The brief's REDIS_STREAM shape: URL, stream and MAXLEN from a config, the password from a
    secret, a database number in the URL. The entry lands in that database, trimmed, and the
    password appears nowhere taskexec records or logs."""
    password = "redis-pw-" + uuid.uuid4().hex
    r = Redis(tmp_path, password=password)
    r.start()
    try:
        cfg, sec = uniq("rcfg"), uniq("rpw")
        assert_status(te.post("/configs", json={"name": cfg, "values": {
            "redis_host": f"127.0.0.1:{r.port}", "stream_name": "notifications:outbound",
            "max_stream_length": 3}}), 201)
        assert_status(te.post("/secrets", json={"name": sec, "value": password}), 201)
        ep = redis_endpoint(redis_url="redis://:{{secret.%s}}@{{config.redis_host}}/2" % sec,
                            stream="{{config.stream_name}}",
                            max_len="{{config.max_stream_length}}", approximate_trimming=False,
                            fields_template={"user_id": "{{input.user_id}}"})
        ep["config"] = cfg
        assert_status(te.post("/endpoints", json=ep), 201)
        ids = [create_job(te, ep["name"], {"user_id": f"u{i}"}) for i in range(5)]
        outs = [final(db, i) for i in ids]
        assert all(o[0] == "SUCCESS" for o in outs), outs
        assert {o[1]["stream"] for o in outs} == {"notifications:outbound"}
        assert r.cli("-n", "2", "XLEN", "notifications:outbound") == "3"
        assert r.cli("-n", "0", "EXISTS", "notifications:outbound") == "0"
        recorded = te.get(f"/executions/{ids[0]}/attempts").text + te.get(
            f"/executions/{ids[0]}/logs").text
        assert password not in recorded and password not in te.log_text()
    finally:
        r.stop()


def test_rediss_is_refused_clearly(te, db):
    """This hiredis has no TLS: a literal rediss:// URL is refused at registration (422); one
    that comes from a config fails the attempt at run time, without retry, saying why."""
    r = te.post("/endpoints", json=redis_endpoint(redis_url="rediss://127.0.0.1:6380"))
    assert_error(r, 422, "INVALID_ENDPOINT_SPEC", "rediss://", "TLS")
    cfg = uniq("tls")
    assert_status(te.post("/configs", json={"name": cfg, "values": {
        "url": "rediss://127.0.0.1:6380"}}), 201)
    ep = redis_endpoint(redis_url="{{config.url}}")
    ep["config"] = cfg
    ep["retry_policy"] = {"max_attempts": 3, "initial_delay_ms": 100}
    assert_status(te.post("/endpoints", json=ep), 201)
    err = failed_without_retry(db, create_job(te, ep["name"], {"user_id": "u"}))
    assert err["type"] == "CONNECTION_ERROR" and "rediss://" in err["message"], err


def test_many_headers_and_fields_all_arrive(te, db, redis, broker):
    """No fixed limit drops anything: 100 Kafka headers and 100 stream fields all arrive."""
    headers = {f"h-{i:03}": f"v{i}-{{{{input.tag}}}}" for i in range(100)}
    kep = kafka_endpoint(bootstrap_servers=broker, topic="orders", headers=headers,
                         key_template="many-{{input.tag}}", value_template={"t": "{{input.tag}}"})
    fields = {f"f{i:03}": f"{{{{input.tag}}}}-{i}" for i in range(100)}
    rep = redis_endpoint(redis_url=redis.url(), stream="many", fields_template=fields)
    for ep in (kep, rep):
        assert_status(te.post("/endpoints", json=ep), 201)
    k_id = create_job(te, kep["name"], {"tag": "t1"})
    r_id = create_job(te, rep["name"], {"tag": "t2"})
    assert final(db, k_id)[0] == "SUCCESS", attempt_errors(db, k_id)
    assert final(db, r_id)[0] == "SUCCESS", attempt_errors(db, r_id)
    (_, got), = redis.stream_entries("many")
    assert len(got) == 102 and got["f099"] == "t2-99" and got["idempotency_key"] == r_id
    out = subprocess.run(["kcat", "-b", broker, "-C", "-t", "orders", "-o", "beginning", "-e",
                          "-q", "-J"], capture_output=True, text=True, timeout=scaled(30)).stdout
    recs = [json.loads(x) for x in out.splitlines() if x.strip()]
    (rec,) = [x for x in recs if x.get("key") == "many-t1"]
    kh = dict(zip(rec["headers"][0::2], rec["headers"][1::2]))
    assert len(kh) == 102 and kh["h-099"] == "v99-t1" and kh["Idempotency-Key"] == k_id


def test_kafka_three_brokers_one_down_then_back(te, db):
    """A 3-broker cluster, 6 partitions, the leader of partition 0 down from the start: records
    for the partitions it leads time out and are retried per the policy while the others go
    through; once it is back every execution ends SUCCESS, the records spread over all six
    partitions, each on the topic exactly once."""
    k = KafkaBroker("spread:6", brokers=3).start()
    try:
        assert k.bootstrap.count(",") == 2
        leaders = k.leaders("spread")
        victim = leaders[0]
        k.set_broker(victim, up=False)
        ep = kafka_endpoint(bootstrap_servers=k.bootstrap, topic="spread", timeout_ms=1000,
                            key_template="{{input.order_id}}")
        ep["retry_policy"] = {"max_attempts": 20, "backoff": "fixed", "initial_delay_ms": 300}
        assert_status(te.post("/endpoints", json=ep), 201)
        ids = [create_job(te, ep["name"], {"order_id": f"o-{i}"}) for i in range(30)]

        def failed_attempts():
            return db.execute("SELECT count(*) FROM attempts WHERE execution_id = ANY(%s)"
                              " AND status <> 'SUCCESS'", (ids,)).fetchone()[0]
        wait_until(failed_attempts, scaled(20), what=f"attempts to fail while broker {victim} is down")
        k.set_broker(victim, up=True)
        outs = [final(db, x, 60) for x in ids]
        assert all(o[0] == "SUCCESS" for o in outs), outs
        retried = {o[1]["partition"] for o in outs if o[2] > 1}
        assert retried and retried <= {p for p, b in leaders.items() if b == victim}, (retried, leaders)
        assert min(o[2] for o in outs) == 1
        assert {o[1]["partition"] for o in outs} == set(range(6))
        keys = [m.key() for m in k.consume("spread", 30, scaled(30))]
        assert sorted(keys) == sorted(f"o-{i}".encode() for i in range(30))
    finally:
        k.stop()


def test_kafka_topic_names(te, db, broker):
    """A literal topic that Kafka would refuse is a 400 at registration; one that a config
    makes invalid fails the execution at once, without retry, naming the topic."""
    r = te.post("/endpoints", json=kafka_endpoint(bootstrap_servers=broker, topic="no spaces!"))
    assert_error(r, 400, "INVALID_REQUEST", "spec.topic", "Kafka topic name")
    cfg = uniq("topics")
    assert_status(te.post("/configs", json={"name": cfg, "values": {"t": "bad/topic"}}), 201)
    ep = kafka_endpoint(bootstrap_servers=broker, topic="{{config.t}}")
    ep["config"] = cfg
    ep["retry_policy"] = {"max_attempts": 3, "initial_delay_ms": 100}
    assert_status(te.post("/endpoints", json=ep), 201)
    err = failed_without_retry(db, create_job(te, ep["name"], {"order_id": "x"}))
    assert err["type"] == "BROKER_ERROR" and '"bad/topic"' in err["message"], err
