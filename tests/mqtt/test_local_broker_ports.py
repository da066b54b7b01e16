"""The brokers the tests, the benchmarks and `make demo` start on this machine take ports that no
outgoing connection is given, and start again on other ports when another program took theirs
first (a league test failed under load: "Address already in use")."""

from __future__ import annotations

import socket

from controller.mqtt.local_broker import LocalBroker, LocalLeague, _outgoing_ports, free_port
from tests.venue import VenueClient


def test_a_free_port_is_below_the_outgoing_connections_range() -> None:
    low, _ = _outgoing_ports()
    ports = {free_port() for _ in range(20)}
    assert all(1024 <= port < low for port in ports), ports
    assert len(ports) > 1  # chosen at random, not one port for every caller


def test_a_broker_whose_port_was_taken_starts_on_another() -> None:
    broker = LocalBroker("hall", tables=1)
    taken = broker.port
    with socket.socket() as squatter:  # another program's socket holds it (a client's, say)
        squatter.bind(("127.0.0.1", taken))
        with broker:
            assert broker.port != taken
            client = VenueClient(broker, "floor", ())  # its logins were written anew with it
            client.close()


def test_a_leagues_broker_whose_port_was_taken_starts_on_another() -> None:
    league = LocalLeague("league", ["hall-a"])
    taken = league.plan.tls_port
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", taken))
        with league:
            assert league.plan.tls_port != taken
            with socket.create_connection(("127.0.0.1", league.port), timeout=5):
                pass
