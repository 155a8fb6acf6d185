"""The harness itself: the private PostgreSQL can be queried, stopped and started again."""

import psycopg
import pytest


def test_postgres_database_query_restart(pg):
    name = pg.create_database()
    with pg.connect(name) as conn:
        conn.execute("CREATE TABLE t (x int)")
        conn.execute("INSERT INTO t VALUES (1), (2)")
    pg.restart()
    assert pg.sql("SELECT sum(x) FROM t", dbname=name) == [(3,)]
    assert pg.sql("SHOW fsync") == [("off",)]
    assert pg.sql("SHOW listen_addresses") == [("127.0.0.1",)]
    assert pg.sql("SHOW max_connections") == [("200",)]


def test_postgres_stop_refuses_connections_start_again(pg):
    pg.stop()
    try:
        with pytest.raises(psycopg.OperationalError):
            pg.connect(connect_timeout=2)
    finally:
        pg.start()
    assert pg.sql("SELECT 1") == [(1,)]
