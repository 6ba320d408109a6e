"""The HTTP/JSON API against a real neardupd, as curl or a script uses it:
every route, its codes and JSON shapes (checked against the server's own
OpenAPI document), errors, NDJSON streams, tokens, limits and metrics."""

import hashlib
import http.client
import json
import os
import re
import socket
import subprocess
import time
from typing import Any, Dict

import jsonschema
import pytest

from conftest import Answer, Neardupd, b64, start

TEXT = ("the quick brown fox jumps over the lazy dog while the farmer "
        "watches from the old wooden fence near the river bank at dawn")
EDITED = TEXT.replace("farmer", "farmers")


@pytest.fixture(scope="module")
def openapi(server: Neardupd) -> Dict[str, Any]:
    answer = server.request("GET", "/v1/openapi.json")
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/json"
    return answer.json()


def check_schema(openapi: Dict[str, Any], path: str, verb: str,
                 value: Any) -> None:
    """`value` matches the 200 answer's schema of path/verb in `openapi`."""
    content = openapi["paths"][path][verb]["responses"]["200"]["content"]
    schema = next(iter(content.values()))["schema"]
    resolver = jsonschema.RefResolver.from_schema(openapi)
    jsonschema.Draft7Validator(schema, resolver=resolver).validate(value)


def check_error(answer: Answer, http_status: int, grpc_status: str) -> str:
    assert answer.status == http_status, answer.body
    assert answer.headers["content-type"] == "application/json"
    error = answer.json()
    assert error["status"] == grpc_status, error
    assert set(error) == {"code", "status", "message", "details"}
    assert error["message"]
    return str(error["message"])


def create(server: Neardupd, name: str, **config: Any) -> Answer:
    return server.request("POST", "/v1/collections",
                          {"name": name, "config": config})


def test_openapi_document_is_valid_and_complete(openapi):
    assert openapi["openapi"].startswith("3.")
    operation_ids = []
    refs = re.findall(r'"\$ref": "#/components/schemas/([^"]+)"',
                      json.dumps(openapi))
    for name in refs:
        assert name in openapi["components"]["schemas"], name
    for path, verbs in openapi["paths"].items():
        declared = set(re.findall(r"{(\w+)}", path))
        for verb, operation in verbs.items():
            assert verb in {"get", "post", "put", "delete"}
            operation_ids.append(operation["operationId"])
            in_path = {p["name"] for p in operation.get("parameters", [])
                       if p["in"] == "path"}
            assert in_path == declared, (path, verb)
            assert "200" in operation["responses"]
            assert "default" in operation["responses"]
    assert len(operation_ids) == len(set(operation_ids))
    # Every RPC of the service has a route.
    assert {"CreateCollection", "GetCollection", "ListCollections",
            "DropCollection", "Upsert", "BulkUpsert", "Get", "Delete",
            "Query", "BatchQuery", "Fingerprint", "Compare", "Stats",
            "CreateBackup", "Export", "Check"} == set(operation_ids)


def test_every_route_in_the_document_answers(server, openapi):
    """No route of the document is 404 or 405 at the gateway: each reaches
    its RPC (which may refuse the empty request with its own error)."""
    for path, verbs in openapi["paths"].items():
        concrete = re.sub(r"{\w+}", "absent-x", path)
        for verb in verbs:
            body = {} if verb in ("post", "put") else None
            answer = server.request(verb.upper(), concrete, body)
            if answer.status >= 400:
                # An error of the service, not of routing.
                error = answer.json()
                assert error["status"] not in ("UNIMPLEMENTED",), (path, error)
                assert not error["message"].startswith("no route"), path


