"""The venue's own certificate authority: made once by `broker init`, it signs the broker's
server certificate and the floor display's, for the names the tables and phones use.

The CA key stays on the central host (``ca.key``, 0600, root's); ``ca.crt`` goes to every client
that connects with TLS. Keys are ECDSA P-256: small, fast on a Pi, accepted by Mosquitto,
Python's ssl and every browser.
"""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from controller.errors import ConfigError

CA_DAYS = 3650
# A server certificate lives 800 days: phones (Apple's rule) refuse a TLS server certificate
# valid for longer than 825 days, even from a CA the user installed. `broker hostnames`, or the
# installer run again within 90 days of the end, renews it from the same CA.
SERVER_DAYS = 800
RENEW_DAYS = 90
PEM = serialization.Encoding.PEM


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _validity(days: int) -> tuple[datetime.datetime, datetime.datetime]:
    now = datetime.datetime.now(datetime.UTC)
    return now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=days)


def new_ca(venue: str) -> tuple[bytes, bytes]:
    """A new CA for ``venue``: (ca.crt, ca.key) as PEM."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"pokertable {venue} CA")])
    start, until = _validity(CA_DAYS)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(until)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                         crl_sign=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .sign(key, hashes.SHA256()))
    return cert.public_bytes(PEM), _key_pem(key)


def _general_name(name: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


def server_certificate(ca_crt: bytes, ca_key: bytes, names: list[str]) -> tuple[bytes, bytes]:
    """A server certificate signed by the venue CA for ``names`` (host names or IP addresses;
    the first is its common name), plus localhost and 127.0.0.1 for clients on the host itself:
    (certificate, key) as PEM."""
    try:
        ca = x509.load_pem_x509_certificate(ca_crt)
        signer = serialization.load_pem_private_key(ca_key, password=None)
    except ValueError as exc:
        raise ConfigError(f"the venue CA cannot be read: {exc}") from None
    if not isinstance(signer, ec.EllipticCurvePrivateKey):
        raise ConfigError("the venue CA key is not the ECDSA key broker init writes")
    every = list(dict.fromkeys([*names, "localhost", "127.0.0.1"]))
    key = ec.generate_private_key(ec.SECP256R1())
    start, until = _validity(SERVER_DAYS)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, every[0])]))
            .issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(until)
            .add_extension(x509.SubjectAlternativeName([_general_name(n) for n in every]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                           critical=False)
            .sign(signer, hashes.SHA256()))
    return cert.public_bytes(PEM), _key_pem(key)


def certificate_names(path: Path) -> list[str]:
    """The names a certificate file is valid for (its subject alternative names)."""
    cert = x509.load_pem_x509_certificate(path.read_bytes())
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return [str(n.value) for n in sans]


def days_left(path: Path) -> float:
    """Days until the certificate in ``path`` expires."""
    cert = x509.load_pem_x509_certificate(path.read_bytes())
    left = cert.not_valid_after_utc - datetime.datetime.now(datetime.UTC)
    return left.total_seconds() / 86400


__all__ = ["RENEW_DAYS", "certificate_names", "days_left", "new_ca", "server_certificate"]
