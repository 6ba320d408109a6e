"""neardup.Client and neardup.AsyncClient against a real neardupd."""

import asyncio
import contextlib
import hashlib
import os
import subprocess
import time

import pytest

import neardup
from neardup.client import _is_loopback
from neardup.messages import (Algorithm, FingerprintConfig, QueryRequest,
                              Signatures, UpsertRequest, Verification)

from conftest import Neardupd, free_port, start


def text(seed, words=80):
    vocab = ["river", "stone", "market", "quiet", "signal", "harbor",
             "winter", "ledger", "copper", "garden", "engine", "lantern"]
    state = seed * 2654435761 + 1
    out = []
    for _ in range(words):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
        out.append(f"{vocab[(state >> 33) % len(vocab)]}{(state >> 40) % 50}")
    return " ".join(out)


def edited(seed):
    words = text(seed).split()
    words[40] = "edited"
    return " ".join(words)


@pytest.fixture(scope="module")
def client(server):
    with neardup.Client(server.address, max_attempts=40,
                        initial_backoff=0.05, max_backoff=0.2) as c:
        assert c.health() == "SERVING"  # retried while the server starts
        yield c


def test_collections_documents_and_queries(client):
    created = client.create_collection(
        "news", config=FingerprintConfig(threshold=0.5, store_text=True))
    assert created.name == "news" and created.config.num_perm == 128
    assert created.config.verification == Verification.EXACT
    assert [c.name for c in client.list_collections().collections] == ["news"]
    for i in range(20):
        written = client.upsert("news", id=f"doc{i}", text=text(i),
                                metadata={"i": str(i)})
        assert written.written
    found = client.query("news", text=edited(7), include_metadata=True)
    best = found.matches[0]
    assert best.id == "doc7" and best.metadata == {"i": "7"}
    assert best.exact_jaccard is not None and 0.5 < best.exact_jaccard < 1
    assert found.to_proto().matches[0].id == "doc7"  # the raw message
    document = client.get("news", id="doc3")
    assert document.id == "doc3" and document.metadata == {"i": "3"}
    client.delete("news", id="doc3")
    with pytest.raises(neardup.NotFound) as error:
        client.get("news", id="doc3")
    assert isinstance(error.value, LookupError)
    assert "doc3" in error.value.message


def test_errors_are_typed_and_keep_the_servers_message(client):
    client.create_collection("typed")
    with pytest.raises(neardup.AlreadyExists, match="typed"):
        client.create_collection("typed")
    with pytest.raises(neardup.InvalidArgument) as error:
        client.query("typed", text="x", threshold=3.0)
    assert isinstance(error.value, ValueError)
    assert "threshold" in error.value.message
    with pytest.raises(neardup.NotFound):
        client.query("missing", text="some words here")


def test_upsert_many_and_query_many_keep_input_order(client):
    client.create_collection("bulk", config=FingerprintConfig(threshold=0.5))
    items = [UpsertRequest(id=f"b{i}", text=text(100 + i)) for i in range(45)]
    items.insert(10, {"id": "", "text": "no id"})  # fails alone
    items.append({"id": "dict", "text": text(999)})
    results = list(client.upsert_many("bulk", iter(items), batch_size=7))
    assert [r.index for r in results] == list(range(len(items)))
    assert [r.code for r in results].count(0) == len(items) - 1
    assert results[10].code == 3 and "id" in results[10].message
    probes = [edited(100 + i) for i in range(12)] + [{"text": text(999)}]
    answers = list(client.query_many("bulk", probes))
    assert [a.matches[0].id for a in answers] == (
        [f"b{i}" for i in range(12)] + ["dict"])
    exported = sorted(d.id for d in client.export("bulk"))
    assert exported == sorted([f"b{i}" for i in range(45)] + ["dict"])


def test_fingerprint_compare_stats(client):
    a, b = text(1), edited(1)
    compared = client.compare(a=a, b=b, explain=True)
    assert 0.5 < compared.exact_jaccard < 1 and compared.passages
    printed = client.fingerprint(text=a)
    assert len(printed.minhash) == 8 + 8 * 128
    stats = client.stats()
    assert any(c.name == "news" for c in stats.collections)
    assert [c.name for c in client.stats(collection="news").collections] == [
        "news"]


def test_only_idempotent_calls_are_retried():
    # 3 attempts with 1 s between them take 2 s at least; one attempt to a
    # closed loopback port fails at once.
    dead = neardup.Client(f"127.0.0.1:{free_port()}", max_attempts=3,
                          initial_backoff=1.0, max_backoff=1.0, timeout=5)
    start = time.monotonic()
    with pytest.raises(neardup.Unavailable):
        dead.list_collections()
    assert time.monotonic() - start >= 2.0
    for call in (lambda: dead.create_collection("x"),
                 lambda: dead.upsert("x", id="a", text="t"),
                 lambda: dead.delete("x", id="a")):
        start = time.monotonic()
        with pytest.raises(neardup.Unavailable):
            call()
        assert time.monotonic() - start < 1.0


def test_loopback_targets():
    for target in ["127.0.0.1:5", "localhost:5", "[::1]:5", "::1",
                   "unix:/tmp/s", "dns:///localhost:5", "ipv4:127.0.0.1:5"]:
        assert _is_loopback(target), target
    for target in ["10.1.2.3:5", "example.com:5", "[2001:db8::1]:5",
                   "dns:///example.com:5"]:
        assert not _is_loopback(target), target


