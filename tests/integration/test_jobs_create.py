"""POST /jobs, GET /jobs/{id} and GET /jobs: triggers, field rules, idempotency (also under
concurrency), input validation, cron/zone errors, zone-aware next_run_at, list filters.

The server runs with TE_ROLES=api, so executions stay in the state creation left them."""

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta, timezone

import pytest

from harness.api import assert_error, assert_status, http_endpoint, uniq
from harness.taskexec import TaskexecFactory


@pytest.fixture(scope="module")
def api(pg, module_db, taskexec_binary, tmp_path_factory):
    factory = TaskexecFactory(pg, tmp_path_factory.mktemp("jobs_create"), taskexec_binary, module_db)
    try:
        yield factory.start(env={"TE_ROLES": "api"})
    finally:
        factory.cleanup()


@pytest.fixture(scope="module")
def spec_endpoint(api):
    spec = uniq("ps")
    assert_status(api.post("/payload-specs", json={"name": spec, "schema": {
        "type": "object",
        "properties": {"user_id": {"type": "string"}, "n": {"type": "integer", "minimum": 1}},
        "required": ["user_id"]}}), 201)
    ep = http_endpoint(payload_spec=spec)
    assert_status(api.post("/endpoints", json=ep), 201)
    return ep["name"]


def immediate(endpoint, key=None, **over):
    body = {"endpoint": endpoint, "trigger": "IMMEDIATE",
            "idempotency_key": key or uuid.uuid4().hex, "input": {"user_id": "u1"}}
    body.update(over)
    return body


def test_immediate_created_with_queued_execution(api, spec_endpoint):
    job = assert_status(api.post("/jobs", json=immediate(spec_endpoint)), 201)
    assert job["job_id"].startswith("job_") and len(job["job_id"]) == 36
    assert job["trigger"] == "IMMEDIATE" and job["status"] == "ACTIVE" and job["version"] == 1
    assert job["endpoint"] == spec_endpoint and job["endpoint_type"] == "HTTP"
    assert job["execution"]["execution_id"].startswith("exec_")
    assert job["execution"]["status"] == "QUEUED"
    assert job["input"] == {"user_id": "u1"}
    got = assert_status(api.get(f"/jobs/{job['job_id']}"), 200)
    assert got == job


def test_repeat_key_returns_original_with_200(api, spec_endpoint):
    key = uuid.uuid4().hex
    first = assert_status(api.post("/jobs", json=immediate(spec_endpoint, key)), 201)
    again = assert_status(api.post("/jobs", json=immediate(spec_endpoint, key, input={"user_id": "other"})), 200)
    assert again == first


def test_concurrent_same_key_creates_one_job(api, spec_endpoint, db):
    key = uuid.uuid4().hex
    barrier = threading.Barrier(8)

    def create(_):
        barrier.wait()
        r = api.post("/jobs", json=immediate(spec_endpoint, key))
        return r.status_code, r.json()

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(create, range(8)))
    codes = sorted(c for c, _ in results)
    assert codes.count(201) == 1 and codes.count(200) == 7, codes
    assert len({b["job_id"] for _, b in results}) == 1
    n = db.execute("SELECT count(*) FROM jobs WHERE idempotency_key = %s", (key,)).fetchone()[0]
    assert n == 1
    n = db.execute("SELECT count(*) FROM executions e JOIN jobs j ON j.job_id = e.job_id"
                   " WHERE j.idempotency_key = %s", (key,)).fetchone()[0]
    assert n == 1


def test_delayed_future_is_pending_and_past_is_queued(api, spec_endpoint):
    future = (datetime.now(timezone.utc) + timedelta(hours=1)).isoformat()
    job = assert_status(api.post("/jobs", json=immediate(spec_endpoint, trigger="DELAYED", run_at=future)), 201)
    assert job["execution"]["status"] == "PENDING"
    past = (datetime.now(timezone.utc) - timedelta(hours=1)).isoformat()
    job = assert_status(api.post("/jobs", json=immediate(spec_endpoint, trigger="DELAYED", run_at=past)), 201)
    assert job["execution"]["status"] == "QUEUED"


def test_cron_next_run_at_has_zone_offset(api, spec_endpoint):
    body = {"endpoint": spec_endpoint, "trigger": "CRON", "cron": "0 9 * * MON",
            "timezone": "Asia/Kolkata", "starts_at": "2026-03-16T00:00:00Z", "input": {"user_id": "u"}}
    job = assert_status(api.post("/jobs", json=body), 201)
    assert job["next_run_at"] == "2026-03-16T09:00:00+05:30"
    assert job["cron"] == "0 9 * * MON" and job["timezone"] == "Asia/Kolkata"
    assert job["ends_at"] is None and "execution" not in job


