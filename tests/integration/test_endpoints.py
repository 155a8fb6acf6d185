"""/endpoints: the brief's three endpoint types, defaults, validation, references, PUT."""

import copy
import time

import pytest

from harness.api import (
    RETRY_DEFAULTS,
    assert_error,
    assert_status,
    find_in_list,
    http_endpoint,
    kafka_endpoint,
    parse_ts,
    redis_endpoint,
    uniq,
    without,
)

KEYS = {"name", "type", "payload_spec", "config", "spec", "retry_policy", "version", "created_at", "updated_at"}


@pytest.fixture(scope="module")
def refs(te):
    """A payload spec and a config that endpoints can reference."""
    ps, cfg = uniq("ps"), uniq("cfg")
    schema = {"type": "object", "properties": {"user_id": {"type": "string"}}, "required": ["user_id"]}
    assert_status(te.post("/payload-specs", json={"name": ps, "schema": schema}), 201)
    values = {"api_base_url": "http://127.0.0.1:9", "max_stream_length": 100000, "topic": "t"}
    assert_status(te.post("/configs", json={"name": cfg, "values": values}), 201)
    return {"payload_spec": ps, "config": cfg}


def create(te, ep):
    body = assert_status(te.post("/endpoints", json=ep), 201)
    assert set(body) == KEYS, body
    return body


# -- the brief's examples -------------------------------------------------------------------


def test_http_endpoint_as_in_brief(te, refs):
    secret = uniq("email_api_key").replace("-", "_")
    assert_status(te.post("/secrets", json={"name": secret, "value": "sk-x"}), 201)
    ep = http_endpoint(
        payload_spec=refs["payload_spec"],
        config=refs["config"],
        url="{{config.api_base_url}}/emails/welcome",
        headers={"Authorization": "Bearer {{secret.%s}}" % secret, "Content-Type": "application/json"},
        body_template={"user_id": "{{input.user_id}}", "sender": "{{config.sender}}"},
    )
    ep["retry_policy"] = {"max_attempts": 3, "backoff": "exponential", "initial_delay_ms": 1000, "max_delay_ms": 30000}
    body = create(te, ep)
    assert body["name"] == ep["name"] and body["type"] == "HTTP"
    assert body["payload_spec"] == refs["payload_spec"] and body["config"] == refs["config"]
    for k, v in ep["spec"].items():
        assert body["spec"][k] == v, k
    assert body["retry_policy"] == ep["retry_policy"]
    assert parse_ts(body["created_at"]) == parse_ts(body["updated_at"])
    assert assert_status(te.get(f"/endpoints/{ep['name']}"), 200) == body
    assert find_in_list(te, "/endpoints", ep["name"]) == body


def test_kafka_endpoint_as_in_brief(te, refs):
    ep = kafka_endpoint(
        bootstrap_servers="{{config.bootstrap_servers}}",
        topic="{{config.topic}}",
        value_template={"event_type": "{{input.event_type}}", "order_id": "{{input.order_id}}", "amount": "{{input.amount}}"},
        headers={"ce-type": "order.{{input.event_type}}", "ce-source": "task-executor"},
    )
    ep["config"] = refs["config"]
    ep["retry_policy"] = {"max_attempts": 5, "backoff": "exponential", "initial_delay_ms": 500, "max_delay_ms": 15000}
    body = create(te, ep)
    assert body["type"] == "KAFKA"
    for k, v in ep["spec"].items():
        assert body["spec"][k] == v, k
    assert body["retry_policy"] == ep["retry_policy"]
    assert body["payload_spec"] is None


def test_redis_endpoint_as_in_brief(te, refs):
    ep = redis_endpoint(
        redis_url="{{config.redis_url}}",
        stream="{{config.stream_name}}",
        max_len="{{config.max_stream_length}}",
        fields_template={"user_id": "{{input.user_id}}", "title": "{{input.title}}", "body": "{{input.body}}"},
    )
    ep["config"] = refs["config"]
    ep["payload_spec"] = refs["payload_spec"]
    ep["retry_policy"] = {"max_attempts": 3, "backoff": "exponential", "initial_delay_ms": 500, "max_delay_ms": 10000}
    body = create(te, ep)
    assert body["type"] == "REDIS_STREAM"
    for k, v in ep["spec"].items():
        assert body["spec"][k] == v, k


