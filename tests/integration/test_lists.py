"""List endpoints: cursor pagination, limits, order, stability under concurrent inserts.

Tests that count items use a fresh database (and server) of their own."""

import pytest

from harness.api import assert_error, assert_status, uniq

RESOURCES = {
    "/payload-specs": lambda n: {"name": n, "schema": {}},
    "/configs": lambda n: {"name": n, "values": {}},
    "/secrets": lambda n: {"name": n, "value": "v"},
    "/endpoints": lambda n: {"name": n, "type": "HTTP", "spec": {"url": "http://127.0.0.1:9/", "method": "GET"}},
}


@pytest.fixture
def fresh(te_factory):
    """A server on a database of its own: the only items are the ones the test creates."""
    return te_factory()


def create_all(te, path, names):
    for n in names:
        assert_status(te.post(path, json=RESOURCES[path](n)), 201)


def page(te, path, **params):
    body = assert_status(te.get(path, params=params), 200)
    assert set(body) == {"items", "cursor"}, body
    assert isinstance(body["items"], list)
    assert body["cursor"] is None or (isinstance(body["cursor"], str) and body["cursor"])
    return body["items"], body["cursor"]


def walk(te, path, limit, max_pages=1000):
    pages, cursor = [], None
    for _ in range(max_pages):
        params = {"limit": limit}
        if cursor is not None:
            params["cursor"] = cursor
        items, cursor = page(te, path, **params)
        pages.append([i["name"] for i in items])
        if cursor is None:
            return pages
    raise AssertionError("pagination does not end")


@pytest.mark.parametrize("path", list(RESOURCES))
@pytest.mark.parametrize("limit", ["0", "201", "abc", "-1", "1.5", "10x", "99999999999999999999"])
def test_bad_limit_is_400(te, path, limit):
    assert_error(te.get(path, params={"limit": limit}), 400, "INVALID_REQUEST", "limit")


@pytest.mark.parametrize("path", list(RESOURCES))
@pytest.mark.parametrize("cursor", ["garbage", "!!!", "eyJ4IjoxfQ", "a" * 300])
def test_garbage_cursor_is_400(te, path, cursor):
    assert_error(te.get(path, params={"cursor": cursor}), 400, "INVALID_REQUEST")


@pytest.mark.parametrize("path", list(RESOURCES))
def test_limits_1_and_200_accepted(te, path):
    page(te, path, limit=1)
    page(te, path, limit=200)


def test_empty_list(fresh):
    for path in RESOURCES:
        assert page(fresh, path) == ([], None)


def test_120_configs_in_pages_of_50(fresh):
    names = [f"cfg-{i:03d}-{uniq('x')}" for i in range(120)]
    create_all(fresh, "/configs", reversed(names))  # created out of order
    pages = walk(fresh, "/configs", 50)
    assert [len(p) for p in pages] == [50, 50, 20]
    flat = [n for p in pages for n in p]
    assert flat == sorted(names), "missing, duplicated or out-of-order items"


def test_default_limit_is_50_and_max_200(fresh):
    names = [f"c-{i:03d}" for i in range(210)]
    create_all(fresh, "/configs", names)
    items, cursor = page(fresh, "/configs")
    assert len(items) == 50 and cursor is not None
    items, cursor = page(fresh, "/configs", limit=200)
    assert len(items) == 200 and cursor is not None
    rest, cursor = page(fresh, "/configs", limit=200, cursor=cursor)
    assert [i["name"] for i in rest] == names[200:] and cursor is None


@pytest.mark.parametrize("path", list(RESOURCES))
def test_every_resource_pages_sorted(fresh, path):
    names = [f"n{i}-{uniq('x')}" for i in range(7)]
    create_all(fresh, path, names)
    pages = walk(fresh, path, 3)
    assert [len(p) for p in pages][:2] == [3, 3]
    assert [n for p in pages for n in p] == sorted(names)
    items, _ = page(fresh, path, limit=200)
    assert [i["name"] for i in items] == sorted(names)
    for i in items:
        assert set(i) >= {"name", "created_at", "updated_at"}


def test_inserts_between_pages_neither_duplicate_nor_skip(fresh):
    existing = [f"m-{i:03d}" for i in range(0, 60, 2)]  # m-000, m-002, ... m-058
    create_all(fresh, "/configs", existing)
    seen, cursor = [], None
    inserted = []
    for round_ in range(100):
        params = {"limit": 7}
        if cursor:
            params["cursor"] = cursor
        items, cursor = page(fresh, "/configs", **params)
        seen += [i["name"] for i in items]
        if cursor is None:
            break
        # new items before, at and after the cursor position
        last = seen[-1]
        for n in (f"a-{round_:03d}", f"{last}-b", f"m-{int(last[2:5]) + 1:03d}", f"z-{round_:03d}"):
            if n not in inserted and n not in existing:
                assert_status(fresh.post("/configs", json={"name": n, "values": {}}), 201)
                inserted.append(n)
    assert len(seen) == len(set(seen)), f"duplicates: {sorted(n for n in seen if seen.count(n) > 1)}"
    assert seen == sorted(seen), "pages out of order"
    missing = [n for n in existing if n not in seen]
    assert not missing, f"pre-existing items skipped: {missing}"


def test_deletes_between_pages_do_not_break_the_cursor(fresh):
    names = [f"d-{i:03d}" for i in range(20)]
    create_all(fresh, "/configs", names)
    items, cursor = page(fresh, "/configs", limit=5)
    # delete the item the cursor points after, and the next one
    for n in (items[-1]["name"], "d-005"):
        assert fresh.delete(f"/configs/{n}").status_code == 204
    rest = []
    while cursor:
        more, cursor = page(fresh, "/configs", limit=5, cursor=cursor)
        rest += [i["name"] for i in more]
    assert rest == names[6:]


def test_cursor_is_tied_to_its_list(fresh):
    """A cursor from /configs used on another list is either rejected or harmless."""
    create_all(fresh, "/configs", [f"k-{i}" for i in range(5)])
    create_all(fresh, "/secrets", [f"k-{i}" for i in range(5)])
    _, cursor = page(fresh, "/configs", limit=2)
    r = fresh.get("/secrets", params={"limit": 2, "cursor": cursor})
    if r.status_code == 400:
        assert_error(r, 400, "INVALID_REQUEST")
    else:
        assert r.status_code == 200
