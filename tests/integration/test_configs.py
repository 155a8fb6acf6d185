"""/configs: CRUD and validation of `values`."""

import time

import pytest

from harness.api import assert_error, assert_status, find_in_list, parse_ts, uniq

VALUES = {
    "api_base_url": "https://api.myapp.com",
    "sender": "noreply@myapp.com",
    "max_stream_length": 100000,
    "nested": {"list": [1, 2.5, "three", None, True], "unicode": "h\u00e9llo \u2603"},
}


def create(te, name=None, values=VALUES):
    name = name or uniq("cfg")
    body = assert_status(te.post("/configs", json={"name": name, "values": values}), 201)
    return name, body


def test_crud(te):
    name, body = create(te)
    assert set(body) == {"name", "values", "created_at", "updated_at"}
    assert body["name"] == name and body["values"] == VALUES
    assert parse_ts(body["created_at"]) == parse_ts(body["updated_at"])
    assert assert_status(te.get(f"/configs/{name}"), 200) == body
    assert find_in_list(te, "/configs", name) == body

    time.sleep(0.05)
    new_values = {"topic": "order.events.v2"}
    after = assert_status(te.put(f"/configs/{name}", json={"values": new_values}), 200)
    assert after["values"] == new_values
    assert after["created_at"] == body["created_at"]
    assert parse_ts(after["updated_at"]) > parse_ts(body["updated_at"])
    assert te.get(f"/configs/{name}").json() == after

    r = te.delete(f"/configs/{name}")
    assert r.status_code == 204 and r.content == b""
    assert_error(te.get(f"/configs/{name}"), 404, "CONFIG_NOT_FOUND")
    assert_error(te.delete(f"/configs/{name}"), 404, "CONFIG_NOT_FOUND")
    assert_error(te.put(f"/configs/{name}", json={"values": {}}), 404, "CONFIG_NOT_FOUND")


def test_empty_values(te):
    _, body = create(te, values={})
    assert body["values"] == {}


def test_put_with_name(te):
    name, _ = create(te)
    assert_status(te.put(f"/configs/{name}", json={"name": name, "values": {"a": 1}}), 200)
    r = te.put(f"/configs/{name}", json={"name": uniq("cfg"), "values": {"a": 2}})
    assert_error(r, 400, "INVALID_REQUEST", "name")
    assert te.get(f"/configs/{name}").json()["values"] == {"a": 1}


def test_duplicate_is_409(te):
    name, _ = create(te)
    assert_error(te.post("/configs", json={"name": name, "values": {}}), 409, "CONFLICT")


@pytest.mark.parametrize("values", [[], [1], "x", 5, True, None], ids=["array", "array1", "string", "number", "bool", "null"])
def test_values_must_be_object(te, values):
    name = uniq("cfg")
    assert_error(te.post("/configs", json={"name": name, "values": values}), 400, "INVALID_REQUEST", "values")
    assert_error(te.get(f"/configs/{name}"), 404, "CONFIG_NOT_FOUND")
    existing, _ = create(te)
    assert_error(te.put(f"/configs/{existing}", json={"values": values}), 400, "INVALID_REQUEST", "values")


def test_put_unknown_field(te):
    name, _ = create(te)
    assert_error(te.put(f"/configs/{name}", json={"values": {}, "valeus": {}}), 400, "INVALID_REQUEST", "valeus")
    assert_error(te.put(f"/configs/{name}", json={}), 400, "INVALID_REQUEST", "values")
