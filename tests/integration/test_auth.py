"""Authentication: every API route needs `Authorization: Bearer <key>`; probes do not."""

import pytest
import requests

from harness.api import assert_error, assert_status, uniq
from harness.taskexec import new_api_key

# Every route of the foundation, with a body that would be valid, so that only the
# missing key can be the reason for a 401.
ROUTES = [
    ("GET", "/payload-specs", None),
    ("POST", "/payload-specs", {"name": "x", "schema": {}}),
    ("GET", "/payload-specs/x", None),
    ("PUT", "/payload-specs/x", {"schema": {}}),
    ("DELETE", "/payload-specs/x", None),
    ("GET", "/configs", None),
    ("POST", "/configs", {"name": "x", "values": {}}),
    ("GET", "/configs/x", None),
    ("PUT", "/configs/x", {"values": {}}),
    ("DELETE", "/configs/x", None),
    ("GET", "/secrets", None),
    ("POST", "/secrets", {"name": "x", "value": "v"}),
    ("GET", "/secrets/x", None),
    ("PUT", "/secrets/x", {"value": "v"}),
    ("DELETE", "/secrets/x", None),
    ("GET", "/endpoints", None),
    ("POST", "/endpoints", {"name": "x", "type": "HTTP", "spec": {"url": "http://h/", "method": "GET"}}),
    ("GET", "/endpoints/x", None),
    ("PUT", "/endpoints/x", {"type": "HTTP", "spec": {"url": "http://h/", "method": "GET"}}),
    ("DELETE", "/endpoints/x", None),
]


def bad_auth_headers(te):
    return [
        {},
        {"Authorization": ""},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer "},
        {"Authorization": "Bearer wrong-key"},
        {"Authorization": f"Bearer {te.api_key}x"},
        {"Authorization": f"Bearer {te.api_key[:-1]}"},
        {"Authorization": f"Basic {te.api_key}"},
        {"Authorization": te.api_key},
        {"X-Api-Key": te.api_key},
    ]


@pytest.mark.parametrize("method,path,body", ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES])
def test_route_requires_key(te, method, path, body):
    r = te.anon(method, path, json=body)
    assert_error(r, 401, "UNAUTHORIZED")


def test_wrong_scheme_or_key_is_401(te):
    for headers in bad_auth_headers(te):
        r = te.anon("GET", "/configs", headers=headers)
        assert_error(r, 401, "UNAUTHORIZED")


def test_unauthorized_before_body_is_looked_at(te):
    r = te.anon("POST", "/configs", data=b"{not json", headers={"Content-Type": "application/json"})
    assert_error(r, 401, "UNAUTHORIZED")
    r = te.anon("POST", "/configs", data=b"{not json", headers={"Authorization": "Bearer nope"})
    assert_error(r, 401, "UNAUTHORIZED")


def test_both_configured_keys_work(te):
    assert len(te.api_keys) == 2
    for key in te.api_keys:
        r = te.anon("GET", "/configs", headers={"Authorization": f"Bearer {key}"})
        assert_status(r, 200)
    # and a write with the second key is visible with the first
    name = uniq("cfg")
    r = te.anon(
        "POST", "/configs", json={"name": name, "values": {}}, headers={"Authorization": f"Bearer {te.api_keys[1]}"}
    )
    assert_status(r, 201)
    assert_status(te.get(f"/configs/{name}"), 200)


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_probes_need_no_key(te, path):
    r = requests.get(te.url(path), timeout=te.http_timeout)
    assert r.status_code == 200, r.text
    assert r.headers.get("X-Request-Id")
    # a wrong key does not turn a probe into a 401 either
    r = requests.get(te.url(path), headers={"Authorization": "Bearer wrong"}, timeout=te.http_timeout)
    assert r.status_code == 200, r.text


def test_api_keys_file(te_factory, tmp_path):
    k1, k2 = new_api_key(), new_api_key()
    keys_file = tmp_path / "keys"
    keys_file.write_text(f"{k1}\n{k2}\n")
    keys_file.chmod(0o600)
    srv = te_factory(env={"TE_API_KEYS": None, "TE_API_KEYS_FILE": str(keys_file)})
    for key in (k1, k2):
        r = srv.anon("GET", "/configs", headers={"Authorization": f"Bearer {key}"})
        assert_status(r, 200)
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Bearer {k1}{k2}"}):
        assert_error(srv.anon("GET", "/configs", headers=headers), 401, "UNAUTHORIZED")
