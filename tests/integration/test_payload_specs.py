"""/payload-specs: CRUD, JSON Schema validation of the schema itself, conflicts."""

import time

import pytest

from harness.api import assert_error, assert_status, find_in_list, parse_ts, uniq

SCHEMA = {
    "type": "object",
    "properties": {
        "user_id": {"type": "string", "description": "Target user ID"},
        "order_id": {"type": "string", "description": "Associated order ID"},
    },
    "required": ["user_id"],
}


def create(te, name=None, schema=SCHEMA):
    name = name or uniq("ps")
    body = assert_status(te.post("/payload-specs", json={"name": name, "schema": schema}), 201)
    return name, body


def test_create_get_list(te):
    name, body = create(te)
    assert set(body) == {"name", "schema", "created_at", "updated_at"}
    assert body["name"] == name
    assert body["schema"] == SCHEMA
    assert parse_ts(body["created_at"]) == parse_ts(body["updated_at"])
    got = assert_status(te.get(f"/payload-specs/{name}"), 200)
    assert got == body
    assert find_in_list(te, "/payload-specs", name) == body


def test_update_changes_updated_at_only(te):
    name, before = create(te)
    time.sleep(0.05)
    new_schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    after = assert_status(te.put(f"/payload-specs/{name}", json={"schema": new_schema}), 200)
    assert after["name"] == name
    assert after["schema"] == new_schema
    assert after["created_at"] == before["created_at"]
    assert parse_ts(after["updated_at"]) > parse_ts(before["updated_at"])
    assert assert_status(te.get(f"/payload-specs/{name}"), 200) == after


def test_update_with_matching_name_in_body(te):
    name, _ = create(te)
    assert_status(te.put(f"/payload-specs/{name}", json={"name": name, "schema": True}), 200)
    assert te.get(f"/payload-specs/{name}").json()["schema"] is True


def test_update_with_other_name_in_body_is_400(te):
    name, before = create(te)
    r = te.put(f"/payload-specs/{name}", json={"name": uniq("ps"), "schema": {}})
    assert_error(r, 400, "INVALID_REQUEST", "name")
    assert te.get(f"/payload-specs/{name}").json() == before


def test_update_missing_is_404(te):
    assert_error(te.put(f"/payload-specs/{uniq('ps')}", json={"schema": {}}), 404, "PAYLOAD_SPEC_NOT_FOUND")


def test_update_invalid_schema_is_422_and_keeps_old(te):
    name, before = create(te)
    assert_error(te.put(f"/payload-specs/{name}", json={"schema": {"type": "strnig"}}), 422, "INVALID_SCHEMA")
    assert te.get(f"/payload-specs/{name}").json() == before


def test_get_missing_is_404(te):
    assert_error(te.get(f"/payload-specs/{uniq('ps')}"), 404, "PAYLOAD_SPEC_NOT_FOUND")


def test_delete(te):
    name, _ = create(te)
    r = te.delete(f"/payload-specs/{name}")
    assert r.status_code == 204, r.text
    assert r.content == b""
    assert_error(te.get(f"/payload-specs/{name}"), 404, "PAYLOAD_SPEC_NOT_FOUND")
    assert_error(te.delete(f"/payload-specs/{name}"), 404, "PAYLOAD_SPEC_NOT_FOUND")
    assert find_in_list(te, "/payload-specs", name) is None


def test_duplicate_name_is_409(te):
    name, before = create(te)
    r = te.post("/payload-specs", json={"name": name, "schema": {"type": "string"}})
    assert_error(r, 409, "CONFLICT")
    assert te.get(f"/payload-specs/{name}").json() == before


def test_name_can_be_reused_after_delete(te):
    name, _ = create(te)
    assert_status(te.delete(f"/payload-specs/{name}"), 204)
    create(te, name, {"type": "string"})


@pytest.mark.parametrize(
    "schema",
    [True, False, {}, {"type": "string"}, {"$schema": "https://json-schema.org/draft/2020-12/schema"}, SCHEMA],
    ids=["true", "false", "empty", "string", "draft2020", "brief"],
)
def test_valid_schemas(te, schema):
    _, body = create(te, schema=schema)
    assert body["schema"] == schema


@pytest.mark.parametrize(
    "schema,where",
    [
        (5, None),
        ("x", None),
        (None, None),
        ([], None),
        ({"required": "x"}, "required"),
        ({"type": "strnig"}, "type"),
        ({"pattern": "("}, "pattern"),
        ({"properties": {"a": {"minimum": "1"}}}, "/properties/a/minimum"),
        ({"properties": {"a": {"type": ["string", "nope"]}}}, "/properties/a/type"),
        ({"minLength": -1}, "minLength"),
        ({"properties": 5}, "properties"),
    ],
    ids=[
        "number",
        "string",
        "null",
        "array",
        "required-not-array",
        "type-typo",
        "bad-regex",
        "nested-minimum-string",
        "type-array-typo",
        "negative-minlength",
        "properties-not-object",
    ],
)
def test_invalid_schema_is_422(te, schema, where):
    name = uniq("ps")
    r = te.post("/payload-specs", json={"name": name, "schema": schema})
    if schema is None and r.status_code == 400:
        # "schema": null may also be read as a missing required field
        assert_error(r, 400, "INVALID_REQUEST", "schema")
    else:
        assert_error(r, 422, "INVALID_SCHEMA", *([where] if where else []))
    assert_error(te.get(f"/payload-specs/{name}"), 404, "PAYLOAD_SPEC_NOT_FOUND")


def test_missing_schema_is_400(te):
    assert_error(te.post("/payload-specs", json={"name": uniq("ps")}), 400, "INVALID_REQUEST", "schema")
