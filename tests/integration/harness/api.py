"""Assertions and request builders shared by the API tests."""

import re
import threading
import uuid
from datetime import datetime, timezone

TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$")

RETRY_DEFAULTS = {
    "max_attempts": 1,
    "backoff": "exponential",
    "initial_delay_ms": 1000,
    "max_delay_ms": 60000,
}


_sessions = threading.local()


def thread_session(te):
    """A keep-alive requests.Session for this thread and this taskexec, with its API key, for
    tests that create many jobs from a thread pool."""
    import requests
    by_url = getattr(_sessions, "by_url", None)
    if by_url is None:
        by_url = _sessions.by_url = {}
    s = by_url.get(te.base_url)
    if s is None:
        s = by_url[te.base_url] = requests.Session()
        s.headers["Authorization"] = f"Bearer {te.api_key}"
    return s


def create_immediate_jobs(procs, n, body_for, workers=16, timeout=30):
    """Creates n IMMEDIATE jobs from a thread pool, job i through procs[i % len(procs)] with
    the body body_for(i) (keep-alive sessions); returns the execution ids in order."""
    from concurrent.futures import ThreadPoolExecutor

    def create(i):
        te = procs[i % len(procs)]
        r = thread_session(te).post(te.base_url + "/jobs", json=body_for(i), timeout=timeout)
        assert r.status_code == 201, (i, r.status_code, r.text[:300])
        return r.json()["execution"]["execution_id"]

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(create, range(n)))


def uniq(prefix="t"):
    """A fresh valid resource name, so that tests sharing a database never collide."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def assert_request_id(resp):
    rid = resp.headers.get("X-Request-Id")
    assert rid, f"no X-Request-Id on {resp.status_code} {resp.request.method} {resp.url}"
    return rid


def error_body(resp):
    """The parsed error body, after checking the shape {"error":{"code","message","request_id"}}
    and that request_id equals the X-Request-Id header."""
    try:
        body = resp.json()
    except ValueError:
        raise AssertionError(f"error response is not JSON: {resp.status_code} {resp.text[:300]!r}")
    assert isinstance(body, dict) and isinstance(body.get("error"), dict), body
    err = body["error"]
    for k in ("code", "message", "request_id"):
        assert isinstance(err.get(k), str) and err[k], f"error.{k} missing or empty: {body}"
    assert err["request_id"] == resp.headers.get("X-Request-Id"), (
        f"error.request_id {err['request_id']!r} != X-Request-Id {resp.headers.get('X-Request-Id')!r}"
    )
    return err


def assert_error(resp, status, code, *contains):
    """Asserts an error response: HTTP status, error code, and that the message contains
    every string in contains (case-insensitive)."""
    assert resp.status_code == status, (
        f"expected {status} {code}, got {resp.status_code}: {resp.text[:500]}"
    )
    err = error_body(resp)
    assert err["code"] == code, f"expected code {code}, got {err}"
    for c in contains:
        assert c.lower() in err["message"].lower(), f"message does not mention {c!r}: {err['message']!r}"
    return err


def assert_status(resp, status):
    assert resp.status_code == status, (
        f"expected {status}, got {resp.status_code} for {resp.request.method} {resp.url}: {resp.text[:500]}"
    )
    assert_request_id(resp)
    return resp.json() if resp.content else None


def parse_ts(s):
    assert isinstance(s, str) and TS_RE.match(s), f"not an RFC 3339 UTC timestamp ending in Z: {s!r}"
    return datetime.fromisoformat(s[:-1]).replace(tzinfo=timezone.utc)


def list_all(te, path, limit=200, params=None):
    """Every item of a list endpoint, following cursors."""
    items, cursor = [], None
    for _ in range(10000):
        q = {"limit": limit, **(params or {})}
        if cursor:
            q["cursor"] = cursor
        page = assert_status(te.get(path, params=q), 200)
        items += page["items"]
        cursor = page["cursor"]
        if cursor is None:
            return items
    raise AssertionError(f"{path}: pagination never ended")


def find_in_list(te, path, name):
    matches = [i for i in list_all(te, path) if i.get("name") == name]
    assert len(matches) <= 1, f"{name} listed {len(matches)} times"
    return matches[0] if matches else None


# -- endpoint definitions (the brief's examples, with fresh names) -------------------------


def http_endpoint(name=None, payload_spec=None, config=None, **spec_overrides):
    spec = {
        "url": "http://127.0.0.1:9/hook",
        "method": "POST",
        "headers": {"Content-Type": "application/json"},
        "body_template": {"user_id": "{{input.user_id}}"},
        "timeout_ms": 5000,
        "expected_status_codes": [200, 201, 202, 204],
    }
    spec.update(spec_overrides)
    ep = {"name": name or uniq("ep"), "type": "HTTP", "spec": spec}
    if payload_spec:
        ep["payload_spec"] = payload_spec
    if config:
        ep["config"] = config
    return ep


def kafka_endpoint(name=None, **spec_overrides):
    spec = {
        "bootstrap_servers": "127.0.0.1:9092",
        "topic": "order.events.v1",
        "key_template": "{{input.order_id}}",
        "value_template": {"order_id": "{{input.order_id}}"},
        "headers": {"ce-source": "task-executor"},
        "acks": "all",
        "timeout_ms": 10000,
    }
    spec.update(spec_overrides)
    return {"name": name or uniq("ep"), "type": "KAFKA", "spec": spec}


def redis_endpoint(name=None, **spec_overrides):
    spec = {
        "redis_url": "redis://127.0.0.1:6379",
        "stream": "notifications:outbound",
        "fields_template": {"user_id": "{{input.user_id}}"},
        "max_len": 1000,
        "approximate_trimming": True,
        "timeout_ms": 3000,
    }
    spec.update(spec_overrides)
    return {"name": name or uniq("ep"), "type": "REDIS_STREAM", "spec": spec}


def without(d, *keys):
    return {k: v for k, v in d.items() if k not in keys}
