"""A unittest base for integration tests that talk to a `granite local` cluster through raw gRPC
stubs (ClickHouse's protocol, tests/harness/cluster.py), and ClickHouse's own output from chdb when
the venv has it (scripts/make-venv.sh --bench)."""

import unittest

import cluster
import grpc
import testmain
from granite_client._stubs import pb2, pb2_grpc

TIMEOUT = 60  # seconds, per call


def chdb_bytes(query, fmt):
    """ClickHouse's output of `query` in format `fmt`, or None without chdb."""
    try:
        import chdb
    except ImportError:
        return None
    return chdb.query(query, fmt).bytes()


class GrpcClusterCase(unittest.TestCase):
    """Starts one cluster of WORKERS workers per test class, with a gRPC stub on its client port."""

    WORKERS = 1
    TIMEOUT = TIMEOUT

    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=cls.WORKERS).start()
        cls.channel = grpc.insecure_channel("%s:%d" % (cls.cluster.host, cls.cluster.port))
        cls.stub = pb2_grpc.ClickHouseStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.cluster.stop()

    @classmethod
    def run_query(cls, query, **fields):
        """The Result of ExecuteQuery (its exception field set on an error)."""
        return cls.stub.ExecuteQuery(pb2.QueryInfo(query=query, **fields), timeout=cls.TIMEOUT)

    @classmethod
    def ok(cls, query, **fields):
        """The output bytes of a query that must succeed (AssertionError with its message)."""
        result = cls.run_query(query, **fields)
        if result.HasField("exception"):
            raise AssertionError(result.exception.display_text)
        return result.output


class FormatsCase(unittest.TestCase):
    """Starts one cluster of `workers` workers per test class with a granite_client client, runs
    TABLES (CREATE statements) once, and compares output formats with ClickHouse's."""

    workers = 1
    TABLES = ()

    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=cls.workers).start()
        cls.client = cls.cluster.client(timeout=TIMEOUT)
        for create in cls.TABLES:
            cls.client.query(create)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def assert_formats_match(self, sample, expected, chdb_sample=None):
        """For each format of `expected` (name -> bytes): chdb's output of `chdb_sample` (default
        `sample`), when chdb is there, and granite's output of `sample` equal the bytes."""
        for fmt, want in expected.items():
            live = chdb_bytes(chdb_sample or sample, fmt)
            if live is not None:
                self.assertEqual(live, want, fmt)
            self.assertEqual(self.client.query(sample, format=fmt), want, fmt)
