"""HTTP behaviour common to every route: error shape, request ids, 404/405, body limits,
request-body parsing, keep-alive and pipelining."""

import json

import pytest

from harness.api import assert_error, assert_status, error_body, uniq
from harness.rawhttp import Connection, request_bytes, send_oversized

# -- request ids and the error shape --------------------------------------------------


def test_request_id_on_every_response(te):
    name = uniq("cfg")
    responses = [
        te.anon("GET", "/healthz"),
        te.anon("GET", "/readyz"),
        te.get("/configs"),
        te.post("/configs", json={"name": name, "values": {}}),
        te.get(f"/configs/{name}"),
        te.delete(f"/configs/{name}"),
        te.get(f"/configs/{name}"),
        te.anon("GET", "/configs"),
        te.get("/no-such-route"),
        te.request("PATCH", "/configs"),
        te.post("/configs", data=b"{"),
    ]
    assert [r.status_code for r in responses] == [200, 200, 200, 201, 200, 204, 404, 401, 404, 405, 400]
    ids = [r.headers.get("X-Request-Id") for r in responses]
    assert all(ids), ids
    assert len(set(ids)) == len(ids), f"request ids repeat: {ids}"
    for r in responses:
        if r.status_code >= 400:
            error_body(r)  # request_id in the body equals the header


def test_client_request_id_is_echoed(te):
    r = te.get("/configs", headers={"X-Request-Id": "abc-123"})
    assert r.status_code == 200
    assert r.headers["X-Request-Id"] == "abc-123"
    r = te.get("/configs/does-not-exist", headers={"X-Request-Id": "abc-123"})
    err = assert_error(r, 404, "CONFIG_NOT_FOUND")
    assert err["request_id"] == "abc-123"
    r = te.anon("GET", "/configs", headers={"X-Request-Id": "abc-123"})
    assert assert_error(r, 401, "UNAUTHORIZED")["request_id"] == "abc-123"


def test_error_responses_are_json(te):
    r = te.get("/configs/does-not-exist")
    assert r.headers.get("Content-Type", "").startswith("application/json")
    assert set(r.json()) == {"error"}


# -- routing -----------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/nope", "/configs/a/b", "/configsx", "/payload-specs/a/extra", "/v1/configs"])
def test_unknown_path_is_404(te, path):
    assert_error(te.get(path), 404, "NOT_FOUND")


def allow_set(resp):
    allow = resp.headers.get("Allow")
    assert allow, f"405 without Allow header: {resp.headers}"
    return {m.strip().upper() for m in allow.split(",") if m.strip()}


@pytest.mark.parametrize("resource", ["/payload-specs", "/configs", "/secrets", "/endpoints"])
def test_wrong_method_is_405_with_allow(te, resource):
    for method in ("DELETE", "PUT", "PATCH"):
        r = te.request(method, resource, json={})
        assert_error(r, 405, "METHOD_NOT_ALLOWED")
        assert {"GET", "POST"} <= allow_set(r)
        assert method not in allow_set(r)
    for method in ("POST", "PATCH"):
        r = te.request(method, f"{resource}/some-name", json={})
        assert_error(r, 405, "METHOD_NOT_ALLOWED")
        assert {"GET", "PUT", "DELETE"} <= allow_set(r)
        assert method not in allow_set(r)


# -- request bodies ---------------------------------------------------------------------


def test_body_over_1mib_is_413(te):
    body = json.dumps({"name": uniq("cfg"), "values": {"blob": "x" * (2 * 1024 * 1024)}}).encode()
    headers = {"Authorization": f"Bearer {te.api_key}", "Content-Type": "application/json"}
    r = send_oversized(te.host, te.port, "POST", "/configs", headers, body, timeout=te.http_timeout)
    assert r.status == 413, r
    assert r.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
    assert r.json()["error"]["request_id"] == r.headers.get("x-request-id")
    # the server is still fine afterwards
    assert_status(te.get("/configs"), 200)


def test_body_just_under_1mib_is_accepted(te):
    name = uniq("cfg")
    body = {"name": name, "values": {"blob": ""}}
    body["values"]["blob"] = "x" * (1024 * 1024 - len(json.dumps(body)) - 16)
    assert_status(te.post("/configs", json=body), 201)
    assert te.get(f"/configs/{name}").json()["values"] == body["values"]
    assert_status(te.delete(f"/configs/{name}"), 204)


def test_max_body_bytes_setting(te_factory, module_db):
    srv = te_factory(db=module_db, env={"TE_MAX_BODY_BYTES": "1000"})
    body = json.dumps({"name": uniq("cfg"), "values": {"blob": "x" * 2000}}).encode()
    assert len(body) > 2000
    headers = {"Authorization": f"Bearer {srv.api_key}", "Content-Type": "application/json"}
    r = send_oversized(srv.host, srv.port, "POST", "/configs", headers, body, timeout=srv.http_timeout)
    assert r.status == 413, r
    assert r.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
    small = {"name": uniq("cfg"), "values": {"blob": "x" * 100}}
    assert_status(srv.post("/configs", json=small), 201)