def test_collection_document_and_query_round_trip(server, openapi):
    created = create(server, "http-docs", threshold=0.5, storeText=True,
                     keptFamilies=["tlsh"])
    assert created.status == 200, created.body
    check_schema(openapi, "/v1/collections", "post", created.json())
    assert created.json()["name"] == "http-docs"

    listed = server.request("GET", "/v1/collections")
    assert listed.status == 200
    check_schema(openapi, "/v1/collections", "get", listed.json())
    assert "http-docs" in [c["name"] for c in listed.json()["collections"]]

    got = server.request("GET", "/v1/collections/http-docs")
    assert got.status == 200 and got.json()["name"] == "http-docs"

    path = "/v1/collections/http-docs/documents/doc%2F1"  # id "doc/1"
    put = server.request("PUT", path, {"text": b64(TEXT),
                                       "metadata": {"source": "curl"}})
    assert put.status == 200, put.body
    check_schema(openapi, "/v1/collections/{collection}/documents/{id}",
                 "put", put.json())
    assert put.json()["id"] == "doc/1" and put.json()["written"] is True

    document = server.request("GET", path)
    assert document.status == 200
    check_schema(openapi, "/v1/collections/{collection}/documents/{id}",
                 "get", document.json())
    assert document.json()["id"] == "doc/1"
    assert document.json()["metadata"] == {"source": "curl"}

    query = server.request(
        "POST", "/v1/collections/http-docs/documents:query",
        {"text": b64(EDITED), "explain": True, "includeMetadata": True})
    assert query.status == 200, query.body
    check_schema(openapi, "/v1/collections/{collection}/documents:query",
                 "post", query.json())
    matches = query.json()["matches"]
    assert [m["id"] for m in matches] == ["doc/1"]
    assert matches[0]["exactJaccard"] > 0.5
    assert matches[0]["passages"], matches[0]

    stats = server.request("GET", "/v1/stats?collection=http-docs")
    assert stats.status == 200
    check_schema(openapi, "/v1/stats", "get", stats.json())
    assert stats.json()["collections"][0]["documentCount"] == "1"

    deleted = server.request("DELETE", path)
    assert deleted.status == 200
    assert server.request("GET", path).status == 404
    dropped = server.request("DELETE", "/v1/collections/http-docs")
    assert dropped.status == 200
    check_error(server.request("GET", "/v1/collections/http-docs"), 404,
                "NOT_FOUND")


def test_stateless_fingerprint_and_compare(server, openapi):
    fingerprint = server.request("POST", "/v1:fingerprint",
                                 {"text": b64(TEXT)})
    assert fingerprint.status == 200, fingerprint.body
    check_schema(openapi, "/v1:fingerprint", "post", fingerprint.json())
    assert fingerprint.json()["minhash"]
    tlsh = server.request("POST", "/v1:fingerprint",
                          {"text": b64(TEXT * 3), "kind": "FINGERPRINT_KIND_TLSH"})
    assert tlsh.status == 200, tlsh.body
    assert tlsh.json()["tlsh"].startswith("T1"), tlsh.json()
    compare = server.request("POST", "/v1:compare",
                             {"a": b64(TEXT), "b": b64(EDITED),
                              "explain": True})
    assert compare.status == 200, compare.body
    check_schema(openapi, "/v1:compare", "post", compare.json())
    assert 0.5 < compare.json()["exactJaccard"] < 1
    assert compare.json()["passages"]


def test_errors_map_to_http_codes_with_a_json_body(server):
    check_error(server.request("GET", "/v1/nothing"), 404, "NOT_FOUND")
    not_allowed = server.request("PATCH", "/v1/collections")
    check_error(not_allowed, 405, "UNIMPLEMENTED")
    assert not_allowed.headers["allow"] == "GET, POST"
    message = check_error(
        server.request("POST", "/v1/collections", b"{not json",
                       {"Content-Type": "application/json"}),
        400, "INVALID_ARGUMENT")
    assert "CreateCollectionRequest" in message
    message = check_error(
        server.request("POST", "/v1/collections", {"name": "x", "nope": 1}),
        400, "INVALID_ARGUMENT")
    assert "nope" in message
    message = check_error(
        server.request("POST", "/v1/collections", b'{"name": "x"}',
                       {"Content-Type": "text/plain"}),
        415, "INVALID_ARGUMENT")
    assert "application/json" in message
    check_error(server.request("GET", "/v1/stats?bogus=1"), 400,
                "INVALID_ARGUMENT")
    check_error(server.request("GET", "/v1/collections/absent/documents/x"),
                404, "NOT_FOUND")
    # A service error: the gRPC code and message, mapped.
    message = check_error(create(server, "bad name!"), 400,
                          "INVALID_ARGUMENT")
    assert "name" in message
    assert create(server, "twice").status == 200
    check_error(create(server, "twice"), 409, "ALREADY_EXISTS")
    # The path's field wins only when the body agrees.
    message = check_error(
        server.request("PUT", "/v1/collections/twice/documents/a",
                       {"collection": "other", "text": b64(TEXT)}),
        400, "INVALID_ARGUMENT")
    assert "path" in message
    check_error(server.request("GET", "/v1/health",
                               headers={"X-Server-Timeout": "soon"}),
                400, "INVALID_ARGUMENT")


