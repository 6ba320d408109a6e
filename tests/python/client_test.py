#!/usr/bin/python3
"""Python client of neardupd: proves the proto serves other languages.

Generates Python stubs from proto/ with Debian's protoc and
grpc_python_plugin, starts the real neardupd on loopback, and ingests,
queries and fingerprints through the generated stubs.

Usage: client_test.py NEARDUPD_BINARY PROTO_DIR
"""

import os
import socket
import subprocess
import sys
import tempfile
import time
import unittest

NEARDUPD, PROTO_DIR = sys.argv[1], sys.argv[2]
del sys.argv[1:3]  # leave unittest its own arguments


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def generate_stubs(out_dir):
    plugin = "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin"
    subprocess.run(
        ["protoc", "-I", PROTO_DIR, "--python_out", out_dir,
         "--grpc_python_out", out_dir, plugin, "neardup/v1/neardup.proto"],
        check=True)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "protos")
    subprocess.run(
        ["protoc", "-I", here, "--python_out", out_dir, "--grpc_python_out",
         out_dir, plugin, "reflection_client.proto"],
        check=True)
    sys.path.insert(0, out_dir)


def text(seed, words=80):
    vocab = ["river", "stone", "market", "quiet", "signal", "harbor",
             "winter", "ledger", "copper", "garden", "engine", "lantern"]
    state = seed * 2654435761 + 1
    out = []
    for _ in range(words):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
        out.append(f"{vocab[(state >> 33) % len(vocab)]}{(state >> 40) % 50}")
    return " ".join(out)


class PythonClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        generate_stubs(cls.tmp.name)
        global grpc, pb, pb_grpc
        import grpc
        from neardup.v1 import neardup_pb2 as pb
        from neardup.v1 import neardup_pb2_grpc as pb_grpc
        cls.address = f"127.0.0.1:{free_port()}"
        cls.log = open(os.path.join(cls.tmp.name, "neardupd.log"), "w")
        cls.server = subprocess.Popen(
            [NEARDUPD, f"--listen={cls.address}", "--metrics-listen=off",
             "--plaintext",
             f"--data-dir={cls.tmp.name}/data"],
            stdout=cls.log, stderr=cls.log)
        cls.channel = grpc.insecure_channel(cls.address)
        cls.stub = pb_grpc.NearDupStub(cls.channel)
        # UNAVAILABLE until the server listens and its indexes are rebuilt.
        # (The health stubs are not generated here: their Python module path
        # grpc.health.v1 would shadow the grpc package.)
        deadline = time.time() + 30
        while True:
            try:
                cls.stub.ListCollections(pb.ListCollectionsRequest(),
                                         timeout=1)
                break
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
            if time.time() > deadline:
                raise RuntimeError("neardupd did not start")
            time.sleep(0.05)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.server.terminate()
        code = cls.server.wait(timeout=30)
        cls.log.close()
        cls.tmp.cleanup()
        assert code == 0, f"neardupd exited with {code}"

    def test_ingest_and_query(self):
        config = pb.FingerprintConfig(threshold=0.5, store_text=True)
        created = self.stub.CreateCollection(
            pb.CreateCollectionRequest(name="py", config=config))
        self.assertEqual(created.config.num_perm, 128)
        for i in range(20):
            response = self.stub.Upsert(pb.UpsertRequest(
                collection="py", id=f"doc{i}", text=text(i).encode(),
                metadata={"i": str(i)}))
            self.assertTrue(response.written)
        words = text(7).split()
        words[40] = "edited"
        found = self.stub.Query(pb.QueryRequest(
            collection="py", text=" ".join(words).encode(),
            include_metadata=True))
        self.assertGreaterEqual(len(found.matches), 1)
        self.assertEqual(found.matches[0].id, "doc7")
        self.assertEqual(found.matches[0].metadata["i"], "7")
        self.assertTrue(found.matches[0].HasField("exact_jaccard"))

    def test_bulk_upsert_stream(self):
        self.stub.CreateCollection(pb.CreateCollectionRequest(name="bulk"))
        # 50 documents in messages of 20, 20 and 10 items.
        batches = (pb.BulkUpsertRequest(items=[
            pb.UpsertRequest(collection="bulk", id=f"b{i}",
                             text=text(100 + i).encode())
            for i in range(first, min(first + 20, 50))])
            for first in range(0, 50, 20))
        responses = list(self.stub.BulkUpsert(batches))
        self.assertEqual([len(r.results) for r in responses], [20, 20, 10])
        results = [r for response in responses for r in response.results]
        self.assertEqual([r.index for r in results], list(range(50)))
        self.assertTrue(all(r.code == 0 for r in results))
        self.assertEqual([r.response.id for r in results],
                         [f"b{i}" for i in range(50)])

    def test_errors_are_status_codes(self):
        with self.assertRaises(grpc.RpcError) as caught:
            self.stub.GetCollection(pb.GetCollectionRequest(name="absent"))
        self.assertEqual(caught.exception.code(), grpc.StatusCode.NOT_FOUND)

    def test_server_reflection_lists_the_service(self):
        import reflection_client_pb2 as rpb
        import reflection_client_pb2_grpc as rgrpc
        stub = rgrpc.ServerReflectionStub(self.channel)
        responses = list(stub.ServerReflectionInfo(iter([
            rpb.ServerReflectionRequest(list_services="*"),
            rpb.ServerReflectionRequest(
                file_containing_symbol="neardup.v1.NearDup")])))
        names = [s.name for s in
                 responses[0].list_services_response.service]
        self.assertIn("neardup.v1.NearDup", names)
        self.assertIn("grpc.health.v1.Health", names)
        self.assertGreater(len(responses[1].file_descriptor_response
                               .file_descriptor_proto), 0)

    def test_fingerprint_is_txtfp_compatible(self):
        response = self.stub.Fingerprint(pb.FingerprintRequest(
            text=b"the quick brown fox jumps over the lazy dog"))
        self.assertEqual(response.minhash_config_hash, 0x1ffc8214c1e9e9db)
        self.assertEqual(len(response.minhash), 1032)


if __name__ == "__main__":
    unittest.main()