def test_minimal_endpoints_get_defaults(te):
    http = create(te, {"name": uniq("ep"), "type": "HTTP", "spec": {"url": "http://127.0.0.1:9/", "method": "GET"}})
    assert http["retry_policy"] == RETRY_DEFAULTS
    assert http["payload_spec"] is None and http["config"] is None
    assert http["spec"].get("timeout_ms", 10000) == 10000
    assert http["spec"].get("expected_status_codes", [200, 201, 202, 204]) == [200, 201, 202, 204]

    kafka = create(
        te,
        {"name": uniq("ep"), "type": "KAFKA", "spec": {"bootstrap_servers": "h:9092", "topic": "t", "value_template": {}}},
    )
    assert kafka["retry_policy"] == RETRY_DEFAULTS
    assert kafka["spec"].get("acks", "all") == "all"
    assert kafka["spec"].get("timeout_ms", 10000) == 10000

    redis = create(
        te,
        {"name": uniq("ep"), "type": "REDIS_STREAM", "spec": {"redis_url": "redis://h", "stream": "s", "fields_template": {}}},
    )
    assert redis["retry_policy"] == RETRY_DEFAULTS
    assert redis["spec"].get("approximate_trimming", True) is True
    assert redis["spec"].get("timeout_ms", 3000) == 3000


@pytest.mark.parametrize(
    "partial",
    [{}, {"max_attempts": 4}, {"backoff": "fixed"}, {"backoff": "linear", "max_delay_ms": 5000}, {"initial_delay_ms": 0}],
)
def test_partial_retry_policy_filled_with_defaults(te, partial):
    ep = http_endpoint()
    ep["retry_policy"] = partial
    assert create(te, ep)["retry_policy"] == {**RETRY_DEFAULTS, **partial}


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
def test_http_methods(te, method):
    assert create(te, http_endpoint(method=method))["spec"]["method"] == method


@pytest.mark.parametrize("acks", ["0", "1", "all"])
def test_kafka_acks(te, acks):
    assert create(te, kafka_endpoint(acks=acks))["spec"]["acks"] == acks


@pytest.mark.parametrize("max_len", [1, 100000, "{{config.max_stream_length}}"])
def test_redis_max_len(te, max_len):
    assert create(te, redis_endpoint(max_len=max_len))["spec"]["max_len"] == max_len


def test_redis_without_max_len_and_trimming_false(te):
    ep = redis_endpoint(approximate_trimming=False)
    del ep["spec"]["max_len"]
    body = create(te, ep)
    assert body["spec"]["approximate_trimming"] is False
    assert body["spec"].get("max_len") is None


def test_http_optional_fields_may_be_omitted(te):
    ep = http_endpoint()
    for k in ("headers", "body_template", "timeout_ms", "expected_status_codes"):
        del ep["spec"][k]
    create(te, ep)


# -- validation ------------------------------------------------------------------------------


def bad(te, ep, status, code, *mentions):
    r = te.post("/endpoints", json=ep)
    assert_error(r, status, code, *mentions)
    assert_error(te.get(f"/endpoints/{ep['name']}"), 404, "ENDPOINT_NOT_FOUND")


@pytest.mark.parametrize("typ", ["SQS", "http", "Http", "", 5, None])
def test_type_must_be_known(te, typ):
    bad(te, {**http_endpoint(), "type": typ}, 400, "INVALID_REQUEST", "type")


def test_missing_top_level_fields(te):
    ep = http_endpoint()
    bad(te, without(ep, "type"), 400, "INVALID_REQUEST", "type")
    bad(te, without(ep, "spec"), 400, "INVALID_REQUEST", "spec")
    r = te.post("/endpoints", json=without(ep, "name"))
    assert_error(r, 400, "INVALID_REQUEST", "name")
    bad(te, {**ep, "spec": "x"}, 400, "INVALID_REQUEST", "spec")
    bad(te, {**ep, "spec": []}, 400, "INVALID_REQUEST", "spec")
    bad(te, {**ep, "retry_policy": "x"}, 400, "INVALID_REQUEST", "retry_policy")
    bad(te, {**ep, "payload_spec": 5}, 400, "INVALID_REQUEST", "payload_spec")
    bad(te, {**ep, "config": ["x"]}, 400, "INVALID_REQUEST", "config")
    bad(te, {**ep, "sepc": {}}, 400, "INVALID_REQUEST", "sepc")


HTTP_BAD = [
    ("url", None, "url"),
    ("url", 5, "url"),
    ("method", None, "method"),
    ("method", "FETCH", "method"),
    ("method", 1, "method"),
    ("headers", {"X-A": 5}, "headers"),
    ("headers", ["X-A"], "headers"),
    ("headers", "X-A: b", "headers"),
    ("body_template", "x", "body_template"),
    ("timeout_ms", 0, "timeout_ms"),
    ("timeout_ms", -5, "timeout_ms"),
    ("timeout_ms", "100", "timeout_ms"),
    ("timeout_ms", 1.5, "timeout_ms"),
    ("expected_status_codes", [], "expected_status_codes"),
    ("expected_status_codes", [99], "expected_status_codes"),
    ("expected_status_codes", [200, 600], "expected_status_codes"),
    ("expected_status_codes", ["200"], "expected_status_codes"),
    ("expected_status_codes", 200, "expected_status_codes"),
    ("methd", "POST", "methd"),
]