def test_bodies_over_the_message_limit_are_refused(server):
    big = {"name": "big", "config": {}, "padding": "x" * (2 << 20)}
    check_error(server.request("POST", "/v1/collections", big), 413,
                "RESOURCE_EXHAUSTED")
    # Chunked, so that no Content-Length announces it.
    c = server.connect()
    c.putrequest("POST", "/v1/collections")
    c.putheader("Content-Type", "application/json")
    c.putheader("Transfer-Encoding", "chunked")
    c.endheaders()
    chunk = b"x" * (256 << 10)
    try:
        for _ in range(8):
            c.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        c.send(b"0\r\n\r\n")
    except OSError:
        pass  # the server may close before reading everything
    response = c.getresponse()
    assert response.status == 413
    c.close()
    assert server.request("GET", "/v1/health").status == 200


def test_ndjson_bulk_upsert_export_and_batch_query(server, openapi):
    assert create(server, "http-bulk").status == 200
    lines = [json.dumps({"items": [{"id": f"d{i}-{j}",
                                    "text": b64(f"{TEXT} {i} {j}")}
                                   for j in range(3)]})
             for i in range(4)]
    bulk = server.request(
        "POST", "/v1/collections/http-bulk/documents:bulkUpsert",
        ("\n".join(lines) + "\n").encode(),
        {"Content-Type": "application/x-ndjson"})
    assert bulk.status == 200, bulk.body
    assert bulk.headers["content-type"] == "application/x-ndjson"
    answers = bulk.lines()
    assert len(answers) == 4
    for answer in answers:
        check_schema(openapi,
                     "/v1/collections/{collection}/documents:bulkUpsert",
                     "post", answer)
    indexes = [int(r["index"]) for a in answers for r in a["results"]]
    assert indexes == list(range(12))
    assert all(r["code"] == 0 for a in answers for r in a["results"])

    exported = server.request(
        "GET", "/v1/collections/http-bulk/documents:export?with_signatures=true")
    assert exported.status == 200, exported.body
    documents = [d for m in exported.lines() for d in m["documents"]]
    assert sorted(d["id"] for d in documents) == sorted(
        f"d{i}-{j}" for i in range(4) for j in range(3))
    assert all(d["signatures"]["minhash"] for d in documents)

    probes = "\n".join(json.dumps({"text": b64(f"{TEXT} {i} 0")})
                       for i in range(4)).encode()
    batch = server.request(
        "POST", "/v1/collections/http-bulk/documents:batchQuery", probes,
        {"Content-Type": "application/x-ndjson"})
    assert batch.status == 200, batch.body
    results = batch.lines()
    assert len(results) == 4
    for i, result in enumerate(results):
        assert f"d{i}-0" in [m["id"] for m in result["matches"]]


def test_ndjson_errors_before_and_after_the_first_line(server):
    assert create(server, "http-bulk-errors").status == 200
    path = "/v1/collections/http-bulk-errors/documents:bulkUpsert"
    ndjson = {"Content-Type": "application/x-ndjson"}
    # The first line is bad: nothing was sent, so a plain error answer.
    check_error(server.request("POST", path, b"{oops\n", ndjson), 400,
                "INVALID_ARGUMENT")
    # A bad third line: the first two are answered, then an error line.
    good = json.dumps({"items": [{"id": "a", "text": b64(TEXT)}]})
    answer = server.request(
        "POST", path, f"{good}\n{good}\n[1, 2]\n{good}\n".encode(), ndjson)
    assert answer.status == 200
    lines = answer.lines()
    assert len(lines) == 3, lines
    assert lines[2]["error"]["status"] == "INVALID_ARGUMENT"
    assert lines[2]["error"]["message"].startswith("line 3:")
    # A stream of a collection that does not exist: each item fails.
    missing = server.request(
        "POST", "/v1/collections/absent/documents:bulkUpsert",
        f"{good}\n".encode(), ndjson)
    assert missing.status == 200
    assert missing.lines()[0]["results"][0]["code"] == 5  # NOT_FOUND