@pytest.mark.parametrize("over, field", [
    ({"trigger": "SOMETIMES"}, "trigger"),
    ({"idempotency_key": None}, "idempotency_key"),
    ({"idempotency_key": ""}, "idempotency_key"),
    ({"idempotency_key": "k" * 256}, "idempotency_key"),
    ({"input": [1, 2]}, "input"),
    ({"inptu": {}}, "inptu"),
    ({"endpoint": 5}, "endpoint"),
    ({"run_at": "2030-01-01T00:00:00Z"}, "run_at"),
    ({"cron": "* * * * *"}, "cron"),
    ({"trigger": "DELAYED"}, "run_at"),
    ({"trigger": "DELAYED", "run_at": "tomorrow"}, "run_at"),
    ({"trigger": "CRON", "timezone": "UTC"}, "cron"),
    ({"trigger": "CRON", "cron": "* * * * *"}, "timezone"),
])
def test_bad_bodies_are_400_naming_the_field(api, spec_endpoint, over, field):
    body = immediate(spec_endpoint)
    body.update(over)
    body = {k: v for k, v in body.items() if v is not None}
    err = assert_error(api.post("/jobs", json=body), 400, "INVALID_REQUEST")
    assert field in err["message"]


def test_unknown_endpoint_is_404(api):
    assert_error(api.post("/jobs", json=immediate(uniq("nope"))), 404, "ENDPOINT_NOT_FOUND")


def test_input_validation_lists_each_failure(api, spec_endpoint, db):
    key = uuid.uuid4().hex
    r = api.post("/jobs", json=immediate(spec_endpoint, key, input={"n": 0}))
    err = assert_error(r, 422, "INPUT_VALIDATION_FAILED")
    details = r.json()["error"]["details"]
    got = {(d["path"], d["keyword"]) for d in details}
    assert ("", "required") in got and ("/n", "minimum") in got
    assert db.execute("SELECT count(*) FROM jobs WHERE idempotency_key = %s", (key,)).fetchone()[0] == 0


@pytest.mark.parametrize("cron, zone, code", [
    ("61 * * * *", "UTC", "INVALID_CRON"),
    ("* * * *", "UTC", "INVALID_CRON"),
    ("0 0 30 2 *", "UTC", "INVALID_CRON"),
    ("* * * * *", "Mars/Olympus", "INVALID_TIMEZONE"),
    ("* * * * *", "../../etc/passwd", "INVALID_TIMEZONE"),
])
def test_cron_and_zone_errors(api, spec_endpoint, cron, zone, code):
    body = {"endpoint": spec_endpoint, "trigger": "CRON", "cron": cron, "timezone": zone,
            "input": {"user_id": "u"}}
    assert_error(api.post("/jobs", json=body), 422, code)


def test_ends_before_start_is_400(api, spec_endpoint):
    body = {"endpoint": spec_endpoint, "trigger": "CRON", "cron": "* * * * *", "timezone": "UTC",
            "starts_at": "2030-01-02T00:00:00Z", "ends_at": "2030-01-01T00:00:00Z",
            "input": {"user_id": "u"}}
    err = assert_error(api.post("/jobs", json=body), 400, "INVALID_REQUEST")
    assert "ends_at" in err["message"]


def test_get_unknown_and_malformed_job(api):
    assert_error(api.get("/jobs/job_" + "0" * 32), 404, "JOB_NOT_FOUND")
    assert_error(api.get("/jobs/not-an-id"), 404, "JOB_NOT_FOUND")


def test_list_filters_and_pagination(api):
    ep = http_endpoint()
    assert_status(api.post("/endpoints", json=ep), 201)
    ids = [assert_status(api.post("/jobs", json=immediate(ep["name"])), 201)["job_id"] for _ in range(5)]
    cron = {"endpoint": ep["name"], "trigger": "CRON", "cron": "* * * * *", "timezone": "UTC"}
    ids.append(assert_status(api.post("/jobs", json=cron), 201)["job_id"])
    seen, cursor = [], None
    while True:
        params = {"endpoint": ep["name"], "limit": 2}
        if cursor:
            params["cursor"] = cursor
        page = assert_status(api.get("/jobs", params=params), 200)
        seen += [j["job_id"] for j in page["items"]]
        cursor = page["cursor"]
        if cursor is None:
            break
    assert seen == sorted(ids, reverse=True)
    crons = assert_status(api.get("/jobs", params={"endpoint": ep["name"], "trigger": "CRON"}), 200)
    assert [j["job_id"] for j in crons["items"]] == [ids[-1]]
    assert_error(api.get("/jobs", params={"status": "DONE"}), 400, "INVALID_REQUEST")
    assert_error(api.get("/jobs", params={"trigger": "SOON"}), 400, "INVALID_REQUEST")
