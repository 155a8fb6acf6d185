"""Deleting something that others depend on is refused with 409 CONFLICT."""

import copy
import uuid

import pytest

from harness.api import assert_error, assert_status, http_endpoint, kafka_endpoint, redis_endpoint, uniq


def secret_name():
    # underscores only: a name that reads the same in {{secret.NAME}} for any template scanner
    return uniq("sec").replace("-", "_")


def make_secret(te, name=None):
    name = name or secret_name()
    assert_status(te.post("/secrets", json={"name": name, "value": "v-" + uuid.uuid4().hex}), 201)
    return name


def make_endpoint(te, ep):
    assert_status(te.post("/endpoints", json=ep), 201)
    return ep["name"]


def delete_ok(te, path):
    r = te.delete(path)
    assert r.status_code == 204, f"DELETE {path}: {r.status_code} {r.text}"


def test_payload_spec_in_use(te):
    ps = uniq("ps")
    assert_status(te.post("/payload-specs", json={"name": ps, "schema": {}}), 201)
    ep = make_endpoint(te, http_endpoint(payload_spec=ps))
    assert_error(te.delete(f"/payload-specs/{ps}"), 409, "CONFLICT")
    assert_status(te.get(f"/payload-specs/{ps}"), 200)
    delete_ok(te, f"/endpoints/{ep}")
    delete_ok(te, f"/payload-specs/{ps}")


def test_config_in_use(te):
    cfg = uniq("cfg")
    assert_status(te.post("/configs", json={"name": cfg, "values": {"u": "http://x"}}), 201)
    eps = [make_endpoint(te, http_endpoint(config=cfg)), make_endpoint(te, {**kafka_endpoint(), "config": cfg})]
    assert_error(te.delete(f"/configs/{cfg}"), 409, "CONFLICT")
    delete_ok(te, f"/endpoints/{eps[0]}")
    assert_error(te.delete(f"/configs/{cfg}"), 409, "CONFLICT")  # still used by the second
    delete_ok(te, f"/endpoints/{eps[1]}")
    delete_ok(te, f"/configs/{cfg}")


def test_config_freed_by_endpoint_update(te):
    cfg = uniq("cfg")
    assert_status(te.post("/configs", json={"name": cfg, "values": {}}), 201)
    ep = http_endpoint(config=cfg)
    make_endpoint(te, ep)
    assert_error(te.delete(f"/configs/{cfg}"), 409, "CONFLICT")
    no_cfg = {k: v for k, v in ep.items() if k not in ("name", "config")}
    assert_status(te.put(f"/endpoints/{ep['name']}", json=no_cfg), 200)
    delete_ok(te, f"/configs/{cfg}")


def with_secret_in(kind, secret):
    ref = "{{secret.%s}}" % secret
    if kind == "http-header":
        return http_endpoint(headers={"Authorization": f"Bearer {ref}"})
    if kind == "http-url":
        return http_endpoint(url=f"https://api.example.com/hook?token={ref}")
    if kind == "http-body-nested":
        return http_endpoint(body_template={"auth": {"tokens": ["x", ref]}})
    if kind == "kafka-bootstrap":
        return kafka_endpoint(bootstrap_servers=ref)
    if kind == "kafka-value":
        return kafka_endpoint(value_template={"k": f"prefix-{ref}-suffix"})
    if kind == "redis-url":
        return redis_endpoint(redis_url=f"redis://:{ref}@127.0.0.1:6379")
    if kind == "redis-fields":
        return redis_endpoint(fields_template={"sig": ref})
    raise ValueError(kind)


@pytest.mark.parametrize(
    "kind",
    ["http-header", "http-url", "http-body-nested", "kafka-bootstrap", "kafka-value", "redis-url", "redis-fields"],
)
def test_secret_in_use(te, kind):
    sec = make_secret(te)
    ep = make_endpoint(te, with_secret_in(kind, sec))
    assert_error(te.delete(f"/secrets/{sec}"), 409, "CONFLICT")
    assert_status(te.get(f"/secrets/{sec}"), 200)
    delete_ok(te, f"/endpoints/{ep}")
    delete_ok(te, f"/secrets/{sec}")


def test_secret_freed_by_endpoint_update(te):
    sec = make_secret(te)
    ep = with_secret_in("http-header", sec)
    make_endpoint(te, ep)
    assert_error(te.delete(f"/secrets/{sec}"), 409, "CONFLICT")
    updated = copy.deepcopy(ep)
    updated["spec"]["headers"] = {"Authorization": "Bearer static"}
    assert_status(te.put(f"/endpoints/{ep['name']}", json=updated), 200)
    delete_ok(te, f"/secrets/{sec}")


def test_secret_reference_matches_whole_name_only(te):
    short = make_secret(te)
    longer = make_secret(te, short + "_2")
    ep = make_endpoint(te, with_secret_in("http-header", longer))
    delete_ok(te, f"/secrets/{short}")  # only {{secret.<short>_2}} is referenced
    assert_error(te.delete(f"/secrets/{longer}"), 409, "CONFLICT")
    delete_ok(te, f"/endpoints/{ep}")
    delete_ok(te, f"/secrets/{longer}")


def test_config_and_input_refs_do_not_block_secret_of_same_name(te):
    sec = make_secret(te)
    ep = make_endpoint(te, http_endpoint(headers={"A": "{{config.%s}}" % sec, "B": "{{input.%s}}" % sec}))
    delete_ok(te, f"/secrets/{sec}")
    delete_ok(te, f"/endpoints/{ep}")


# Jobs arrive with a later issue (POST /jobs). Until then the job row is written with SQL.
# Search for `jobs_via_sql` to find the tests to rewrite with the API.
@pytest.mark.jobs_via_sql
def test_endpoint_with_active_job_cannot_be_deleted(te, db):
    ep = http_endpoint()
    make_endpoint(te, ep)
    job_id = "job_test_" + uuid.uuid4().hex
    db.execute(
        """INSERT INTO jobs (job_id, endpoint, endpoint_type, trigger_type, status,
                             cron_expression, cron_timezone, cron_next_run_at)
           VALUES (%s, %s, 'HTTP', 'CRON', 'ACTIVE', '0 9 * * MON', 'UTC', now() + interval '365 days')""",
        (job_id, ep["name"]),
    )
    assert_error(te.delete(f"/endpoints/{ep['name']}"), 409, "CONFLICT")
    assert_status(te.get(f"/endpoints/{ep['name']}"), 200)

    db.execute("UPDATE jobs SET status = 'RETIRED', retired_at = now() WHERE job_id = %s", (job_id,))
    delete_ok(te, f"/endpoints/{ep['name']}")
    assert_error(te.get(f"/endpoints/{ep['name']}"), 404, "ENDPOINT_NOT_FOUND")
