#!/usr/bin/python3
"""Delivery benchmark: end-to-end throughput and latency per transport, with the real binary.

Everything runs on 127.0.0.1: one private PostgreSQL (tests/integration/harness/postgres.py:
fsync, synchronous_commit and full_page_writes off), one redis-server, the Kafka-protocol
test broker (build/tools/kafka_mock_broker), an HTTP sink, and one or two taskexec
processes per scenario, each scenario on a fresh database.

Scenarios: HTTP, KAFKA, REDIS_STREAM and MIXED (job i goes to HTTP, KAFKA, REDIS_STREAM in
turn). Each runs in two modes:

  e2e    taskexec with all roles; N IMMEDIATE jobs are created through the API from several
         client threads (keep-alive connections) while the worker delivers them. Reports
         jobs created/s (client side), deliveries/s (first created_at to last completed_at,
         from the database) and the latency completed_at - created_at per execution.
  drain  the worker alone: N jobs are created with TE_ROLES=api (no worker), that process is
         stopped, then worker-only processes (TE_ROLES=worker,scheduler) start and drain the
         backlog. Reports executions/s from the first claim (min started_at) to the last
         completed_at.

Every execution must end SUCCESS and every target must hold exactly one delivery per
execution; otherwise the benchmark says so and exits 1.

Usage (from the repository root, after `make all tools`):
    /usr/bin/python3 bench/delivery.py                       # the default run
    /usr/bin/python3 bench/delivery.py --jobs 500 --scenarios HTTP,MIXED --modes e2e
    /usr/bin/python3 bench/delivery.py --procs 2 --env TE_WORKER_MAX_CONCURRENT=200

Internal: `delivery.py --serve-sink` runs the fast HTTP sink (used as a child process).
"""

import argparse
import datetime as dt
import http.client
import json
import math
import os
import platform
import re
import resource
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SCENARIOS = ("HTTP", "KAFKA", "REDIS_STREAM", "MIXED")
MODES = ("e2e", "drain")
TRANSPORTS = ("HTTP", "KAFKA", "REDIS_STREAM")
KAFKA_PARTITIONS = 4
TERMINAL = ("SUCCESS", "FAILED", "CANCELLED")
# Settings shown in the summary (all of them go to the JSON file).
SHOWN_SETTINGS = ("TE_WORKER_MAX_CONCURRENT", "TE_WORKER_POLL_INTERVAL_MS", "TE_DB_POOL_SIZE",
                  "TE_DB_NOTIFY", "TE_LOG_LEVEL")


# =============================================================================== fast sink
# A minimal HTTP/1.1 keep-alive responder on asyncio (child process, so that it does not share
# a GIL with the client threads): counts requests and distinct Idempotency-Key values and
# answers 200 {"ok":true} to everything except GET /_stats. Pipelined requests are answered
# in order. It stops on SIGTERM or when its stdin closes (its parent went away).


