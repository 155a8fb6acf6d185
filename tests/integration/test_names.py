"""Resource names: [a-z0-9][a-z0-9_-]{0,127}, for every resource."""

import uuid

import pytest

from harness.api import assert_error, assert_status

RESOURCES = {
    "payload-specs": lambda n: {"name": n, "schema": {}},
    "configs": lambda n: {"name": n, "values": {}},
    "secrets": lambda n: {"name": n, "value": "v"},
    "endpoints": lambda n: {"name": n, "type": "HTTP", "spec": {"url": "http://127.0.0.1:9/", "method": "GET"}},
}


def valid_names():
    u = uuid.uuid4().hex  # fresh per session: the module database is fresh too, but be safe
    return {
        "one-char": u[0],
        "digit-first": "0" + u[:8],
        "hyphen-underscore": f"a-b_c-{u[:6]}",
        "trailing-hyphen": f"x{u[:6]}-",
        "trailing-underscore": f"y{u[:6]}_",
        "128-chars": (u + "z" * 128)[:128],
    }


INVALID = {
    "uppercase": "Abc",
    "uppercase-inside": "aBc",
    "space": "a b",
    "slash": "a/b",
    "empty": "",
    "129-chars": "a" * 129,
    "leading-hyphen": "-abc",
    "leading-underscore": "_abc",
    "dot": "a.b",
    "non-ascii": "caf\u00e9",
    "percent": "a%20b",
    "newline": "ab\n",
}


@pytest.mark.parametrize("resource", list(RESOURCES))
def test_valid_names(te, resource):
    for label, name in valid_names().items():
        r = te.post(f"/{resource}", json=RESOURCES[resource](name))
        assert r.status_code == 201, f"{label} {name!r}: {r.status_code} {r.text}"
        got = assert_status(te.get(f"/{resource}/{name}"), 200)
        assert got["name"] == name


@pytest.mark.parametrize("resource", list(RESOURCES))
@pytest.mark.parametrize("label", list(INVALID))
def test_invalid_names(te, resource, label):
    r = te.post(f"/{resource}", json=RESOURCES[resource](INVALID[label]))
    assert_error(r, 400, "INVALID_REQUEST", "name")
