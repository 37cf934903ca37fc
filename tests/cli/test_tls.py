"""https servers: the client verifies the certificate (SSL_CERT_FILE, else certifi)."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.cli.conftest import Cli
from tests.cli.rawhttp import OK, SocketServer, read_head


def _self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An https server answering every request with 200 {"status": "ok"}; its URL and cert."""
    cert, key = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    def answer(conn: socket.socket) -> None:
        try:
            with context.wrap_socket(conn, server_side=True) as tls:
                if read_head(tls):
                    tls.sendall(OK)
        except (OSError, ssl.SSLError):
            pass  # a client that refused the certificate

    server = SocketServer(answer, scheme="https")
    yield server.url, cert
    server.close()


def test_it_talks_to_an_https_server_it_trusts(
    tmp_path: Path, tls_server: tuple[str, Path]
) -> None:
    url, cert = tls_server
    run = Cli(home=tmp_path, url=url, key="k")("--json", "health", SSL_CERT_FILE=str(cert))
    assert run.returncode == 0, run.stderr
    assert '"status": "ok"' in run.stdout


def test_it_refuses_a_certificate_it_does_not_trust(
    tmp_path: Path, tls_server: tuple[str, Path]
) -> None:
    url, _ = tls_server
    run = Cli(home=tmp_path, url=url, key="k")("health")  # certifi's bundle: not this cert
    assert run.returncode == 1
    assert "cannot reach ctx" in run.stderr and "CERTIFICATE_VERIFY_FAILED" in run.stderr