def serve_sink():
    import asyncio

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops it (Ctrl-C or not)
    content_length = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.I)
    idem_key = re.compile(rb"\r\nidempotency-key:[ \t]*([^\r]*)", re.I)
    ok = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n"
          b'{"ok":true}')
    stats = {"requests": 0, "without_key": 0}
    keys = set()

    class Conn(asyncio.Protocol):
        def connection_made(self, transport):
            self.t = transport
            self.buf = b""

        def data_received(self, data):
            buf = self.buf + data if self.buf else data
            out = []
            while True:
                i = buf.find(b"\r\n\r\n")
                if i < 0:
                    break
                m = content_length.search(buf, 0, i)
                end = i + 4 + (int(m.group(1)) if m else 0)
                if len(buf) < end:
                    break
                if buf.startswith(b"GET /_stats "):
                    body = json.dumps({**stats, "distinct_keys": len(keys)}).encode()
                    out.append(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
                else:
                    stats["requests"] += 1
                    k = idem_key.search(buf, 0, i)
                    if k:
                        keys.add(k.group(1))
                    else:
                        stats["without_key"] += 1
                    out.append(ok)
                buf = buf[end:]
            self.buf = buf
            if out:
                self.t.write(b"".join(out))

    async def main():
        loop = asyncio.get_running_loop()
        stop = loop.create_future()

        def done(*_):
            if not stop.done():
                stop.set_result(None)

        loop.add_signal_handler(signal.SIGTERM, done)
        loop.add_reader(0, lambda: os.read(0, 4096) or done())
        server = await loop.create_server(Conn, "127.0.0.1", 0, backlog=1024)
        print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
        await stop
        server.close()

    asyncio.run(main())


class FastSink:
    kind = "asyncio HTTP/1.1 keep-alive responder (child process of the benchmark)"

    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--serve-sink"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], 10)
        line = self.proc.stdout.readline() if ready else ""
        if not line.startswith("PORT "):
            self.close()
            raise RuntimeError(f"the sink did not start (first line {line!r})")
        self.port = int(line.split()[1])
        self.pid = self.proc.pid

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def stats(self):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            c.request("GET", "/_stats")
            return json.loads(c.getresponse().read())
        finally:
            c.close()

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class HarnessSink:
    """tests/integration/harness/sink.py (threaded http.server, inside this process)."""

    kind = "tests/integration/harness/sink.py (ThreadingHTTPServer in the benchmark process)"

    def __init__(self):
        from harness.sink import Sink
        self.s = Sink()
        self.port = self.s.port
        self.pid = None

    def url(self, path):
        return self.s.url(path)

    def stats(self):
        reqs = self.s.requests
        keys = {r.idempotency_key for r in reqs if r.idempotency_key}
        return {"requests": len(reqs), "distinct_keys": len(keys),
                "without_key": sum(1 for r in reqs if not r.idempotency_key)}

    def close(self):
        self.s.close()


# =============================================================================== targets


class _OwnSessionSubprocess:
    """The subprocess module as harness/streams.py sees it here, except that Popen starts a new
    session: a Ctrl-C on the terminal then reaches only the benchmark, which stops taskexec
    first and redis-server and the broker after it (the harness does the same for PostgreSQL)."""

    def __getattr__(self, name):
        return getattr(subprocess, name)

    @staticmethod
    def Popen(*args, **kw):  # noqa: N802 - stands in for subprocess.Popen
        kw.setdefault("start_new_session", True)
        return subprocess.Popen(*args, **kw)


def stream_targets():
    """(Redis, KafkaBroker) from the test harness, their processes in their own sessions."""
    from harness import streams
    streams.subprocess = _OwnSessionSubprocess()
    return streams.Redis, streams.KafkaBroker


# =============================================================================== helpers


class BenchError(Exception):
    pass


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def pct(sorted_vals, p):
    """Nearest-rank percentile of an ascending list."""
    if not sorted_vals:
        return None
    k = max(0, math.ceil(p / 100.0 * len(sorted_vals)) - 1)
    return sorted_vals[k]


def dist(vals):
    v = sorted(vals)
    if not v:
        return None
    return {"p50": pct(v, 50), "p90": pct(v, 90), "p99": pct(v, 99), "max": v[-1],
            "mean": sum(v) / len(v)}


def run_out(argv, timeout=10):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_stat(pid):
    """(ppid, cpu seconds user+system) of a process, or None if it is gone."""
    try:
        s = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    rest = s[s.rindex(")") + 2:].split()
    return int(rest[1]), (int(rest[11]) + int(rest[12])) / CLK_TCK


def tree_cpu(root):
    """{pid: cpu seconds} of root and its direct children (PostgreSQL: postmaster + backends)."""
    out = {}
    st = proc_stat(root)
    if st:
        out[root] = st[1]
    for d in os.listdir("/proc"):
        if d.isdigit():
            st = proc_stat(int(d))
            if st and st[0] == root:
                out[int(d)] = st[1]
    return out


def system_cpu():
    """(busy, total) jiffies of all CPUs, from /proc/stat."""
    f = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = f[3] + f[4]
    return sum(f) - idle, sum(f)


class CpuMeter:
    """CPU seconds per component between start() and stop()."""

    def __init__(self, components):
        self.components = components  # name -> callable returning {pid: cpu}

    @staticmethod
    def _self_cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def start(self):
        self.t0 = time.monotonic()
        self.sys0 = system_cpu()
        self.self0 = self._self_cpu()
        self.base = {name: f() for name, f in self.components.items()}

    def stop(self):
        wall = time.monotonic() - self.t0
        sys1 = system_cpu()
        out = {}
        for name, f in self.components.items():
            now, base = f(), self.base[name]
            out[name] = round(sum(max(0.0, v - base.get(pid, 0.0)) for pid, v in now.items()), 2)
        out["bench"] = round(self._self_cpu() - self.self0, 2)
        busy = sys1[0] - self.sys0[0]
        total = sys1[1] - self.sys0[1]
        return {"wall_s": round(wall, 2), "cpu_s": out,
                "machine_busy_pct": round(100.0 * busy / total, 1) if total else None}


# =============================================================================== environment


def busy_before(seconds=1.0):
    """How busy the machine is before we start anything (other work skews the figures)."""
    b0, t0 = system_cpu()
    time.sleep(seconds)
    b1, t1 = system_cpu()
    return round(100.0 * (b1 - b0) / max(1, t1 - t0), 1)


def machine_info():
    model = ""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    mem = ""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal"):
            mem = f"{int(line.split()[1]) // 1024} MiB"
    return {
        "nproc": int(run_out(["nproc"]) or os.cpu_count()),
        "cpu_model": model,
        "memory": mem,
        "kernel": platform.release(),
        "loadavg_at_start": Path("/proc/loadavg").read_text().split()[:3],
        "busy_pct_before_start": busy_before(),
        "python": platform.python_version(),
        "redis_server": run_out(["redis-server", "--version"]),
        "librdkafka (taskexec)": run_out(["pkg-config", "--modversion", "rdkafka"]),
        "libcurl": run_out(["pkg-config", "--modversion", "libcurl"]),
    }


def git_info():
    commit = run_out(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    dirty = subprocess.run(["git", "-C", str(REPO), "diff", "--quiet", "HEAD", "--", "src", "schema",
                            "deps"], capture_output=True, timeout=10).returncode != 0
    binary = REPO / "build" / "taskexec"
    built = dt.datetime.fromtimestamp(binary.stat().st_mtime, dt.timezone.utc) if binary.exists() else None
    return {"commit": commit, "src_modified": dirty,
            "binary_version": run_out([str(binary), "--version"]),
            "binary_built_at": built.isoformat(timespec="seconds") if built else None}


def settings_from_help(binary, overrides):
    """Every TE_* setting with its default (from `taskexec --help`), then the overrides."""
    text = run_out([str(binary), "--help"])
    out = {}
    for line in text.splitlines():
        m = re.match(r"\s+(TE_\w+)\s.*?(?:\[default: (.*)\])?$", line)
        if m:
            out[m.group(1)] = m.group(2)
    out.update(overrides)
    return out


# =============================================================================== the benchmark


class Bench:
    def __init__(self, args):
        self.args = args
        self.problems = []
        self.results = []
        self.tmp = Path(tempfile.mkdtemp(prefix="te-bench-", dir="/tmp"))
        self.binary = REPO / "build" / "taskexec"
        self.tools = REPO / "build" / "tools"
        self.pg = self.redis = self.kafka = self.sink = None
        self.factories = []
        self.topics = {}
        self.env = {"TE_LOG_LEVEL": "info"}
        for kv in args.env:
            k, _, v = kv.partition("=")
            if not k.startswith("TE_") or not _:
                raise SystemExit(f"--env expects TE_NAME=value, got {kv!r}")
            self.env[k] = v

    # -- setup / teardown ---------------------------------------------------------------

    def setup(self):
        from harness.postgres import Postgres
        Redis, KafkaBroker = stream_targets()

        for p in (self.binary, self.tools / "kafka_mock_broker"):
            if not os.access(p, os.X_OK):
                raise BenchError(f"{p} is missing: run `make all tools`")
        log(f"starting PostgreSQL, redis-server, Kafka test broker, sink (work dir {self.tmp})")
        self.pg = Postgres(max_connections=300)
        self.pg.initdb()
        if self.args.pg_stats:
            with open(self.pg.datadir / "postgresql.conf", "a") as conf:
                conf.write("\nshared_preload_libraries = 'pg_stat_statements'\n"
                           "pg_stat_statements.track = all\n")
        self.pg.start()
        self.redis = Redis(self.tmp)
        self.redis.start()
        os.environ["TE_TOOLS"] = str(self.tools)
        topics = []
        for sc in self.args.scenarios:
            for mode in self.args.modes:
                name = f"bench_{sc.lower()}_{mode}"
                self.topics[(sc, mode)] = name
                topics.append(f"{name}:{KAFKA_PARTITIONS}")
        self.kafka = KafkaBroker(*topics).start()
        self.sink = FastSink() if self.args.sink == "fast" else HarnessSink()
        self.pg_version = self.pg.sql("SHOW server_version")[0][0]

    def teardown(self):
        for f in self.factories:
            try:
                f.cleanup()
            except Exception as e:  # noqa: BLE001 - keep stopping the rest
                self.problems.append(f"taskexec did not stop cleanly: {e}")
        for name, thing in (("sink", self.sink), ("Kafka broker", self.kafka),
                            ("redis-server", self.redis)):
            if thing is None:
                continue
            try:
                (thing.close if name == "sink" else thing.stop)()
            except Exception as e:  # noqa: BLE001
                self.problems.append(f"stopping the {name}: {e!r}")
        if self.pg is not None:
            self.pg.cleanup()
        if self.args.keep_logs or [p for p in self.problems if p != "interrupted"]:
            log(f"logs kept in {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def cpu_components(self, procs):
        comps = {
            "taskexec": lambda: {te.pid: (proc_stat(te.pid) or (0, 0.0))[1] for te in procs
                                 if te.is_running()},
            "postgres": lambda: tree_cpu(self.pg._postmaster_pid()),
            "redis": lambda: {self.redis.proc.pid: (proc_stat(self.redis.proc.pid) or (0, 0.0))[1]},
            "kafka_broker": lambda: {self.kafka.proc.pid:
                                     (proc_stat(self.kafka.proc.pid) or (0, 0.0))[1]},
        }
        if self.sink.pid:
            comps["sink"] = lambda: {self.sink.pid: (proc_stat(self.sink.pid) or (0, 0.0))[1]}
        return comps

    # -- one scenario -------------------------------------------------------------------

    def factory(self):
        from harness.taskexec import TaskexecFactory
        n = len(self.factories)
        f = TaskexecFactory(self.pg, self.tmp / f"run{n}", self.binary)
        self.factories.append(f)
        return f

    def endpoints(self, scenario, mode, api):
        """Creates the scenario's endpoints through api; returns {transport: name}."""
        from harness.api import http_endpoint, kafka_endpoint, redis_endpoint
        wanted = TRANSPORTS if scenario == "MIXED" else (scenario,)
        stream = f"bench:{scenario.lower()}:{mode}"
        defs = {
            "HTTP": http_endpoint(name="bench-http", url=self.sink.url("/ok"),
                                  body_template={"seq": "{{input.seq}}"}, timeout_ms=10000),
            "KAFKA": kafka_endpoint(name="bench-kafka", bootstrap_servers=self.kafka.bootstrap,
                                    topic=self.topics[(scenario, mode)],
                                    key_template="{{input.seq}}",
                                    value_template={"seq": "{{input.seq}}"}, timeout_ms=10000),
            "REDIS_STREAM": redis_endpoint(name="bench-redis", redis_url=self.redis.url(),
                                           stream=stream, fields_template={"seq": "{{input.seq}}"},
                                           max_len=10_000_000, approximate_trimming=True,
                                           timeout_ms=10000),
        }
        names = {}
        for t in wanted:
            r = api.post("/endpoints", json=defs[t])
            if r.status_code != 201:
                raise BenchError(f"creating the {t} endpoint: {r.status_code} {r.text[:300]}")
            names[t] = defs[t]["name"]
        self.stream = stream
        return names

    def create_jobs(self, apis, names, scenario, first, count, tag):
        """POSTs count IMMEDIATE jobs (seq first..first+count-1) from --clients threads, each
        with its own keep-alive connection; returns (seconds, errors)."""
        order = TRANSPORTS if scenario == "MIXED" else (scenario,)
        bodies = []
        for i in range(first, first + count):
            b = {"endpoint": names[order[i % len(order)]], "trigger": "IMMEDIATE",
                 "idempotency_key": f"{tag}-{i}", "input": {"seq": i}}
            if tag == "warmup":
                b["input"]["warmup"] = True
            bodies.append(json.dumps(b).encode())
        lock = threading.Lock()
        pos = [0]
        errors = []

        def client(t):
            te = apis[t % len(apis)]
            hdrs = {"Authorization": f"Bearer {te.api_key}", "Content-Type": "application/json"}
            conn = http.client.HTTPConnection(te.host, te.port, timeout=30)
            try:
                while True:
                    with lock:
                        i = pos[0]
                        pos[0] += 1
                    if i >= len(bodies):
                        return
                    for attempt in range(3):
                        try:
                            conn.request("POST", "/jobs", bodies[i], hdrs)
                            r = conn.getresponse()
                            data = r.read()
                        except (http.client.HTTPException, OSError) as e:
                            conn.close()
                            conn = http.client.HTTPConnection(te.host, te.port, timeout=30)
                            if attempt == 2:
                                errors.append(f"job {first + i}: {e!r}")
                            continue
                        # a retry after a lost answer may find the job created: 200
                        if not (r.status == 201 or (r.status == 200 and attempt > 0)):
                            errors.append(f"job {first + i}: HTTP {r.status} {data[:200]!r}")
                        break
                    if len(errors) > 20:
                        return
            finally:
                conn.close()

        threads = [threading.Thread(target=client, args=(t,), daemon=True)
                   for t in range(self.args.clients)]
        t0 = time.monotonic()
        for th in threads:
            th.start()
        for th in threads:
            th.join(self.args.timeout)
            if th.is_alive():
                raise BenchError(f"creating jobs took longer than {self.args.timeout}s")
        return time.monotonic() - t0, errors

    def end_phase(self, meter, db, label, scenario, mode, names):
        """Once every execution is done: CPU used, top statements, execution rows and what the
        targets received."""
        cpu = meter.stop()
        pg_top = self.pg_stats_top(db)
        rows = self.execution_rows(db)
        if not rows:
            raise BenchError(f"{label}: no executions to measure")
        return cpu, pg_top, rows, self.delivered_counts(scenario, mode, names)

    def wait_done(self, db, expected, what, warmup=False):
        """Waits until `expected` executions (warm-up ones or measured ones) are terminal."""
        cond = "input ? 'warmup'" if warmup else "NOT (input ? 'warmup')"
        deadline = time.monotonic() + self.args.timeout
        last, last_change = -1, time.monotonic()
        while True:
            rows = db.execute(f"SELECT status, count(*) FROM executions WHERE {cond}"
                              " GROUP BY status").fetchall()
            by = dict(rows)
            done = sum(by.get(s, 0) for s in TERMINAL)
            if done >= expected:
                return by
            now = time.monotonic()
            if done != last:
                last, last_change = done, now
            if now > deadline or now - last_change > self.args.stall_timeout:
                raise BenchError(f"{what}: {done} of {expected} executions finished after"
                                 f" {self.args.timeout if now > deadline else self.args.stall_timeout}s"
                                 f" {'' if now > deadline else 'without progress '}({by})")
            time.sleep(0.1)

    def pg_stats_reset(self, db):
        if self.args.pg_stats:
            db.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            db.execute("SELECT pg_stat_statements_reset()")

    def pg_stats_top(self, db, n=6):
        """The statements that took the most executor time in this database since the reset."""
        if not self.args.pg_stats:
            return None
        rows = db.execute(
            "SELECT regexp_replace(query, '\\s+', ' ', 'g'), calls, total_exec_time, rows"
            " FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database"
            "  WHERE datname = current_database()) AND query NOT ILIKE '%%pg_stat_statements%%'"
            " ORDER BY total_exec_time DESC LIMIT %s", (n,)).fetchall()
        return [{"query": q, "calls": c, "total_ms": round(t, 1), "mean_ms": round(t / c, 3) if c else None,
                 "rows": r} for q, c, t, r in rows]

    def execution_rows(self, db):
        return db.execute(
            "SELECT e.endpoint_type, e.status, e.attempt_count, e.worker_id,"
            " extract(epoch FROM e.created_at)::float8, extract(epoch FROM e.started_at)::float8,"
            " extract(epoch FROM e.completed_at)::float8, a.duration_ms"
            " FROM executions e LEFT JOIN attempts a ON a.execution_id = e.execution_id"
            "  AND a.attempt_number = e.attempt_count"
            " WHERE NOT (e.input ? 'warmup')").fetchall()

    def delivered_counts(self, scenario, mode, names):
        """What actually reached each target of the scenario (cumulative for the sink)."""
        out = {}
        if "HTTP" in names:
            out["HTTP"] = self.sink.stats()
        if "REDIS_STREAM" in names:
            out["REDIS_STREAM"] = int(self.redis.cli("XLEN", self.stream) or -1)
        if "KAFKA" in names:
            from confluent_kafka import Consumer, TopicPartition
            topic = self.topics[(scenario, mode)]
            c = Consumer({"bootstrap.servers": self.kafka.bootstrap, "group.id": "bench-check"})
            try:
                total = 0
                for p in range(KAFKA_PARTITIONS):
                    lo, hi = c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
                    total += hi - lo
                out["KAFKA"] = total
            finally:
                c.close()
        return out

    def check_delivered(self, label, before, after, expected):
        """expected: {transport: executions that must have reached it in this scenario}."""
        ok = {}
        for t, n in expected.items():
            if t == "HTTP":
                got = after["HTTP"]["requests"] - before["HTTP"]["requests"]
                distinct = after["HTTP"]["distinct_keys"] - before["HTTP"]["distinct_keys"]
                good = got == n and distinct == n
                detail = f"{got} requests, {distinct} distinct Idempotency-Key values"
            else:
                got = after[t] - (before.get(t) or 0)
                good = got == n
                detail = f"{got} {'records' if t == 'KAFKA' else 'stream entries'}"
            ok[t] = {"expected": n, "got": detail, "ok": good}
            if not good:
                self.problems.append(f"{label}: {t} target got {detail}, expected {n}")
        return ok

    def summarize(self, rows, label):
        by_status = {}
        for r in rows:
            by_status[r[1]] = by_status.get(r[1], 0) + 1
        failed = by_status.get("FAILED", 0)
        not_ok = len(rows) - by_status.get("SUCCESS", 0)
        if not_ok:
            self.problems.append(f"{label}: {not_ok} of {len(rows)} executions not SUCCESS"
                                 f" ({by_status})")
        retried = sum(1 for r in rows if (r[2] or 0) > 1)
        if retried:
            self.problems.append(f"{label}: {retried} executions needed more than one attempt")
        return by_status, failed

    def breakdown(self, rows):
        """Latency parts in ms: queue (created→claimed), send (the transport's own duration,
        from the attempt row), record (the rest: until the outcome statement ran)."""
        q, s, rec, e2e, svc = [], [], [], [], []
        for _t, _st, _n, _w, cr, sa, co, dur in rows:
            if co is None:
                continue
            e2e.append((co - cr) * 1000)
            svc.append((co - sa) * 1000)
            q.append((sa - cr) * 1000)
            if dur is not None:
                s.append(float(dur))
                rec.append((co - sa) * 1000 - dur)
        return {"latency": dist(e2e), "queue": dist(q), "send": dist(s), "record": dist(rec),
                "claim_to_done": dist(svc)}

    def run_e2e(self, scenario):
        a = self.args
        label = f"{scenario} e2e"
        f = self.factory()
        dbname = self.pg.create_database()
        env = dict(self.env)
        procs = [f.start(db=dbname, env={**env, "TE_WORKER_ID": f"bench-{k}"}) for k in range(a.procs)]
        names = self.endpoints(scenario, "e2e", procs[0])
        n_types = len(names)
        with self.pg.connect(dbname) as db:
            # warm-up: producer, connections and prepared statements exist before the clock starts
            if a.warmup:
                _, errs = self.create_jobs(procs, names, scenario, 0, a.warmup, "warmup")
                if errs:
                    raise BenchError(f"{label}: warm-up jobs failed: {errs[:3]}")
                self.wait_done(db, a.warmup, f"{label} warm-up", warmup=True)
            expected = self.expected_per_transport(scenario, a.jobs)
            before = self.delivered_counts(scenario, "e2e", names)
            self.pg_stats_reset(db)
            meter = CpuMeter(self.cpu_components(procs))
            meter.start()
            log(f"{label}: creating {a.jobs} jobs through {a.procs} process(es)"
                f" from {a.clients} client threads")
            create_s, errors = self.create_jobs(procs, names, scenario, a.warmup, a.jobs, "job")
            if errors:
                self.problems.append(f"{label}: {len(errors)} job creations failed, e.g. {errors[:3]}")
            n_created = a.jobs - len(errors)
            self.wait_done(db, n_created, label)
            cpu, pg_top, rows, after = self.end_phase(meter, db, label, scenario, "e2e", names)
        delivered = self.check_delivered(label, before, after, expected)
        f.cleanup()
        by_status, failed = self.summarize(rows, label)
        created = [r[4] for r in rows]
        completed = [r[6] for r in rows if r[6] is not None]
        span = max(completed) - min(created) if completed else None
        res = {
            "scenario": scenario, "mode": "e2e", "jobs": len(rows), "procs": a.procs,
            "transports": n_types, "create_s": round(create_s, 3),
            "created_per_s": round(len(rows) / create_s, 1),
            "first_create_to_last_done_s": round(span, 3) if span else None,
            "delivered_per_s": round(len(completed) / span, 1) if span else None,
            "avg_in_flight": self.in_flight(rows, span),
            "tail_after_last_create_ms": round((max(completed) - max(created)) * 1000, 1)
            if completed else None,
            "statuses": by_status, "failed": failed, "delivered": delivered, "cpu": cpu,
            "workers": self.worker_split(rows), "pg_statements": pg_top,
            **self.breakdown(rows),
        }
        if scenario == "MIXED":
            res["per_transport"] = {t: self.breakdown([r for r in rows if r[0] == t])["latency"]
                                    for t in TRANSPORTS}
        return res

    def run_drain(self, scenario):
        a = self.args
        label = f"{scenario} drain"
        f = self.factory()
        dbname = self.pg.create_database()
        api = f.start(db=dbname, env={**self.env, "TE_ROLES": "api"})
        names = self.endpoints(scenario, "drain", api)
        expected = self.expected_per_transport(scenario, a.jobs)
        with self.pg.connect(dbname) as db:
            before = self.delivered_counts(scenario, "drain", names)
            log(f"{label}: creating a backlog of {a.jobs} jobs (TE_ROLES=api, no worker)")
            self.pg_stats_reset(db)
            insert_meter = CpuMeter(self.cpu_components([api]))
            insert_meter.start()
            create_s, errors = self.create_jobs([api], names, scenario, 0, a.jobs, "job")
            insert_cpu = insert_meter.stop()
            pg_top_insert = self.pg_stats_top(db)
            if errors:
                self.problems.append(f"{label}: {len(errors)} job creations failed, e.g. {errors[:3]}")
            api.stop()
            queued = db.execute("SELECT count(*) FROM executions WHERE status = 'QUEUED'").fetchone()[0]
            if queued != a.jobs - len(errors):
                raise BenchError(f"{label}: {queued} QUEUED executions in the backlog,"
                                 f" expected {a.jobs - len(errors)}")
            log(f"{label}: {queued} queued; starting {a.procs} worker-only process(es)")
            procs = []
            self.pg_stats_reset(db)
            meter = CpuMeter(self.cpu_components(procs))
            meter.start()
            t_spawn = time.time()
            for k in range(a.procs):
                procs.append(f.start(db=dbname, wait=False,
                                     env={**self.env, "TE_ROLES": "worker,scheduler",
                                          "TE_WORKER_ID": f"bench-drain-{k}"}))
            self.wait_done(db, queued, label)
            cpu, pg_top, rows, after = self.end_phase(meter, db, label, scenario, "drain", names)
        delivered = self.check_delivered(label, before, after, expected)
        f.cleanup()
        by_status, failed = self.summarize(rows, label)
        started = [r[5] for r in rows if r[5] is not None]
        completed = [r[6] for r in rows if r[6] is not None]
        span = max(completed) - min(started) if completed else None
        bd = self.breakdown(rows)
        return {
            "scenario": scenario, "mode": "drain", "jobs": len(rows), "procs": a.procs,
            "transports": len(names), "backlog_create_s": round(create_s, 3),
            "backlog_created_per_s": round(len(rows) / create_s, 1),
            "first_claim_to_last_done_s": round(span, 3) if span else None,
            "drained_per_s": round(len(completed) / span, 1) if span else None,
            "avg_in_flight": self.in_flight(rows, span),
            "spawn_to_first_claim_s": round(min(started) - t_spawn, 3) if started else None,
            "spawn_to_last_done_s": round(max(completed) - t_spawn, 3) if completed else None,
            "statuses": by_status, "failed": failed, "delivered": delivered, "cpu": cpu,
            "insert_cpu": insert_cpu, "workers": self.worker_split(rows),
            "pg_statements": pg_top, "pg_statements_insert": pg_top_insert,
            "claim_to_done": bd["claim_to_done"], "send": bd["send"], "record": bd["record"],
        }

    @staticmethod
    def in_flight(rows, span):
        """Executions between claim and recorded outcome, on average over the span (Little's
        law): close to TE_WORKER_MAX_CONCURRENT x processes means the worker ran out of slots."""
        busy = sum(r[6] - r[5] for r in rows if r[5] is not None and r[6] is not None)
        return round(busy / span, 1) if span else None

    @staticmethod
    def worker_split(rows):
        out = {}
        for r in rows:
            out[r[3]] = out.get(r[3], 0) + 1
        return out

    @staticmethod
    def expected_per_transport(scenario, n):
        if scenario != "MIXED":
            return {scenario: n}
        return {t: len(range(k, n, 3)) for k, t in enumerate(TRANSPORTS)}

    def run(self):
        for mode in self.args.modes:
            for sc in self.args.scenarios:
                t0 = time.monotonic()
                n_factories = len(self.factories)
                try:
                    res = self.run_e2e(sc) if mode == "e2e" else self.run_drain(sc)
                except Exception as e:  # noqa: BLE001 - report it, go on with the next one
                    msg = str(e) if isinstance(e, BenchError) else f"{type(e).__name__}: {e}"
                    self.problems.append(f"{sc} {mode}: {msg}")
                    res = {"scenario": sc, "mode": mode, "error": msg}
                finally:
                    # whatever happened, this scenario's processes must not run into the next one
                    for f in self.factories[n_factories:]:
                        try:
                            f.cleanup()
                        except Exception as e:  # noqa: BLE001
                            self.problems.append(f"{sc} {mode}: taskexec did not stop cleanly: {e}")
                res["scenario_wall_s"] = round(time.monotonic() - t0, 1)
                self.results.append(res)
                log(f"{sc} {mode}: done in {res['scenario_wall_s']}s"
                    + (f" — ERROR {res['error']}" if "error" in res else ""))


# =============================================================================== report


def f0(v):
    return "-" if v is None else f"{v:,.0f}"


def f1(v):
    return "-" if v is None else f"{v:,.1f}"


def table(headers, rows, left=1):
    """Plain-text table; the first `left` columns are left-aligned, the rest right-aligned."""
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(str(c).rjust(w) if i >= left else str(c).ljust(w)  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])


def cpu_cells(cpu, jobs):
    """CPU microseconds per job of each process, the phase's wall time and machine load."""
    c = cpu["cpu_s"]
    us = lambda k: f"{c[k] * 1e6 / jobs:,.0f}" if k in c else "-"  # noqa: E731
    return [f1(cpu["wall_s"]), us("taskexec"), us("postgres"), us("sink"), us("redis"),
            us("kafka_broker"), us("bench"), f"{cpu['machine_busy_pct']:.0f}%"]


CPU_HEADERS = ["wall s", "taskexec", "postgres", "sink", "redis", "kafka", "bench", "busy"]


def render(report):
    out = []
    m, s = report["machine"], report["settings"]
    out.append("taskexec delivery benchmark")
    out.append(f"command:  {report['command']}")
    out.append(f"machine:  {m['nproc']} cores, {m['cpu_model']}, {m['memory']}, Linux {m['kernel']};"
               f" before start: {m['busy_pct_before_start']:.0f}% busy, load {' '.join(m['loadavg_at_start'])}")
    g = report["git"]
    out.append(f"commit:   {g['commit']}{' (src/ modified in the working tree)' if g['src_modified'] else ''};"
               f" binary {g['binary_version'] or '?'}, built {g['binary_built_at']}")
    out.append("settings: " + ", ".join(f"{k}={s.get(k)}" for k in SHOWN_SETTINGS)
               + f"; {report['options']['procs']} taskexec process(es)"
               + f"; {report['options']['clients']} client threads; warm-up {report['options']['warmup']} jobs")
    out.append(f"targets:  HTTP sink: {report['sink']}; Kafka: kafka_mock_broker, "
               f"{KAFKA_PARTITIONS} partitions, acks=all (idempotent producer); Redis: redis-server "
               f"{m['redis_server'].split()[2] if m['redis_server'] else '?'}, XADD MAXLEN ~")
    out.append(f"database: PostgreSQL {report['postgres']} (private; fsync, synchronous_commit,"
               " full_page_writes off), fresh database per scenario")
    e2e = [r for r in report["results"] if r["mode"] == "e2e" and "error" not in r]
    drain = [r for r in report["results"] if r["mode"] == "drain" and "error" not in r]
    if e2e:
        out.append("")
        out.append("End to end: create N IMMEDIATE jobs through the API while the worker delivers them")
        out.append("(deliver/s: N / (last completed_at - first created_at); latency: completed_at -"
                   " created_at per execution, ms)")
        rows = []
        for r in e2e:
            L = r["latency"]
            rows.append([r["scenario"], r["jobs"], f0(r["created_per_s"]), f0(r["delivered_per_s"]),
                         f1(L["p50"]), f1(L["p90"]), f1(L["p99"]), f1(L["max"]), r["failed"],
                         "ok" if all(d["ok"] for d in r["delivered"].values()) else "MISMATCH"])
            for t, d in (r.get("per_transport") or {}).items():
                rows.append([f"  {t}", "", "", "", f1(d["p50"]), f1(d["p90"]), f1(d["p99"]),
                             f1(d["max"]), "", ""])
        out.append(table(["scenario", "jobs", "create/s", "deliver/s", "p50", "p90", "p99", "max",
                          "FAILED", "targets"], rows))
        out.append("")
        out.append("Where the time goes (e2e, ms, p50/p99): queue = created→claimed, send = the"
                   " transport's own duration, record = claimed+send→outcome written;")
        out.append("tail = last completed_at - last created_at; in flight = average executions"
                   " between claim and recorded outcome")
        rows = []
        for r in e2e:
            rows.append([r["scenario"], f"{f1(r['queue']['p50'])}/{f1(r['queue']['p99'])}",
                         f"{f1(r['send']['p50'])}/{f1(r['send']['p99'])}",
                         f"{f1(r['record']['p50'])}/{f1(r['record']['p99'])}",
                         f0(r["tail_after_last_create_ms"]), f1(r["avg_in_flight"])])
        out.append(table(["scenario", "queue", "send", "record", "tail", "in flight"], rows))
    if drain:
        out.append("")
        out.append("Worker alone: N jobs queued with TE_ROLES=api, then worker-only process(es)"
                   " (TE_ROLES=worker,scheduler) drain them")
        out.append("(drain/s: N / (last completed_at - first started_at); start ms: worker spawn to"
                   " first claim; in flight: average executions between claim and outcome;")
        out.append(" claim→done and send in ms, p50/p99; insert/s: job creation with TE_ROLES=api)")
        rows = []
        for r in drain:
            c, sd = r["claim_to_done"], r["send"]
            rows.append([r["scenario"], r["jobs"], f0(r["backlog_created_per_s"]), f0(r["drained_per_s"]),
                         f1(r["first_claim_to_last_done_s"]), f0(r["spawn_to_first_claim_s"] and r["spawn_to_first_claim_s"] * 1000),
                         f1(r["avg_in_flight"]), f"{f1(c['p50'])}/{f1(c['p99'])}", f"{f1(sd['p50'])}/{f1(sd['p99'])}",
                         r["failed"],
                         "ok" if all(d["ok"] for d in r["delivered"].values()) else "MISMATCH"])
        out.append(table(["scenario", "jobs", "insert/s", "drain/s", "drain s", "start ms",
                          "in flight", "claim→done", "send", "FAILED", "targets"], rows))
    done = e2e + drain
    if done:
        out.append("")
        out.append("CPU per job, µs (CPU time of each process during the phase / jobs); busy = the whole"
                   f" machine ({m['nproc']} cores) during the phase")
        rows = []
        for r in e2e:
            rows.append([r["scenario"], "e2e: create + deliver"] + cpu_cells(r["cpu"], r["jobs"]))
        for r in drain:
            rows.append([r["scenario"], "insert (api only)"] + cpu_cells(r["insert_cpu"], r["jobs"]))
            rows.append([r["scenario"], "drain (worker only)"] + cpu_cells(r["cpu"], r["jobs"]))
        out.append(table(["scenario", "phase"] + CPU_HEADERS, rows, left=2))
    if report["options"].get("pg_stats") and done:
        out.append("")
        out.append("PostgreSQL statements by executor time (pg_stat_statements; total ms, calls, mean ms)")
        for r in done:
            phases = [("e2e", r.get("pg_statements"))] if r["mode"] == "e2e" else [
                ("insert", r.get("pg_statements_insert")), ("drain", r.get("pg_statements"))]
            for ph, top in phases:
                out.append(f"  {r['scenario']} {ph}:")
                for st in top or []:
                    out.append(f"    {st['total_ms']:9,.0f} ms {st['calls']:7,d} x {st['mean_ms']:7.3f}"
                               f"  {st['query'][:100]}")
    out.append("")
    out.append(f"total run time {report['total_s']:.0f}s")
    if report["problems"]:
        out.append("")
        out.append("!" * 78)
        out.append("BENCHMARK NOT VALID — problems:")
        for p in report["problems"]:
            out.append(f"  - {p}")
        out.append("!" * 78)
    return "\n".join(out)


# =============================================================================== main


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=5000, help="jobs per scenario and mode (5000)")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS),
                    help=f"comma-separated subset of {','.join(SCENARIOS)} (all)")
    ap.add_argument("--modes", default=",".join(MODES), help="e2e, drain or both (both)")
    ap.add_argument("--procs", type=int, choices=(1, 2), default=1,
                    help="taskexec processes per scenario (1)")
    ap.add_argument("--clients", type=int, default=8, help="client threads creating jobs (8)")
    ap.add_argument("--warmup", type=int, default=30,
                    help="e2e: jobs delivered before the measured ones, not counted (30)")
    ap.add_argument("--env", action="append", default=[], metavar="TE_NAME=VALUE",
                    help="extra setting for every taskexec process (repeatable)")
    ap.add_argument("--sink", choices=("fast", "harness"), default="fast",
                    help="HTTP sink: the asyncio responder (fast) or tests' http.server sink")
    ap.add_argument("--timeout", type=float, default=180,
                    help="seconds any one phase (creating, delivering) may take (180)")
    ap.add_argument("--stall-timeout", type=float, default=30,
                    help="give up when no execution finishes for this long (30)")
    ap.add_argument("--pg-stats", action="store_true",
                    help="load pg_stat_statements and print the costliest statements per phase")
    ap.add_argument("--results-dir", default=str(BENCH / "results"))
    ap.add_argument("--no-json", action="store_true", help="do not write the JSON file")
    ap.add_argument("--keep-logs", action="store_true", help="keep the taskexec logs in /tmp")
    a = ap.parse_args(argv)
    a.scenarios = [s.strip().upper() for s in a.scenarios.split(",") if s.strip()]
    a.modes = [s.strip().lower() for s in a.modes.split(",") if s.strip()]
    bad = [s for s in a.scenarios if s not in SCENARIOS] + [m for m in a.modes if m not in MODES]
    if bad or not a.scenarios or not a.modes:
        ap.error(f"unknown or missing scenario/mode: {bad}")
    if a.jobs < 1 or a.clients < 1 or a.warmup < 0:
        ap.error("--jobs and --clients must be >= 1, --warmup >= 0")
    return a


