"""`fetch_and_index`'s fetch connects only to the addresses it checked (DNS pinning): a name
that answers a public address to the check and 127.0.0.1 to the connection (DNS rebinding)
never reaches the loopback server, every redirect hop is resolved and checked again, and the
Host header and the TLS server name stay the original host's.

Real HTTP(S) servers on 127.0.0.1. The resolver is replaced for one made-up name, and the
public address it answers is only ever named: a connection to it is sent to a local stand-in
(`Net.connect`), and any other non-loopback target is refused, so nothing leaves the machine.
"""

from __future__ import annotations

import datetime
import functools
import ipaddress
import socket
import ssl
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from ctx_cli.sandbox import fetch, netguard

HOST = "docs.example.test"
PUBLIC = "93.184.215.14"  # public to the guard; never dialled (Net.connect)
REAL_GETADDRINFO = socket.getaddrinfo
REAL_CONNECT = socket.create_connection


@dataclass
class Site:
    """A real GET server on 127.0.0.1: `body`, or a redirect where `moved` names the path."""

    body: str
    moved: dict[str, str] = field(default_factory=dict)  # path -> Location
    tls: ssl.SSLContext | None = None
    hosts: list[str] = field(default_factory=list)  # the Host header of each request
    server: ThreadingHTTPServer | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.server_port

    def __enter__(self) -> Site:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        if self.tls is not None:
            self.server.socket = self.tls.wrap_socket(self.server.socket, server_side=True)
        serve = functools.partial(self.server.serve_forever, poll_interval=0.05)
        threading.Thread(target=serve, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.hosts.append(str(self.headers.get("Host")))
            body = site.body.encode()
            location = site.moved.get(self.path)
            self.send_response(302 if location else 200)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


@dataclass
class Net:
    """The resolver's answers for HOST, one list per lookup (the last one repeats), and where
    PUBLIC's connections really go."""

    answers: list[list[str]]
    public_port: int = 0
    dialled: list[str] = field(default_factory=list)  # what each connection was asked for

    def getaddrinfo(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != HOST:
            return REAL_GETADDRINFO(host, port, *args, **kwargs)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in answer]

    def connect(self, address: Any, timeout: Any = None, *args: Any, **kwargs: Any) -> Any:
        host, port = address[0], address[1]
        self.dialled.append(host)
        for target in [str(info[4][0]) for info in socket.getaddrinfo(host, port)]:
            if target == PUBLIC:
                return REAL_CONNECT(("127.0.0.1", self.public_port), timeout)
            if ipaddress.ip_address(target).is_loopback:
                return REAL_CONNECT((target, port), timeout)
        raise ConnectionRefusedError(f"test: {host} is neither loopback nor the stand-in")


@pytest.fixture
def net(monkeypatch: pytest.MonkeyPatch) -> Net:
    net = Net(answers=[[PUBLIC]])
    monkeypatch.setattr(socket, "getaddrinfo", net.getaddrinfo)
    monkeypatch.setattr(socket, "create_connection", net.connect)
    return net


def test_it_never_connects_to_a_second_dns_answer(net: Net) -> None:
    net.answers = [[PUBLIC], ["127.0.0.1"]]  # checked public, then rebound to loopback
    with Site("internal: the admin token") as internal, Site("public docs") as public:
        net.public_port = public.port
        url, body, kind = fetch.fetch(f"http://{HOST}:{internal.port}/guide")
    assert (url, body, kind) == (f"http://{HOST}:{internal.port}/guide", "public docs", "text")
    assert internal.hosts == []  # the loopback server was never reached
    assert public.hosts == [f"{HOST}:{internal.port}"]  # the original Host header
    assert HOST not in net.dialled  # the name was not resolved again to connect


def test_it_resolves_checks_and_pins_every_redirect_hop(net: Net) -> None:
    with Site("internal") as internal, Site("docs", moved={"/start": "/next"}) as public:
        net.public_port = public.port
        start = f"http://{HOST}:{internal.port}/start"
        net.answers = [[PUBLIC], ["127.0.0.1"]]  # the second hop resolves to loopback
        with pytest.raises(netguard.BlockedURL, match=r"127\.0\.0\.1, a loopback address"):
            fetch.fetch(start)
        assert internal.hosts == [] and len(public.hosts) == 1
        net.answers = [[PUBLIC]]  # public at every hop: followed, the final URL by its name
        assert fetch.fetch(start)[:2] == (f"http://{HOST}:{internal.port}/next", "docs")


def test_it_verifies_https_against_the_original_host(
    net: Net, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Connected to an IP, the TLS server name (SNI) and the certificate check use the name."""
    monkeypatch.setenv("SSL_CERT_FILE", _authority(tmp_path))
    for name, works in ((HOST, True), ("other.example.test", False)):
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(*_leaf(tmp_path, name))
        with Site("secure docs", tls=tls) as public:
            net.public_port = public.port
            url = f"https://{HOST}:{public.port}/"
            if works:
                assert fetch.fetch(url)[1] == "secure docs"
                assert public.hosts == [f"{HOST}:{public.port}"]
            else:
                with pytest.raises(fetch.FetchError, match="CERTIFICATE_VERIFY_FAILED"):
                    fetch.fetch(url)


# --- a test certificate authority -----------------------------------------------------------


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _cert(subject: str, issuer: str, key: Any, signer: Any, ca: bool) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False
        )
    return builder.sign(signer, hashes.SHA256())


def _authority(folder: Path) -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _cert("ctx test CA", "ctx test CA", key, key, ca=True)
    (folder / "ca.key").write_bytes(_pem_key(key))
    (folder / "ca.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return str(folder / "ca.pem")


def _leaf(folder: Path, name: str) -> tuple[str, str]:
    ca_key = serialization.load_pem_private_key((folder / "ca.key").read_bytes(), None)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _cert(name, "ctx test CA", key, ca_key, ca=False)
    (folder / f"{name}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / f"{name}.key").write_bytes(_pem_key(key))
    return str(folder / f"{name}.pem"), str(folder / f"{name}.key")


def _pem_key(key: Any) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
