"""Test harness for taskexec integration tests.

pgbouncer's test/utils.py style: a private PostgreSQL and the real taskexec binary,
both on free loopback ports, driven over real sockets.
"""