def main(argv):
    if argv[:1] == ["--serve-sink"]:
        serve_sink()
        return 0
    args = parse_args(argv)
    sys.path.insert(0, str(REPO / "tests" / "integration"))

    def on_term(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)
    t0 = time.monotonic()
    started = dt.datetime.now(dt.timezone.utc)
    bench = Bench(args)
    report = {
        "command": " ".join(shlex.quote(x) for x in [sys.executable, *sys.argv]),
        "cwd": os.getcwd(),
        "started_at": started.isoformat(timespec="seconds"),
        "machine": machine_info(), "git": git_info(),
        "settings": settings_from_help(bench.binary, bench.env),
        "options": {k: v for k, v in vars(args).items()},
    }
    interrupted = False
    try:
        bench.setup()
        report["sink"] = bench.sink.kind
        report["postgres"] = bench.pg_version
        bench.run()
    except KeyboardInterrupt:
        interrupted = True
        bench.problems.append("interrupted")
    except BenchError as e:
        bench.problems.append(str(e))
    finally:
        # A second Ctrl-C (or SIGTERM) must not cut the teardown short and leave servers behind.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        log("stopping everything")
        bench.teardown()
    report.setdefault("sink", args.sink)
    report.setdefault("postgres", "?")
    report["results"] = bench.results
    report["problems"] = bench.problems
    report["total_s"] = round(time.monotonic() - t0, 1)
    print(render(report), flush=True)
    if not args.no_json and not interrupted:
        d = Path(args.results_dir)
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{started.strftime('%Y%m%dT%H%M%SZ')}.json"
        path.write_text(json.dumps(report, indent=2, default=str) + "\n")
        print(f"results: {path}")
    if interrupted:
        return 130
    return 1 if bench.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
