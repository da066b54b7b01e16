"""Loud when wrong: one log line naming the likely cause and the fix when a client's broker
connection goes wrong, within seconds, then at most once a minute per kind of problem while it
lasts.

paho tells little: ``on_connect_fail`` gets no exception, and a plain client at a TLS port only
sees the connection drop. So at such a failure `probe` looks for itself, on a thread of its own
with short timeouts (paho's network loop never waits for it): does the name resolve, does
anything listen, does the TLS handshake pass with the same CA and server name, and if not, why.
The broker's own answers need no probe: the CONNACK (a refused login), a DISCONNECT (another
client took our session over), a PUBACK (the ACL refused a topic: Mosquitto 2 refuses a
publish, but grants a subscription it will never deliver to, so a subscriber with the wrong
venue learns it only from the silence, `Diagnosis.watch`).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from cryptography import x509
from paho.mqtt.reasoncodes import ReasonCode

log = logging.getLogger(__name__)

REPEAT_SECONDS = 60.0  # a problem that lasts is said again after this
PROBE_TIMEOUT = 3.0  # each step of a probe (connect, handshake)
# OpenSSL's verify codes (x509_vfy.h) the probe tells apart.
NAME_MISMATCH = (62, 64)  # X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH
UNTRUSTED = (2, 18, 19, 20, 21)  # no issuer we know, self-signed, cannot verify the signature
NOT_NOW = (9, 10)  # not yet valid, expired
SESSION_TAKEN_OVER = 0x8E
# Mosquitto 2.0.11 does not say "Session taken over": it closes the older connection, which
# reconnects and pushes the newer one off in turn. Drops of a connection it had let in, with
# every reconnect let in at once, this many times within REPEAT_SECONDS: most likely that.
DROPS_FOR_TAKEOVER = 3
LOGIN_REFUSED = (0x86, 0x87, 0x8C)  # bad user name or password, not authorized, bad auth method
# Problems with the connection itself: said again at once if they come back after a connect.
CONNECTION_KINDS = frozenset({"unresolved", "refused", "timeout", "unreachable", "tls-name",
                              "tls-untrusted", "tls-time", "tls-other", "tls-plain",
                              "plain-tls", "dropped", "login", "connack"})


@dataclass(frozen=True)
class Endpoint:
    """Where a client connects, as the configuration says (for the probe and the lines)."""

    host: str
    port: int
    tls: bool
    ca: Path | None
    venue: str
    username: str
    credentials: Path | None  # the file the login came from, when known


@dataclass(frozen=True)
class Finding:
    kind: str
    text: str


def probe(where: Endpoint, timeout: float = PROBE_TIMEOUT) -> Finding | None:
    """Why a connection to ``where`` fails, looked at from here; None: nothing found (it may
    work now). Blocks up to a few ``timeout``: run it off paho's thread."""
    host, port = where.host, where.port
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return Finding("unresolved", f"the host name {host!r} does not resolve ({exc.strerror}): "
                       "set the configured host ([mqtt] host) to the broker's IP address or to a "
                       "name this machine's DNS or /etc/hosts knows")
    try:
        sock = socket.create_connection((host, port), timeout)
    except ConnectionRefusedError:
        return Finding("refused", "nothing listens there (connection refused): check the "
                       "configured host and port ([mqtt] host, port; broker init's TLS port is "
                       "8883 unless changed, its plain port answers on the broker's own machine "
                       "only) and that Mosquitto runs there (systemctl status mosquitto)")
    except TimeoutError:
        return Finding("timeout", f"no answer within {timeout:g} s: check the configured host "
                       "([mqtt] host: the broker's address on the room's network), that the "
                       f"broker's machine is on, and that no firewall drops port {port}")
    except OSError as exc:
        return Finding("unreachable", f"{exc.strerror or exc}: check this machine's network and "
                       "the configured host ([mqtt] host)")
    with sock:
        return _tls_probe(where, sock, timeout) if where.tls else _plain_probe(where, sock,
                                                                               timeout)


