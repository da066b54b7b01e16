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


def _listening(port: int) -> set[str]:
    """The local addresses (hex, as the kernel lists them) of the sockets listening on
    ``port``, IPv4 and IPv6."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            for line in list(lines)[1:]:
                local, state = line.split()[1], line.split()[3]
                address, _, hex_port = local.rpartition(":")
                if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                    found.add(address)
    return found


def test_the_demos_broker_opens_nothing_on_the_network() -> None:
    """`make demo` said "Mosquitto on 127.0.0.1" while its TLS listener took every interface:
    a port open on the laptop's network. The demo's binds the loopback only; a room's broker
    (the default) still listens for its tables everywhere."""
    with LocalBroker("hall", tables=1, tls_bind="127.0.0.1") as demo:
        assert _listening(demo.plan.tls_port) == {"0100007F"}  # 127.0.0.1 only
        with socket.create_connection(("127.0.0.1", demo.plan.tls_port), timeout=5):
            pass
    with LocalBroker("hall", tables=1) as room:
        assert "00000000" in _listening(room.plan.tls_port)  # 0.0.0.0
