"""The kafka_mock_broker test tool (tests/tools/kafka_mock_broker.c) against a real client.

Starts the broker, produces 10 keyed messages with headers through confluent_kafka,
consumes them back in a consumer group and stops the broker with SIGTERM (exit 0).
Needs TE_TOOLS (set by `make integration`); skipped without it.
"""

import os
import select
import signal
import subprocess
import time

import pytest

TOPIC = "tool_test"
N = 10


def tool_path():
    tools = os.environ.get("TE_TOOLS")
    if not tools:
        pytest.skip("TE_TOOLS is not set (directory holding the kafka_mock_broker tool; "
                    "`make integration` sets it)")
    path = os.path.join(tools, "kafka_mock_broker")
    assert os.access(path, os.X_OK), f"TE_TOOLS={tools} has no executable kafka_mock_broker"
    return path


@pytest.fixture
def broker():
    proc = subprocess.Popen([tool_path(), "--brokers", "1", "--topic", f"{TOPIC}:2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 10)
        assert ready, "kafka_mock_broker printed no BOOTSTRAP line within 10 s"
        line = proc.stdout.readline()  # the tool prints and flushes this line at once
        assert line.startswith("BOOTSTRAP 127.0.0.1:"), (
            f"unexpected first line {line!r}; stderr: {proc.stderr.read() if proc.poll() is not None else ''}")
        yield proc, line.split()[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


def test_produce_consume_roundtrip(broker):
    import confluent_kafka  # Debian python3-confluent-kafka; a missing module fails the test

    proc, bootstrap = broker
    deadline = time.monotonic() + 25

    producer = confluent_kafka.Producer({"bootstrap.servers": bootstrap,
                                         "message.timeout.ms": 10000})
    errors = []
    for i in range(N):
        producer.produce(TOPIC, key=f"k{i}", value=f"v{i}",
                         headers=[("idx", str(i).encode()), ("kind", b"test")],
                         on_delivery=lambda err, msg: err and errors.append(err))
    assert producer.flush(10) == 0, "messages still undelivered after 10 s"
    assert not errors, errors

    consumer = confluent_kafka.Consumer({"bootstrap.servers": bootstrap,
                                         "group.id": "tool_test_group",
                                         "auto.offset.reset": "earliest",
                                         "enable.auto.commit": False})
    got = {}
    try:
        consumer.subscribe([TOPIC])
        while len(got) < N and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            got[msg.key().decode()] = (msg.value().decode(), msg.headers())
    finally:
        consumer.close()

    assert len(got) == N, f"consumed {len(got)} of {N} messages"
    for i in range(N):
        value, headers = got[f"k{i}"]
        assert value == f"v{i}"
        assert headers == [("idx", str(i).encode()), ("kind", b"test")]

    proc.send_signal(signal.SIGTERM)
    assert proc.wait(max(1, deadline - time.monotonic())) == 0