@pytest.mark.parametrize("field,value,mention", HTTP_BAD, ids=[f"{f}={v!r}" for f, v, _ in HTTP_BAD])
def test_http_spec_validation(te, field, value, mention):
    ep = http_endpoint()
    if value is None:
        del ep["spec"][field]
    else:
        ep["spec"][field] = value
    bad(te, ep, 400, "INVALID_REQUEST", mention)


KAFKA_BAD = [
    ("bootstrap_servers", None, "bootstrap_servers"),
    ("bootstrap_servers", 9092, "bootstrap_servers"),
    ("topic", None, "topic"),
    ("value_template", None, "value_template"),
    ("value_template", "x", "value_template"),
    ("key_template", 5, "key_template"),
    ("headers", {"a": 1}, "headers"),
    ("acks", "2", "acks"),
    ("acks", "ALL", "acks"),
    ("acks", 1, "acks"),
    ("timeout_ms", 0, "timeout_ms"),
    ("partition", 3, "partition"),
]


@pytest.mark.parametrize("field,value,mention", KAFKA_BAD, ids=[f"{f}={v!r}" for f, v, _ in KAFKA_BAD])
def test_kafka_spec_validation(te, field, value, mention):
    ep = kafka_endpoint()
    if value is None:
        del ep["spec"][field]
    else:
        ep["spec"][field] = value
    bad(te, ep, 400, "INVALID_REQUEST", mention)


REDIS_BAD = [
    ("redis_url", None, "redis_url"),
    ("redis_url", 6379, "redis_url"),
    ("stream", None, "stream"),
    ("fields_template", None, "fields_template"),
    ("fields_template", ["a"], "fields_template"),
    ("max_len", 0, "max_len"),
    ("max_len", -1, "max_len"),
    ("max_len", 1.5, "max_len"),
    ("max_len", True, "max_len"),
    ("max_len", "abc", "max_len"),
    ("approximate_trimming", "yes", "approximate_trimming"),
    ("approximate_trimming", 1, "approximate_trimming"),
    ("timeout_ms", -1, "timeout_ms"),
    ("maxlen", 5, "maxlen"),
]


@pytest.mark.parametrize("field,value,mention", REDIS_BAD, ids=[f"{f}={v!r}" for f, v, _ in REDIS_BAD])
def test_redis_spec_validation(te, field, value, mention):
    ep = redis_endpoint()
    if value is None:
        del ep["spec"][field]
    else:
        ep["spec"][field] = value
    bad(te, ep, 400, "INVALID_REQUEST", mention)


RETRY_BAD = [
    ({"max_attempts": 0}, "max_attempts"),
    ({"max_attempts": -1}, "max_attempts"),
    ({"max_attempts": "3"}, "max_attempts"),
    ({"max_attempts": 2.5}, "max_attempts"),
    ({"backoff": "random"}, "backoff"),
    ({"backoff": "Exponential"}, "backoff"),
    ({"backoff": 1}, "backoff"),
    ({"initial_delay_ms": -1}, "initial_delay_ms"),
    ({"initial_delay_ms": "1s"}, "initial_delay_ms"),
    ({"max_delay_ms": -1}, "max_delay_ms"),
    ({"max_attempt": 3}, "max_attempt"),
]


@pytest.mark.parametrize("policy,mention", RETRY_BAD, ids=[repr(p) for p, _ in RETRY_BAD])
def test_retry_policy_validation(te, policy, mention):
    ep = http_endpoint()
    ep["retry_policy"] = policy
    bad(te, ep, 400, "INVALID_REQUEST", mention)


def test_unknown_spec_field_is_named(te):
    ep = http_endpoint()
    ep["spec"]["methd"] = "GET"
    err = assert_error(te.post("/endpoints", json=ep), 400, "INVALID_REQUEST", "methd")
    assert "spec" in err["message"], err


def test_spec_fields_of_another_type_are_unknown(te):
    ep = http_endpoint()
    ep["spec"]["topic"] = "t"  # a KAFKA field in an HTTP spec
    bad(te, ep, 400, "INVALID_REQUEST", "topic")


def test_unknown_references_are_422(te, refs):
    bad(te, http_endpoint(payload_spec=uniq("nope")), 422, "INVALID_PAYLOAD_SPEC_REF")
    bad(te, http_endpoint(config=uniq("nope")), 422, "INVALID_CONFIG_REF")
    bad(te, http_endpoint(payload_spec=refs["payload_spec"], config=uniq("nope")), 422, "INVALID_CONFIG_REF")