def test_backup_route(server, work):
    answer = server.request("POST", "/v1/backups", {"destination": "b1"})
    assert answer.status == 200, answer.body
    assert os.path.isdir(answer.json()["path"])
    again = server.request("POST", "/v1/backups", {"destination": "b1"})
    assert again.status >= 400 and again.json()["message"], again.body


def test_http_calls_count_in_metrics_with_protocol_label(server):
    assert server.request("GET", "/v1/collections").status == 200
    assert server.request("GET", "/v1/nothing").status == 404
    metrics = server.metrics()
    ok = re.search(r'neardup_rpcs_total\{(?=[^}]*method="ListCollections")'
                   r'(?=[^}]*code="OK")(?=[^}]*protocol="http")[^}]*\} (\d+)',
                   metrics)
    assert ok and int(ok.group(1)) >= 1, metrics
    assert re.search(r'neardup_http_responses_total\{status="404"\} [1-9]',
                     metrics)


def test_keep_alive_serves_many_requests_on_one_connection(server):
    c = server.connect()
    try:
        ports = set()
        for _ in range(20):
            assert server.request("GET", "/v1/health", connection=c).status == 200
            ports.add(c.sock.getsockname()[1])  # http.client would reconnect
        assert len(ports) == 1
    finally:
        c.close()


def test_tokens_and_scopes(work):
    digest = lambda token: hashlib.sha256(token.encode()).hexdigest()
    tokens = os.path.join(work, "http-tokens.yaml")
    with open(tokens, "w") as f:
        f.write("tokens:\n"
                f"  - {{name: r, sha256: {digest('reader')}, "
                "scopes: [\"read:*\"]}\n"
                f"  - {{name: w, sha256: {digest('writer')}, "
                "scopes: [\"admin\"]}\n")
    server = start(work, [f"--auth-tokens={tokens}"])
    try:
        server.wait_serving()
        writer = {"Authorization": "Bearer writer"}
        reader = {"Authorization": "Bearer reader"}
        check_error(server.request("GET", "/v1/collections"), 401,
                    "UNAUTHENTICATED")
        check_error(server.request("GET", "/v1/collections",
                                   headers={"Authorization": "Bearer nope"}),
                    401, "UNAUTHENTICATED")
        assert server.request("GET", "/v1/collections",
                              headers=reader).status == 200
        check_error(server.request("POST", "/v1/collections",
                                   {"name": "t"}, reader), 403,
                    "PERMISSION_DENIED")
        assert server.request("POST", "/v1/collections", {"name": "t"},
                              writer).status == 200
        # Streams check tokens too.
        check_error(server.request(
            "POST", "/v1/collections/t/documents:bulkUpsert",
            b'{"items": []}\n', {"Content-Type": "application/x-ndjson",
                                 **reader}), 403, "PERMISSION_DENIED")
        check_error(server.request(
            "GET", "/v1/collections/t/documents:export"), 401,
            "UNAUTHENTICATED")
    finally:
        server.stop()