def _tls_probe(where: Endpoint, sock: socket.socket, timeout: float) -> Finding | None:
    host, port = where.host, where.port
    ca = str(where.ca) if where.ca else None
    context = ssl.create_default_context(cafile=ca)  # as paho's tls_set: verified, by name
    sock.settimeout(timeout)
    try:
        with context.wrap_socket(sock, server_hostname=host):
            return None
    except ssl.SSLCertVerificationError as exc:
        code, said = exc.verify_code, exc.verify_message
        if code in NAME_MISMATCH:
            names = ", ".join(_certificate_names(host, port, timeout)) or "no names we could read"
            return Finding("tls-name", f"its TLS certificate does not name {host!r} (it names "
                           f"{names}): connect by one of those names, or certify the broker for "
                           f"this name on its host with `pokertable broker hostnames --hostname "
                           f"{host} ...` (the same CA: no client needs new files)")
        if code in UNTRUSTED:
            return Finding("tls-untrusted", "its TLS certificate is not signed by our CA "
                           f"{ca or '(none configured: the system CAs)'} ({said}): a wrong or old "
                           "ca.crt: copy the venue's ca.crt (from the broker's `broker init` "
                           "directory) there")
        if code in NOT_NOW:
            return Finding("tls-time", f"its TLS certificate is not valid now ({said}): check "
                           "this machine's clock (`date`; a Pi without network time starts in "
                           "the past)")
        return Finding("tls-other", f"its TLS certificate is refused ({said})")
    except TimeoutError:
        return None  # a slow handshake says nothing of why: the plain line says what to check
    except (ssl.SSLError, ConnectionError) as exc:
        # A plain listener drops a TLS hello at once (Mosquitto resets the connection).
        return Finding("tls-plain", f"it does not answer TLS ({exc}): a plain MQTT port? Use "
                       "the broker's TLS port (broker init's tls_port, 8883 unless changed), or "
                       "no TLS (no ca) for the plain port on the broker's own machine")


def _plain_probe(where: Endpoint, sock: socket.socket, timeout: float) -> Finding | None:
    """We connect without TLS and the broker hung up before answering: is it a TLS port?"""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # only asking whether it speaks TLS at all
    sock.settimeout(timeout)
    try:
        with context.wrap_socket(sock):
            pass
    except (OSError, ValueError):
        return None
    return Finding("plain-tls", "it speaks TLS and we connect without it: set tls = true and "
                   "ca = the venue's ca.crt ([mqtt]), or use the plain port")