def test_duplicate_name_is_409(te):
    ep = http_endpoint()
    before = create(te, ep)
    assert_error(te.post("/endpoints", json=kafka_endpoint(name=ep["name"])), 409, "CONFLICT")
    assert te.get(f"/endpoints/{ep['name']}").json() == before


def test_get_missing_is_404(te):
    assert_error(te.get(f"/endpoints/{uniq('ep')}"), 404, "ENDPOINT_NOT_FOUND")
    assert_error(te.delete(f"/endpoints/{uniq('ep')}"), 404, "ENDPOINT_NOT_FOUND")


# -- update and delete ------------------------------------------------------------------------


def test_put_full_definition(te, refs):
    ep = http_endpoint()
    before = create(te, ep)
    time.sleep(0.05)
    new = copy.deepcopy(ep)
    del new["name"]
    new["spec"]["url"] = "http://127.0.0.1:9/v2"
    new["config"] = refs["config"]
    new["retry_policy"] = {"max_attempts": 2}
    after = assert_status(te.put(f"/endpoints/{ep['name']}", json=new), 200)
    assert set(after) == KEYS
    assert after["spec"]["url"] == "http://127.0.0.1:9/v2"
    assert after["config"] == refs["config"]
    assert after["retry_policy"] == {**RETRY_DEFAULTS, "max_attempts": 2}
    assert after["created_at"] == before["created_at"]
    assert parse_ts(after["updated_at"]) > parse_ts(before["updated_at"])
    assert te.get(f"/endpoints/{ep['name']}").json() == after

    # with the matching name, and changing the type
    k = kafka_endpoint(name=ep["name"])
    after2 = assert_status(te.put(f"/endpoints/{ep['name']}", json=k), 200)
    assert after2["type"] == "KAFKA" and after2["config"] is None
    assert after2["retry_policy"] == RETRY_DEFAULTS


def test_put_validates_like_post(te):
    ep = http_endpoint()
    before = create(te, ep)
    assert_error(te.put(f"/endpoints/{ep['name']}", json={**ep, "name": uniq("ep")}), 400, "INVALID_REQUEST", "name")
    bad_spec = copy.deepcopy(ep)
    bad_spec["spec"]["method"] = "FETCH"
    assert_error(te.put(f"/endpoints/{ep['name']}", json=bad_spec), 400, "INVALID_REQUEST", "method")
    assert_error(te.put(f"/endpoints/{ep['name']}", json={**ep, "config": uniq("nope")}), 422, "INVALID_CONFIG_REF")
    assert te.get(f"/endpoints/{ep['name']}").json() == before


def test_put_missing_is_404(te):
    ep = http_endpoint()
    assert_error(te.put(f"/endpoints/{ep['name']}", json=without(ep, "name")), 404, "ENDPOINT_NOT_FOUND")


def test_delete(te):
    ep = http_endpoint()
    create(te, ep)
    r = te.delete(f"/endpoints/{ep['name']}")
    assert r.status_code == 204 and r.content == b""
    assert_error(te.get(f"/endpoints/{ep['name']}"), 404, "ENDPOINT_NOT_FOUND")
    assert find_in_list(te, "/endpoints", ep["name"]) is None


@pytest.mark.parametrize("spec", [
    {"bootstrap_servers": "{{input.broker}}"},
    {"bootstrap_servers": "kafka-{{input.n}}:9092"},
    {"security": {"protocol": "SASL_SSL", "sasl_mechanism": "PLAIN", "sasl_username": "{{input.u}}",
                  "sasl_password": "{{secret.p}}"}},
])
def test_kafka_connection_fields_refuse_job_input(te, spec):
    ep = kafka_endpoint(**spec)
    bad(te, ep, 400, "INVALID_REQUEST", "job input cannot choose where to connect")


def test_redis_url_refuses_job_input(te):
    bad(te, redis_endpoint(redis_url="redis://{{input.host}}:6379"), 400, "INVALID_REQUEST",
        "spec.redis_url", "job input cannot choose where to connect")


def test_kafka_security_rules(te):
    ok = kafka_endpoint(security={"protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-256",
                                  "sasl_username": "{{config.user}}",
                                  "sasl_password": "{{secret.kafka_pw}}"})
    body = create(te, ok)
    assert body["spec"]["security"] == ok["spec"]["security"]
    bad(te, kafka_endpoint(security={"protocol": "SASL_SSL", "sasl_mechanism": "PLAIN",
                                     "sasl_username": "u", "sasl_password": "literal-pw"}),
        400, "INVALID_REQUEST", "sasl_password", "secret")
    bad(te, kafka_endpoint(security={"protocol": "TLS"}), 400, "INVALID_REQUEST",
        "spec.security.protocol")
    bad(te, kafka_endpoint(security={"protocol": "SSL", "verify": False}), 400, "INVALID_REQUEST",
        "spec.security.verify")
