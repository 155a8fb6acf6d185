"""/secrets: the value goes in, never comes out (responses, logs), and is encrypted at rest."""

import secrets as pysecrets
import time

import pytest

from harness.api import assert_error, assert_status, list_all, parse_ts, uniq


def secret_value():
    return "sk-live-" + pysecrets.token_hex(16)


class NoLeak:
    """Records every response of a secrets test and checks none contains a value."""

    def __init__(self, te):
        self.te = te
        self.values = []
        self.responses = []

    def value(self):
        v = secret_value()
        self.values.append(v)
        self.te.forbid_in_log(v)  # checked again when the server stops
        return v

    def __call__(self, resp):
        self.responses.append(resp)
        return resp

    def check(self):
        log = self.te.log_text()
        for v in self.values:
            for r in self.responses:
                assert v not in r.text, f"secret value in response to {r.request.method} {r.url}"
                for h, hv in r.headers.items():
                    assert v not in hv, f"secret value in response header {h}"
            assert v not in log, "secret value in the server log"


@pytest.fixture
def noleak(te):
    n = NoLeak(te)
    yield n
    n.check()


def test_crud_never_returns_value(te, noleak, db):
    name, value = uniq("sec"), noleak.value()
    body = assert_status(noleak(te.post("/secrets", json={"name": name, "value": value})), 201)
    assert set(body) == {"name", "created_at", "updated_at"}
    assert body["name"] == name
    parse_ts(body["created_at"])

    got = assert_status(noleak(te.get(f"/secrets/{name}")), 200)
    assert got == body
    noleak(te.get("/secrets"))
    noleak(te.get("/secrets", params={"limit": 1}))
    listed = [i for i in list_all(te, "/secrets") if i["name"] == name]
    assert listed == [body]
    for item in list_all(te, "/secrets"):
        assert set(item) == {"name", "created_at", "updated_at"}, item

    (stored,) = db.execute("SELECT encrypted_value FROM secrets WHERE name = %s", (name,)).fetchone()
    stored = bytes(stored)
    assert value.encode() not in stored
    assert len(stored) >= len(value)

    time.sleep(0.05)
    new_value = noleak.value()
    rotated = assert_status(noleak(te.put(f"/secrets/{name}", json={"value": new_value})), 200)
    assert set(rotated) == {"name", "created_at", "updated_at"}
    assert rotated["created_at"] == body["created_at"]
    assert parse_ts(rotated["updated_at"]) > parse_ts(body["updated_at"])
    (stored2,) = db.execute("SELECT encrypted_value FROM secrets WHERE name = %s", (name,)).fetchone()
    assert bytes(stored2) != stored
    assert new_value.encode() not in bytes(stored2)
    assert noleak(te.get(f"/secrets/{name}")).json() == rotated

    r = noleak(te.delete(f"/secrets/{name}"))
    assert r.status_code == 204 and r.content == b""
    assert_error(noleak(te.get(f"/secrets/{name}")), 404, "SECRET_NOT_FOUND")
    assert_error(noleak(te.delete(f"/secrets/{name}")), 404, "SECRET_NOT_FOUND")
    assert_error(noleak(te.put(f"/secrets/{name}", json={"value": noleak.value()})), 404, "SECRET_NOT_FOUND")


def test_same_value_encrypts_differently(te, noleak, db):
    value = noleak.value()
    a, b = uniq("sec"), uniq("sec")
    for n in (a, b):
        assert_status(noleak(te.post("/secrets", json={"name": n, "value": value})), 201)
    rows = db.execute("SELECT encrypted_value FROM secrets WHERE name IN (%s, %s)", (a, b)).fetchall()
    assert len(rows) == 2 and bytes(rows[0][0]) != bytes(rows[1][0]), "no random nonce"


def test_errors_do_not_echo_value(te, noleak):
    name, value = uniq("sec"), noleak.value()
    assert_status(noleak(te.post("/secrets", json={"name": name, "value": value})), 201)
    assert_error(noleak(te.post("/secrets", json={"name": name, "value": value})), 409, "CONFLICT")
    r = noleak(te.post("/secrets", json={"name": "Bad Name", "value": noleak.value()}))
    assert_error(r, 400, "INVALID_REQUEST")
    r = noleak(te.post("/secrets", json={"name": uniq("sec"), "value": noleak.value(), "extra": 1}))
    assert_error(r, 400, "INVALID_REQUEST", "extra")
    r = noleak(te.put(f"/secrets/{name}", json={"value": noleak.value(), "vaule": 1}))
    assert_error(r, 400, "INVALID_REQUEST", "vaule")


@pytest.mark.parametrize("value", ["", 5, None, ["x"], {"v": "x"}], ids=["empty", "number", "null", "array", "object"])
def test_value_must_be_non_empty_string(te, value):
    name = uniq("sec")
    assert_error(te.post("/secrets", json={"name": name, "value": value}), 400, "INVALID_REQUEST", "value")
    assert_error(te.get(f"/secrets/{name}"), 404, "SECRET_NOT_FOUND")


def test_unicode_and_long_values(te, noleak):
    for value in ("p\u00e4ss \u2603 " + secret_value(), "x" * 10000 + secret_value()):
        noleak.values.append(value)
        te.forbid_in_log(value)
        assert_status(noleak(te.post("/secrets", json={"name": uniq("sec"), "value": value})), 201)