def test_one_member_of_a_oneof():
    with pytest.raises(ValueError, match="set one of text, signatures"):
        QueryRequest(text=b"x", signatures=Signatures()).to_proto()


def test_streams_stop_when_the_caller_does(client):
    client.create_collection("early")
    items = ({"id": f"e{i}", "text": text(2000 + i)} for i in range(2000))
    for result in client.upsert_many("early", items, batch_size=10):
        break
    written = len(list(client.export("early")))
    assert 0 < written < 2000


def test_a_bad_item_raises_its_own_error(client):
    client.create_collection("bad-items")
    items = [{"id": "ok", "text": text(1)}, {"id": "typo", "txt": "x"}]
    results = []
    with pytest.raises(TypeError, match="txt"):
        for result in client.upsert_many("bad-items", items, batch_size=1):
            results.append(result)
    # What was sent before the bad item is answered first.
    assert [(r.index, r.code) for r in results] == [(0, 0)]
    assert client.get("bad-items", id="ok").id == "ok"
    with pytest.raises(ValueError, match="batch_size"):
        client.upsert_many("bad-items", items, batch_size=0)

    def failing():
        yield text(2)
        raise RuntimeError("the caller's generator failed")

    with pytest.raises(RuntimeError, match="generator failed"):
        list(client.query_many("bad-items", failing()))


def test_a_token_needs_tls_away_from_loopback():
    with pytest.raises(ValueError, match="clear text"):
        neardup.Client("10.1.2.3:50051", token="secret")
    neardup.Client("10.1.2.3:50051", token="secret",
                   allow_plaintext_token=True).close()


def test_environment_names_the_server(server, monkeypatch):
    monkeypatch.setenv("NEARDUP_SERVER", server.address)
    with neardup.Client() as c:
        assert c.server == server.address
        c.list_collections()


def test_async_client(server):
    async def run():
        async with neardup.AsyncClient(server.address, max_attempts=40,
                                       initial_backoff=0.05) as c:
            assert await c.health() == "SERVING"
            await c.create_collection(
                "async", config=FingerprintConfig(threshold=0.5))

            async def items():
                for i in range(30):
                    yield {"id": f"a{i}", "text": text(500 + i)}

            results = [r async for r in c.upsert_many("async", items(),
                                                       batch_size=8)]
            assert [r.index for r in results] == list(range(30))
            assert all(r.code == 0 for r in results)
            found = await c.query("async", text=edited(505),
                                  algorithm=Algorithm.MINHASH)
            assert found.matches[0].id == "a5"
            answers = [a async for a in c.query_many(
                "async", [edited(500 + i) for i in range(5)])]
            assert [a.matches[0].id for a in answers] == [
                f"a{i}" for i in range(5)]
            assert len([d async for d in c.export("async")]) == 30
            with pytest.raises(neardup.NotFound):
                await c.get("async", id="nope")
            # A bad item raises its own error; leaving early cancels.
            answered = []
            with pytest.raises(TypeError, match="txt"):
                async for result in c.upsert_many(
                        "async", [{"id": "fine", "text": text(7)},
                                  {"id": "x", "txt": "y"}], batch_size=1):
                    answered.append(result.code)
            assert answered == [0]
            await c.create_collection("async-early")
            items = ({"id": f"e{i}", "text": text(3000 + i)}
                     for i in range(2000))
            async with contextlib.aclosing(
                    c.upsert_many("async-early", items,
                                  batch_size=10)) as results:
                async for _ in results:
                    break
            written = len([d async for d in c.export("async-early")])
            assert 0 < written < 2000
    asyncio.run(run())


def test_tokens_and_tls(work):
    run = lambda *args: subprocess.run(args, cwd=work, check=True,
                                       capture_output=True)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
        "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj",
        "/CN=neardup-python-test-ca")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout",
        "server.key", "-out", "server.csr", "-subj", "/CN=server")
    with open(os.path.join(work, "server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem",
        "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days",
        "1", "-extfile", "server.ext")
    digest = hashlib.sha256(b"reader-token").hexdigest()
    tokens = os.path.join(work, "tokens.yaml")
    with open(tokens, "w") as f:
        f.write(f"tokens:\n  - {{name: r, sha256: {digest}, "
                f"scopes: [\"read:*\"]}}\n")
    server = start(work, [f"--tls-cert={work}/server.pem",
                          f"--tls-key={work}/server.key",
                          f"--auth-tokens={tokens}"], plaintext=False)
    try:
        with neardup.Client(server.address, tls_ca=f"{work}/ca.pem",
                            token="reader-token", max_attempts=40,
                            initial_backoff=0.05) as reader:
            assert reader.health() == "SERVING"
            assert reader.list_collections().collections == []
            with pytest.raises(neardup.PermissionDenied):
                reader.create_collection("nope")
        with neardup.Client(server.address, tls_ca=f"{work}/ca.pem",
                            token="wrong", max_attempts=1) as stranger:
            with pytest.raises(neardup.Unauthenticated):
                stranger.list_collections()
        with neardup.Client(server.address, tls_ca=f"{work}/ca.pem",
                            tls_server_name="localhost", token="reader-token",
                            max_attempts=1) as by_name:
            by_name.list_collections()
    finally:
        server.stop()