def _certificate_names(host: str, port: int, timeout: float) -> list[str]:
    """The names in the server's certificate (read without verifying it: only to say them)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with socket.create_connection((host, port), timeout) as sock, \
                context.wrap_socket(sock) as tls:
            der = tls.getpeercert(binary_form=True)
        if der is None:
            return []
        alt = x509.load_der_x509_certificate(der).extensions.get_extension_for_class(
            x509.SubjectAlternativeName).value
    except (OSError, ValueError, x509.ExtensionNotFound):
        return []
    names: list[str] = list(alt.get_values_for_type(x509.DNSName))
    names += [str(ip) for ip in alt.get_values_for_type(x509.IPAddress)
              if isinstance(ip, ipaddress.IPv4Address | ipaddress.IPv6Address)]
    return names


class Diagnosis:
    """One client's watcher: `install` puts it between paho and the service's callbacks.

    ``problem`` is what it said last and still holds (None when all is well); ``on_problem``,
    if set, hears every change of it (the floor shows it on its pages). ``explain_refusal``,
    if set, is the service's own word on a publish the broker refused, when it knows better
    than a guess at the venue (None: it does not)."""

    def __init__(self, where: Endpoint, *, repeat: float = REPEAT_SECONDS,
                 probe_timeout: float = PROBE_TIMEOUT) -> None:
        self.where = where
        self.repeat = repeat
        self.probe_timeout = probe_timeout
        self.problem: str | None = None
        self.on_problem: Callable[[str | None], None] | None = None
        self.explain_refusal: Callable[[ReasonCode], str | None] | None = None
        self._kind: str | None = None
        self._said: dict[str, float] = {}
        self._lock = threading.Lock()
        self._probing = False
        self._stopped = threading.Event()
        self._connack = False  # this connection had its CONNACK
        self._let_in = False  # ... and it let us in (a refused login is no connection dropped)
        self._drops: list[float] = []  # when connections it had let in were lost
        self._refused_publish = False
        self._watched: tuple[str, ...] = ()
        self._quiet = 60.0
        self._heard = False
        self._timer: threading.Timer | None = None

    # ---------------------------------------------------------------- set up

    def watch(self, filters: tuple[str, ...], seconds: float) -> None:
        """Say so when nothing arrives on ``filters`` (the venue's table topics) within
        ``seconds`` of a connect; once anything has, the venue is right for good."""
        self._watched = filters
        self._quiet = seconds

    def install(self, client: mqtt.Client) -> None:
        """Between paho and the callbacks the service set (call after it set them)."""
        # The service's own (VERSION2 signatures: `new_client` makes every client so).
        connected: Callable[..., None] | None = client.on_connect
        disconnected: Callable[..., None] | None = client.on_disconnect
        published: Callable[..., None] | None = client.on_publish
        received: Callable[..., None] | None = client.on_message

        def on_connect(c: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                       properties: Any) -> None:
            self.connack(reason)
            if connected is not None:
                connected(c, userdata, flags, reason, properties)

        def on_disconnect(c: mqtt.Client, userdata: Any, flags: Any, reason: ReasonCode,
                          properties: Any) -> None:
            self.disconnected(flags, reason)
            if disconnected is not None:
                disconnected(c, userdata, flags, reason, properties)

        def on_publish(c: mqtt.Client, userdata: Any, mid: int, reason: ReasonCode,
                       properties: Any) -> None:
            if reason.is_failure:
                self.refused(reason)
            if published is not None:
                published(c, userdata, mid, reason, properties)

        def on_message(c: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
            if not self._heard:
                self.heard(message.topic)
            if received is not None:
                received(c, userdata, message)

        client.on_connect = on_connect
        client.on_disconnect = on_disconnect
        client.on_publish = on_publish
        client.on_message = on_message
        client.on_connect_fail = lambda *_: self.connect_failed()

    def stop(self) -> None:
        """The client is closing: nothing more to say."""
        self._stopped.set()
        self._cancel_timer()

    # ---------------------------------------------------------------- what paho tells

    def connect_failed(self) -> None:
        """No connection (paho's ``on_connect_fail``): look why, off paho's thread."""
        with self._lock:
            self._drops.clear()  # it does not let us in: not a client taking our place
            if self._probing or self._stopped.is_set():
                return
            self._probing = True
        threading.Thread(target=self._probe, name=f"mqtt-diagnosis-{self.where.username}",
                         daemon=True).start()

    def connack(self, reason: ReasonCode) -> None:
        self._connack, self._let_in = True, not reason.is_failure
        if reason.is_failure:
            w = self.where
            if reason.value in LOGIN_REFUSED:
                source = (str(w.credentials) if w.credentials is not None
                          else "the credentials file")
                self._say("login", logging.ERROR,
                          f"the broker refused the login {w.username!r} ({reason}): check that "
                          f"login's password in {source} (written by `pokertable broker init`; "
                          "a new broker init writes new passwords: copy its credentials.json "
                          "again), or, for a login just added (`pokertable broker add-table`), "
                          "that the broker was reloaded since (systemctl reload mosquitto); "
                          "retrying")
            else:
                self._say("connack", logging.ERROR,
                          f"the broker at {w.host}:{w.port} refused the connection ({reason}); "
                          "retrying")
            return
        with self._lock:
            for kind in CONNECTION_KINDS:
                self._said.pop(kind, None)  # a new outage is said at once
        self._clear(CONNECTION_KINDS)
        if self._watched and not self._heard:
            self._arm(self._quiet)

    def disconnected(self, flags: Any, reason: ReasonCode) -> None:
        had_connack, self._connack = self._connack, False
        let_in, self._let_in = self._let_in, False
        self._cancel_timer()
        if self._stopped.is_set() or (had_connack and not let_in):
            return  # (refused at its CONNACK: said then, with why; nobody "let us in")
        from_broker = bool(getattr(flags, "is_disconnect_packet_from_server", False))
        if from_broker and reason.value == SESSION_TAKEN_OVER:
            self._taken_over(f"the broker closed our connection ({reason})")
        elif not had_connack:
            self.connect_failed()  # dropped before the broker answered: a TLS port?
        elif not from_broker:
            now = time.monotonic()
            with self._lock:
                self._drops = [t for t in self._drops if now - t < self.repeat] + [now]
                drops, since = len(self._drops), now - self._drops[0]
            if drops >= DROPS_FOR_TAKEOVER:
                self._taken_over(f"the broker keeps closing our connection soon after letting "
                                 f"us in ({drops} times in {since:.0f} s): most likely")

    def _taken_over(self, how: str) -> None:
        name = self.where.username
        self._say("taken-over", logging.ERROR,
                  f"{how}: another client connected with our login {name!r} (a second {name} "
                  "with the same login, perhaps on another machine): stop the other one; until "
                  "then each pushes the other off at every reconnect")

    def refused(self, reason: ReasonCode) -> None:
        """The broker refused a message we published (PUBACK): the ACL says no."""
        self._refused_publish = True
        why = None if self.explain_refusal is None else self.explain_refusal(reason)
        if why is not None:
            self._say("refused-publish", logging.ERROR, why)
            return
        w = self.where
        self._say("refused-publish", logging.WARNING,
                  f"the broker refused a message we published ({reason}): the ACL does not let "
                  f"{w.username!r} write there: is the venue right? ({w.venue!r} here; broker "
                  "init's venue is in the topics the ACL allows)")

    def heard(self, topic: str) -> None:
        if any(mqtt.topic_matches_sub(f, topic) for f in self._watched):
            self._heard = True
            self._cancel_timer()
            self._clear(frozenset({"quiet"}))

    # ---------------------------------------------------------------- saying it

    def _probe(self) -> None:
        try:
            finding = probe(self.where, self.probe_timeout)
        except Exception:  # a bug in the probe must not hide the problem
            log.exception("%s: probing the broker failed", self.where.username)
            finding = None
        finally:
            with self._lock:
                self._probing = False
        w = self.where
        if finding is None:  # it answers now: a passing failure, or one we cannot tell
            finding = Finding("dropped", "the connection failed: check the configured host and "
                              "port ([mqtt] host, port), and that Mosquitto runs there")
        if not self._stopped.is_set():
            self._say(finding.kind, logging.WARNING,
                      f"cannot reach the broker at {w.host}:{w.port}: {finding.text}; retrying")

    def _say(self, kind: str, level: int, text: str) -> None:
        line = f"{self.where.username}: {text}"
        now = time.monotonic()
        with self._lock:
            last = self._said.get(kind)
            due = last is None or now - last >= self.repeat
            if due:
                self._said[kind] = now
            changed = line != self.problem
            self.problem, self._kind = line, kind
        if due:
            log.log(level, "%s", line)
        if changed and self.on_problem is not None:
            self.on_problem(line)

    def _clear(self, kinds: frozenset[str]) -> None:
        with self._lock:
            if self._kind not in kinds:
                return
            self.problem = self._kind = None
        if self.on_problem is not None:
            self.on_problem(None)

    # ---------------------------------------------------------------- the silence

    def _arm(self, seconds: float) -> None:
        self._cancel_timer()
        timer = threading.Timer(seconds, self._quiet_for)
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _cancel_timer(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    def _quiet_for(self) -> None:
        if self._heard or self._stopped.is_set():
            return
        if not self._refused_publish:  # that line already named the venue
            w = self.where
            topics = " or ".join(self._watched)
            self._say("quiet", logging.WARNING,
                      f"no table has published on {topics} in {self._quiet:g} s since we "
                      f"subscribed: no table is running, or the venue is wrong ({w.venue!r} "
                      "here; broker init's venue is in the topics the ACL allows)")
        self._arm(self.repeat)


__all__ = ["Diagnosis", "Endpoint", "Finding", "probe"]