def test_tls(work):
    run = lambda *args: subprocess.run(args, cwd=work, check=True,
                                       capture_output=True)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
        "-keyout", "http-ca.key", "-out", "http-ca.pem", "-days", "1",
        "-subj", "/CN=neardup-http-test-ca")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout",
        "http-server.key", "-out", "http-server.csr", "-subj", "/CN=server")
    with open(os.path.join(work, "http-server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", "http-server.csr", "-CA",
        "http-ca.pem", "-CAkey", "http-ca.key", "-CAcreateserial", "-out",
        "http-server.pem", "-days", "1", "-extfile", "http-server.ext")
    import ssl
    server = start(work, [f"--tls-cert={work}/http-server.pem",
                          f"--tls-key={work}/http-server.key"], tls=True)
    try:
        server.tls_context = ssl.create_default_context(
            cafile=f"{work}/http-ca.pem")
        server.wait_serving()
        assert server.request("GET", "/v1/collections").status == 200
        # Plain HTTP on the TLS port gets no answer.
        with socket.create_connection(("127.0.0.1", server.http_port),
                                      timeout=10) as s:
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                data = s.recv(100)
            except ConnectionResetError:
                data = b""
            # Closed after a failed handshake (or a TLS alert): never HTTP.
            assert not data.startswith(b"HTTP/"), data
    finally:
        server.stop()


def test_mtls(work):
    run = lambda *args: subprocess.run(args, cwd=work, check=True,
                                       capture_output=True)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
        "-keyout", "m-ca.key", "-out", "m-ca.pem", "-days", "1", "-subj",
        "/CN=neardup-http-mtls-ca")
    for name, ext in (("m-server", "subjectAltName=IP:127.0.0.1\n"),
                      ("m-client", "extendedKeyUsage=clientAuth\n")):
        run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout",
            f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}")
        with open(os.path.join(work, f"{name}.ext"), "w") as f:
            f.write(ext)
        run("openssl", "x509", "-req", "-in", f"{name}.csr", "-CA", "m-ca.pem",
            "-CAkey", "m-ca.key", "-CAcreateserial", "-out", f"{name}.pem",
            "-days", "1", "-extfile", f"{name}.ext")
    import ssl
    server = start(work, [f"--tls-cert={work}/m-server.pem",
                          f"--tls-key={work}/m-server.key",
                          f"--tls-client-ca={work}/m-ca.pem"], tls=True)
    try:
        with_cert = ssl.create_default_context(cafile=f"{work}/m-ca.pem")
        with_cert.load_cert_chain(f"{work}/m-client.pem",
                                  f"{work}/m-client.key")
        server.tls_context = with_cert
        server.wait_serving()
        assert server.request("GET", "/v1/collections").status == 200
        # Without a client certificate the handshake fails: no HTTP at all.
        server.tls_context = ssl.create_default_context(
            cafile=f"{work}/m-ca.pem")
        # (TLS 1.3 may finish the client's side first; the server then
        # drops the connection instead of answering.)
        with pytest.raises((OSError, http.client.HTTPException)):
            server.request("GET", "/v1/collections")
    finally:
        server.stop()


def test_slow_and_idle_clients_do_not_freeze_the_listener(work):
    server = start(work, ["--http-threads", "2", "--http-request-timeout",
                          "1"])
    try:
        server.wait_serving()
        # More idle and dribbling connections than threads.
        idle = [socket.create_connection(("127.0.0.1", server.http_port))
                for _ in range(6)]
        for s in idle[:3]:
            s.sendall(b"GET /v1/health HTTP/1.1\r\nHo")
        started = time.monotonic()
        answer = server.request("GET", "/v1/health")
        assert answer.status == 200
        # Each idle connection holds a thread at most --http-request-timeout.
        assert time.monotonic() - started < 15
        # The dribbling ones were cut off: closed, not left hanging.
        for s in idle[:3]:
            s.settimeout(10)
            data = b""
            while True:
                got = s.recv(4096)  # a timeout here fails the test
                if not got:
                    break
                data += got
            assert b"200 OK" not in data
        for s in idle:
            s.close()
        # Oversized headers are refused, and the server lives.
        c = server.connect()
        c.request("GET", "/v1/health", headers={"X-Big": "y" * (64 << 10)})
        assert c.getresponse().status >= 400
        c.close()
        assert server.request("GET", "/v1/health").status == 200
        assert server.process.poll() is None
    finally:
        server.stop()


def test_connections_beyond_the_waiting_room_are_refused(work):
    server = start(work, ["--http-threads", "1",
                          "--http-max-waiting-connections", "1",
                          "--http-request-timeout", "5"])
    try:
        server.wait_serving()
        # One connection holds the thread, one waits; the next is refused
        # at once, with a 503 it can read. (A connection of wait_serving may
        # still hold the thread for a moment: up to one more is taken.)
        held = []
        data = b""
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", server.http_port))
            s.settimeout(3)  # a loaded machine accepts late
            try:
                data = s.recv(4096)
            except socket.timeout:
                held.append(s)
                continue
            refused = s
            break
        assert 2 <= len(held) <= 3, len(held)
        assert data.startswith(b"HTTP/1.1 503"), data
        head, body = data.split(b"\r\n\r\n", 1)
        length = re.search(rb"Content-Length: (\d+)", head)
        assert length and int(length.group(1)) == len(body), data
        assert json.loads(body)["status"] == "UNAVAILABLE"
        refused.close()
        for s in held:
            s.close()
        # Once they are gone, requests are served again.
        deadline = time.monotonic() + 15
        while True:
            try:
                if server.request("GET", "/v1/health").status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        server.stop()


ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def curl_block(path: str, heading: str) -> str:
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    return text.split(heading, 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]