@pytest.mark.parametrize(
    "raw", [b"{", b"{\"name\": ", b"not json", b"{'name': 'x'}", b"{\"name\":\"a\",}", b"\xff\xfe", b""]
)
def test_malformed_json_is_400(te, raw):
    r = te.post("/configs", data=raw, headers={"Content-Type": "application/json"})
    assert_error(r, 400, "INVALID_REQUEST")


@pytest.mark.parametrize("path,doc", [
    ("/secrets", {"name": "nul-secret", "value": "abc\u0000def"}),
    ("/configs", {"name": "nul-cfg\u0000zzz", "values": {}}),
    ("/configs", {"name": "nul-cfg2", "values": {"k\u0000": 1}}),
    ("/jobs", {"endpoint": "e", "trigger": "IMMEDIATE", "idempotency_key": "k\u0000one"}),
])
def test_nul_characters_in_strings_are_400(te, path, doc):
    """A \\u0000 would cut a C string short (a secret truncated, two keys made one): refused."""
    r = te.post(path, data=json.dumps(doc), headers={"Content-Type": "application/json"})
    assert_error(r, 400, "INVALID_REQUEST", "NUL")
    name = doc.get("name", "").split("\u0000")[0]
    if name:
        assert te.get(f"{path}/{name}").status_code == 404


@pytest.mark.parametrize("doc", [[], [1, 2], "x", 5, None, True])
def test_json_that_is_not_an_object_is_400(te, doc):
    r = te.post("/configs", data=json.dumps(doc), headers={"Content-Type": "application/json"})
    assert_error(r, 400, "INVALID_REQUEST")


def test_wrong_field_type_missing_and_unknown_fields(te):
    assert_error(te.post("/configs", json={"name": 5, "values": {}}), 400, "INVALID_REQUEST", "name")
    assert_error(te.post("/configs", json={"values": {}}), 400, "INVALID_REQUEST", "name")
    assert_error(te.post("/configs", json={"name": uniq("cfg")}), 400, "INVALID_REQUEST", "values")
    r = te.post("/configs", json={"nmae": uniq("cfg"), "name": uniq("cfg"), "values": {}})
    assert_error(r, 400, "INVALID_REQUEST", "nmae")
    r = te.post("/payload-specs", json={"name": uniq("ps"), "schema": {}, "shema": {}})
    assert_error(r, 400, "INVALID_REQUEST", "shema")
    assert_error(te.post("/secrets", json={"name": uniq("s"), "value": 5}), 400, "INVALID_REQUEST", "value")
    assert_error(te.post("/secrets", json={"name": uniq("s"), "value": ""}), 400, "INVALID_REQUEST", "value")
    assert_error(te.post("/secrets", json={"name": uniq("s")}), 400, "INVALID_REQUEST", "value")


# -- connections ------------------------------------------------------------------------


def test_keep_alive_with_requests_session(te):
    for _ in range(20):
        assert_status(te.get("/configs", params={"limit": 1}), 200)


def test_keep_alive_one_socket_many_requests(te):
    auth = {"Authorization": f"Bearer {te.api_key}"}
    with Connection(te.host, te.port, timeout=te.http_timeout) as c:
        for i in range(5):
            c.send(request_bytes("GET", "/configs?limit=1", {**auth, "X-Request-Id": f"ka-{i}"}))
            r = c.read_response()
            assert r.status == 200, r
            assert r.headers["x-request-id"] == f"ka-{i}"
            assert "close" not in r.headers.get("connection", "").lower()
        c.send(request_bytes("GET", "/healthz"))
        assert c.read_response().status == 200


def test_pipelined_requests_answered_in_order(te):
    auth = {"Authorization": f"Bearer {te.api_key}"}
    name = uniq("cfg")
    body = json.dumps({"name": name, "values": {"k": "v"}})
    data = (
        request_bytes("GET", "/healthz", {"X-Request-Id": "pipe-1"})
        + request_bytes("POST", "/configs", {**auth, "X-Request-Id": "pipe-2", "Content-Type": "application/json"}, body)
        + request_bytes("GET", f"/configs/{name}", {**auth, "X-Request-Id": "pipe-3"})
        + request_bytes("GET", "/no-such-route", {**auth, "X-Request-Id": "pipe-4"})
    )
    with Connection(te.host, te.port, timeout=te.http_timeout) as c:
        c.send(data)
        responses = [c.read_response() for _ in range(4)]
    assert [r.headers.get("x-request-id") for r in responses] == ["pipe-1", "pipe-2", "pipe-3", "pipe-4"]
    assert [r.status for r in responses] == [200, 201, 200, 404]
    assert responses[2].json()["values"] == {"k": "v"}


def test_three_pipelined_gets(te):
    auth = {"Authorization": f"Bearer {te.api_key}"}
    data = b"".join(request_bytes("GET", "/configs?limit=1", {**auth, "X-Request-Id": f"g-{i}"}) for i in range(3))
    with Connection(te.host, te.port, timeout=te.http_timeout) as c:
        c.send(data)
        responses = [c.read_response() for _ in range(3)]
    assert [r.status for r in responses] == [200, 200, 200]
    assert [r.headers["x-request-id"] for r in responses] == ["g-0", "g-1", "g-2"]
