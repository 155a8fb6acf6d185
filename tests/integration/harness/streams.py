"""Real stream targets for the integration tests: a private redis-server and the Kafka-protocol
test broker (tests/tools/kafka_mock_broker), plus helpers to read back what reached them."""

import json
import os
import select
import signal
import subprocess
import threading
import time

import pytest

from .api import uniq
from .util import free_port, scaled, wait_until


class Redis:
    """A redis-server on a free loopback port, no persistence; start() again after stop()
    brings it back on the same port (empty)."""

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
        r = subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=30)
        return r.stdout.strip()

    def url(self, password=None):
        pw = password if password is not None else self.password
        return f"redis://:{pw}@127.0.0.1:{self.port}" if pw else f"redis://127.0.0.1:{self.port}"

    def stream_entries(self, stream):
        """Every entry of stream as (id, {field: value}) with str fields and values, read
        with XRANGE in pages so large streams come back whole. Read as JSON (RESP2 arrays):
        redis-cli 7's --csv prints a whole multi-entry reply on one line, which cannot be
        split back into entries reliably."""
        entries, start = [], "-"
        while True:
            r = subprocess.run(["redis-cli", "-p", str(self.port), "--no-auth-warning",
                                *(["-a", self.password] if self.password else []),
                                "-2", "--json", "XRANGE", stream, start, "+", "COUNT", "500"],
                               capture_output=True, text=True, timeout=60)
            try:
                reply = json.loads(r.stdout)
            except ValueError:
                raise AssertionError(f"XRANGE {stream}: unexpected redis-cli output"
                                     f" {r.stdout[:300]!r} {r.stderr[:300]!r}") from None
            assert isinstance(reply, list), f"XRANGE {stream}: {reply!r:.300}"
            page = [(eid, dict(zip(flat[0::2], flat[1::2]))) for eid, flat in reply]
            if start != "-" and page and page[0][0] == start:
                page = page[1:]
            if not page:
                return entries
            entries += page
            start = page[-1][0]


class KafkaBroker:
    """kafka_mock_broker as a subprocess. down()/up() take every broker down (connections
    closed, new ones refused) and back up on the same addresses (SIGUSR1 / SIGUSR2)."""

    def __init__(self, *topics, brokers=1, rtt_ms=0):
        tools = os.environ.get("TE_TOOLS")
        if not tools:
            pytest.skip("TE_TOOLS is not set (`make integration` sets it)")
        self.path = os.path.join(tools, "kafka_mock_broker")
        self.args = ["--brokers", str(brokers)]
        for t in topics:
            self.args += ["--topic", t]
        if rtt_ms:
            self.args += ["--rtt-ms", str(rtt_ms)]
        self.proc = None
        self.bootstrap = None

    def start(self):
        self.proc = subprocess.Popen([self.path, *self.args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], 10)
        assert ready, "kafka_mock_broker did not start"
        line = self.proc.stdout.readline()
        assert line.startswith("BOOTSTRAP "), f"unexpected first line {line!r}"
        self.bootstrap = line.split()[1]
        # stderr is read all along, so the broker can never block on a full pipe.
        self.stderr_lines = []
        threading.Thread(target=self._read_stderr, daemon=True).start()
        return self

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr_lines.append(line)

    def _signal_and_confirm(self, sig, word):
        seen = sum(f"brokers {word}" in l for l in self.stderr_lines)
        self.proc.send_signal(sig)
        wait_until(lambda: sum(f"brokers {word}" in l for l in self.stderr_lines) > seen, 10,
                   what=f"kafka_mock_broker to confirm 'brokers {word}'")

    def down(self):
        self._signal_and_confirm(signal.SIGUSR1, "down")

    def up(self):
        self._signal_and_confirm(signal.SIGUSR2, "up")

    def leaders(self, topic):
        """{partition: leader broker id} from the cluster's metadata (the mock cluster places
        leaders at random)."""
        from confluent_kafka.admin import AdminClient
        md = AdminClient({"bootstrap.servers": self.bootstrap}).list_topics(topic, timeout=10)
        return {pid: p.leader for pid, p in md.topics[topic].partitions.items()}

    def set_broker(self, broker_id, up):
        """Takes one broker (1-based) down or brings it back, through the tool's stdin."""
        word = "up" if up else "down"
        confirm = f"broker {broker_id} {word}"
        seen = sum(confirm in l for l in self.stderr_lines)
        self.proc.stdin.write(f"{word} {broker_id}\n")
        self.proc.stdin.flush()
        wait_until(lambda: sum(confirm in l for l in self.stderr_lines) > seen, 10,
                   what=f"kafka_mock_broker to confirm '{confirm}'")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def consume(self, topic, want, timeout):
        """Reads topic from the beginning until `want` records arrived or timeout seconds
        passed; returns the confluent_kafka messages (without errors)."""
        from confluent_kafka import Consumer
        c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": uniq("g"),
                      "auto.offset.reset": "earliest", "enable.auto.commit": False})
        c.subscribe([topic])
        got, deadline = [], time.monotonic() + timeout
        try:
            while len(got) < want and time.monotonic() < deadline:
                for m in c.consume(num_messages=500, timeout=0.5):
                    if not m.error():
                        got.append(m)
        finally:
            c.close()
        return got


def header_map(message):
    return {k: (v.decode() if v is not None else None) for k, v in (message.headers() or [])}


def free_dead_bootstrap():
    """A loopback address where nothing listens."""
    return f"127.0.0.1:{free_port()}"
