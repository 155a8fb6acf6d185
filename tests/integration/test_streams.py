"""KAFKA and REDIS_STREAM delivery through the real pipeline: a real redis-server and the
Kafka-protocol test broker (tests/tools/kafka_mock_broker), consumed with real clients."""

import os
import select
import signal
import subprocess
import time
import uuid

import pytest

from harness.api import assert_status, kafka_endpoint, redis_endpoint, uniq
from harness.util import free_port, scaled, wait_until


class Redis:
    def __init__(self, tmp, password=None):
        self.port = free_port()
        self.password = password
        self.dir = tmp
        self.proc = None

    def start(self):
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", str(self.dir)]
        if self.password:
            args += ["--requirepass", self.password]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: self.cli("PING") in ("PONG", "NOAUTH Authentication required."),
                   scaled(10), what="redis-server to answer")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def cli(self, *args):
        cmd = ["redis-cli", "-p", str(self.port)]
        if self.password:
            cmd += ["--no-auth-warning", "-a", self.password]
        r = subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=10)
        return r.stdout.strip()

    def url(self, password=None):
        pw = password if password is not None else self.password
        return f"redis://:{pw}@127.0.0.1:{self.port}" if pw else f"redis://127.0.0.1:{self.port}"


@pytest.fixture
def redis(tmp_path):
    r = Redis(tmp_path)
    r.start()
    yield r
    r.stop()


@pytest.fixture(scope="module")
def broker():
    tools = os.environ.get("TE_TOOLS")
    if not tools:
        pytest.skip("TE_TOOLS is not set (`make integration` sets it)")
    proc = subprocess.Popen([os.path.join(tools, "kafka_mock_broker"), "--topic", "orders:2"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 10)
        assert ready, "kafka_mock_broker did not start"
        yield proc.stdout.readline().split()[1]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(15)


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
    import json
    assert json.loads(found.value()) == {"order_id": "o-1", "amount": 12.5}
    headers = {k: v.decode() for k, v in found.headers()}
    assert headers["ce-type"] == "order.created" and headers["Idempotency-Key"] == eid
    assert headers["X-Taskexec-Attempt"] == "1"


def test_kafka_unreachable_broker_fails_after_retries(te, db):
    dead = f"127.0.0.1:{free_port()}"
    ep = kafka_endpoint(bootstrap_servers=dead, topic="t", timeout_ms=500)
    ep["retry_policy"] = {"max_attempts": 2, "initial_delay_ms": 100}
    assert_status(te.post("/endpoints", json=ep), 201)
    eid = create_job(te, ep["name"], {"order_id": "x"})
    row = final(db, eid, 30)
    assert row[0] == "FAILED" and row[2] == 2
    assert all(e["type"] in ("BROKER_ERROR", "TIMEOUT") for e in attempt_errors(db, eid))