def run_curl_block(block: str, server: Neardupd, work: str) -> str:
    script = ("set -euo pipefail\n"
              'curl() { command curl --fail-with-body "$@"; echo; }\n' +
              block.replace("H=http://127.0.0.1:8080",
                            f"H=http://127.0.0.1:{server.http_port}"))
    result = subprocess.run(["bash", "-c", script], cwd=work,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_docs_list_every_route(openapi):
    with open(os.path.join(ROOT, "docs/http.md"), encoding="utf-8") as f:
        text = f.read()
    listed = set(re.findall(r"^\| (GET|POST|PUT|DELETE) \| `([^`]+)` \|",
                            text, re.M))
    served = {(verb.upper(), path) for path, verbs in openapi["paths"].items()
              for verb in verbs}
    assert listed == served


def test_docs_and_readme_curl_examples_run(server, work):
    out = run_curl_block(curl_block("docs/http.md", "## curl"), server, work)
    # The query found the stored copy; the export streamed both documents.
    assert '"matches":[{"id":"a1"' in out, out
    assert '"id":"b1"' in out, out
    drop = server.request("DELETE", "/v1/collections/web")
    assert drop.status == 200
    out = run_curl_block(curl_block("README.md", "### From curl and a browser"),
                         server, work)
    assert '"matches":[{"id":"a1"' in out, out


def raw_exchange(server: Neardupd, request: bytes, timeout: float = 10) -> bytes:
    """Sends raw bytes and reads until the server closes."""
    with socket.create_connection(("127.0.0.1", server.http_port),
                                  timeout=timeout) as s:
        s.sendall(request)
        data = b""
        while True:
            got = s.recv(65536)
            if not got:
                return data
            data += got


def test_hostile_headers_and_cross_site_requests(server):
    # Bytes that gRPC metadata cannot carry: refused, and the server lives.
    c = server.connect()
    c.putrequest("GET", "/v1/collections")
    c.putheader("Authorization", b"Bearer \xc3\xa9t\xe9")
    c.endheaders()
    response = c.getresponse()
    assert response.status == 401
    assert json.loads(response.read())["status"] == "UNAUTHENTICATED"
    c.close()
    check_error(server.request("GET", "/v1/health",
                               headers={"Authorization": "Bearer\tx"}),
                401, "UNAUTHENTICATED")
    assert server.request("GET", "/v1/health").status == 200
    # What a form or a no-cors fetch of another site could send.
    check_error(server.request("POST", "/v1/backups"), 415,
                "INVALID_ARGUMENT")
    check_error(server.request("POST", "/v1/collections?name=x", {}), 400,
                "INVALID_ARGUMENT")
    check_error(server.request("POST", "/v1/collections", {"name": "x"},
                               {"Sec-Fetch-Site": "cross-site"}),
                403, "PERMISSION_DENIED")
    # A DNS-rebinding page names its own host to a loopback listener.
    check_error(server.request("GET", "/v1/collections",
                               headers={"Host": "attacker.example:8080"}),
                403, "PERMISSION_DENIED")
    check_error(server.request("GET", "/v1/collections",
                               headers={"Host": "127.attacker.example"}),
                403, "PERMISSION_DENIED")
    for host in ("localhost:1", "127.0.0.2", "[::1]:8080", "x.localhost"):
        assert server.request("GET", "/v1/collections",
                              headers={"Host": host}).status == 200, host


def test_head_expect_and_http_1_0(server):
    # HEAD: refused with no body, connection closed (no desync).
    data = raw_exchange(server, b"HEAD /v1/health HTTP/1.1\r\nHost: "
                                b"127.0.0.1\r\n\r\n")
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 405"), data
    assert body == b""
    # Expect: 100-continue (any case) gets its interim answer.
    body = json.dumps({"text": b64(TEXT)}).encode()
    with socket.create_connection(("127.0.0.1", server.http_port),
                                  timeout=10) as s:
        s.sendall(b"POST /v1:fingerprint HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/json\r\nExpect: 100-Continue"
                  b"\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"
                  % len(body))
        assert s.recv(64).startswith(b"HTTP/1.1 100 Continue")
        s.sendall(body)
        answer = b""
        while True:
            got = s.recv(65536)
            if not got:
                break
            answer += got
    assert b"HTTP/1.1 200" in answer and b'"minhash"' in answer
    # An HTTP/1.0 stream: no chunks, the answer ends with the connection.
    assert create(server, "http-ten").status == 200
    server.request("PUT", "/v1/collections/http-ten/documents/a",
                   {"text": b64(TEXT)})
    data = raw_exchange(server, b"GET /v1/collections/http-ten/documents:"
                                b"export HTTP/1.0\r\n\r\n")
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200") or head.startswith(b"HTTP/1.1 200")
    assert b"chunked" not in head.lower()
    lines = [json.loads(line) for line in body.splitlines() if line]
    assert [d["id"] for m in lines for d in m["documents"]] == ["a"]


def test_export_with_a_bad_query_parameter_names_it(server):
    message = check_error(
        server.request("GET", "/v1/collections/x/documents:export?bogus=1"),
        400, "INVALID_ARGUMENT")
    assert "bogus" in message


def test_blank_line_floods_are_cheap(server):
    started = time.monotonic()
    answer = server.request(
        "POST", "/v1/collections/absent/documents:batchQuery",
        b"\n" * (8 << 20), {"Content-Type": "application/x-ndjson"})
    assert answer.status == 200 and answer.lines() == []
    # Linear: a second or two even under sanitizers; copying the rest of
    # the buffer per line would take hours.
    assert time.monotonic() - started < 30


def test_ndjson_clients_that_read_only_after_sending_get_every_answer(server):
    """http.client sends the whole body before it reads: answers far larger
    than the sockets' buffers must not stall the exchange."""
    assert create(server, "http-big-stream").status == 200
    lines = "".join(
        json.dumps({"items": [{"id": f"i{n}-{k}-" + "x" * 200,
                               "text": b64(f"w{n} v{k} u{n * k}")}
                              for k in range(500)]}) + "\n"
        for n in range(60)).encode()
    answer = server.request(
        "POST", "/v1/collections/http-big-stream/documents:bulkUpsert",
        lines, {"Content-Type": "application/x-ndjson"})
    assert answer.status == 200
    assert len(answer.body) > (8 << 20)  # more than loopback buffers hold
    results = [r for line in answer.lines() for r in line["results"]]
    assert len(results) == 30000
    assert all(r["code"] == 0 for r in results)


def test_deadlines_and_per_client_limits_apply_to_http(work):
    server = start(work, ["--max-streams-per-client", "1"])
    try:
        server.wait_serving()
        assert create(server, "http-limits").status == 200
        server.request("PUT", "/v1/collections/http-limits/documents/a",
                       {"text": b64(TEXT)})
        # X-Server-Timeout is the call's deadline: 1 ms cannot fingerprint
        # a megabyte, so the call ends with DEADLINE_EXCEEDED (504).
        check_error(server.request(
            "POST", "/v1/collections/http-limits/documents:query",
            {"text": b64(TEXT * 8000)}, {"X-Server-Timeout": "0.001"}),
            504, "DEADLINE_EXCEEDED")
        assert server.request(
            "POST", "/v1/collections/http-limits/documents:query",
            {"text": b64(TEXT * 8000)},
            {"X-Server-Timeout": "60"}).status == 200
        # One stream per client (its IP without tokens): a second stream
        # while the first is open is refused as on gRPC.
        held = socket.create_connection(("127.0.0.1", server.http_port))
        line = json.dumps({"text": b64(TEXT)}).encode() + b"\n"
        held.sendall(b"POST /v1/collections/http-limits/documents:batchQuery "
                     b"HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                     b"application/x-ndjson\r\nTransfer-Encoding: chunked\r\n"
                     b"\r\n" + b"%x\r\n%s\r\n" % (len(line), line))
        time.sleep(0.5)  # the stream is open, its body still coming
        message = check_error(server.request(
            "POST", "/v1/collections/http-limits/documents:batchQuery",
            line, {"Content-Type": "application/x-ndjson"}),
            429, "RESOURCE_EXHAUSTED")
        assert "streams" in message
        held.sendall(b"0\r\n\r\n")  # the first stream ends normally
        held.settimeout(10)
        data = b""
        while b"0\r\n\r\n" not in data:
            got = held.recv(65536)
            assert got, data
            data += got
        assert b"HTTP/1.1 200" in data and b'"matches"' in data
        held.close()
        metrics = server.metrics()
        assert re.search(r'neardup_rpcs_total\{(?=[^}]*method="BatchQuery")'
                         r'(?=[^}]*code="RESOURCE_EXHAUSTED")'
                         r'(?=[^}]*protocol="http")[^}]*\} 1', metrics)
    finally:
        server.stop()


def test_stream_edge_cases(server):
    assert create(server, "http-edges").status == 200
    path = "/v1/collections/http-edges/documents:batchQuery"
    ndjson = {"Content-Type": "application/x-ndjson"}
    # An empty body: no requests, no answers.
    empty = server.request("POST", path, b"", ndjson)
    assert empty.status == 200 and empty.lines() == []
    # A line over --max-message-bytes (1 MiB here): 413, as for a body.
    message = check_error(server.request(
        "POST", path, b'{"text": "' + b"A" * (1536 << 10) + b'"}\n', ndjson),
        413, "RESOURCE_EXHAUSTED")
    assert message.startswith("line 1 ")


def test_a_client_waiting_for_each_answer_gets_it(server):
    """One line, wait for its answer, then the next: answers go out while
    the body is still open (up to 64 KiB of them)."""
    assert create(server, "http-talk").status == 200
    server.request("PUT", "/v1/collections/http-talk/documents/a",
                   {"text": b64(TEXT)})
    with socket.create_connection(("127.0.0.1", server.http_port),
                                  timeout=10) as s:
        s.sendall(b"POST /v1/collections/http-talk/documents:batchQuery "
                  b"HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                  b"application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n")
        received = b""
        for turn in range(3):
            line = json.dumps({"text": b64(TEXT)}).encode() + b"\n"
            s.sendall(b"%x\r\n%s\r\n" % (len(line), line))
            # Its answer arrives although the body has not ended.
            while received.count(b'"matches"') < turn + 1:
                got = s.recv(65536)  # a timeout fails the test
                assert got, received
                received += got
        s.sendall(b"0\r\n\r\n")
        while not received.endswith(b"0\r\n\r\n"):
            got = s.recv(65536)
            assert got, received
            received += got
    assert received.startswith(b"HTTP/1.1 200")
    assert received.count(b'"id":"a"') == 3


def test_trickled_bodies_and_endless_chunk_lines_are_cut(work):
    server = start(work, ["--http-request-timeout", "1"])
    try:
        server.wait_serving()
        # A byte now and then: within each read's timeout, far below the
        # minimum rate.
        with socket.create_connection(("127.0.0.1", server.http_port),
                                      timeout=30) as s:
            s.sendall(b"POST /v1:compare HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"Content-Type: application/json\r\n"
                      b"Content-Length: 1000000\r\n\r\n")
            started = time.monotonic()
            data = b""
            try:
                while time.monotonic() - started < 20:
                    s.sendall(b" ")
                    s.settimeout(0.5)
                    try:
                        got = s.recv(4096)
                        if not got:
                            break
                        data += got
                    except socket.timeout:
                        pass
            except (BrokenPipeError, ConnectionResetError):
                pass
            assert time.monotonic() - started < 10, "the trickle was not cut"
        # A chunk-size line that never ends: refused, memory bounded.
        with socket.create_connection(("127.0.0.1", server.http_port),
                                      timeout=30) as s:
            s.sendall(b"POST /v1:compare HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"Content-Type: application/json\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n1;")
            try:
                for _ in range(64):
                    s.sendall(b"a" * (64 << 10))
            except (BrokenPipeError, ConnectionResetError):
                pass
        assert server.request("GET", "/v1/health").status == 200
        assert server.process.poll() is None
    finally:
        server.stop()


def test_answers_the_listener_writes_itself_are_counted(server):
    c = server.connect()
    c.request("GET", "/v1/health", headers={"X-Big": "y" * (64 << 10)})
    assert c.getresponse().status == 431
    c.close()
    assert re.search(r'neardup_http_responses_total\{status="431"\} [1-9]',
                     server.metrics())
