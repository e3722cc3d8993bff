#!/usr/bin/env python3
"""Issue 24: the granite_client Python package as a ClickHouse user expects it (granite local,
1 worker).

- `pip install client/python` from a clean copy of the repository, into a fresh venv, writes
  nothing into the source tree, and the installed package (its stubs generated at install time)
  runs queries, also through SQLAlchemy's granite:// (the package's entry point). The fresh venv
  borrows grpcio/protobuf/setuptools/SQLAlchemy from the project venv through a .pth file, so the
  test needs no network.
- PEP 249: granite_client.dbapi.connect / cursor / execute with pyformat parameters /
  description with names and types / fetchone / fetchmany / fetchall / iteration over a
  1,000,000-row result decoded as it streams / errors as ProgrammingError / SET in the session.
- QueryStream: result() without finish() returns (it hung: the server waited for input), and
  cancel() after finish() cancels the query on the server (it raised).
"""

import os
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

from granite_client import dbapi  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 120


def listing(folder):
    out = set()
    for base, dirs, files in os.walk(folder):
        for name in dirs + files:
            out.add(os.path.relpath(os.path.join(base, name), folder))
    return out


class PythonClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=1).start()
        cls.client = cls.cluster.client(timeout=TIMEOUT)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.stop()

    def test_pip_install_from_a_clean_checkout(self):
        with tempfile.TemporaryDirectory(prefix="granite-pip-") as tmp:
            checkout = os.path.join(tmp, "checkout")
            files = subprocess.run(["git", "ls-files", "client/python", "proto"], cwd=ROOT,
                                   capture_output=True, text=True, check=True).stdout.split()
            for f in files:
                os.makedirs(os.path.join(checkout, os.path.dirname(f)), exist_ok=True)
                with open(os.path.join(ROOT, f), "rb") as src, \
                        open(os.path.join(checkout, f), "wb") as dst:
                    dst.write(src.read())
            before = listing(checkout)
            venv = os.path.join(tmp, "venv")
            subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=TIMEOUT)
            python = os.path.join(venv, "bin", "python")
            purelib = subprocess.run([python, "-c", "import sysconfig; "
                                      "print(sysconfig.get_paths()['purelib'])"],
                                     capture_output=True, text=True, check=True).stdout.strip()
            with open(os.path.join(purelib, "granite_deps.pth"), "w") as f:
                f.write(sysconfig.get_paths()["purelib"] + "\n")
            install = subprocess.run(
                [python, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation",
                 "--no-deps", os.path.join(checkout, "client", "python")],
                capture_output=True, text=True, timeout=TIMEOUT,
                env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"))
            self.assertEqual(install.returncode, 0, install.stdout + install.stderr)
            self.assertEqual(listing(checkout) - before, set(), "pip wrote into the source tree")
            script = ("import granite_client, sys\n"
                      "from granite_client import dbapi\n"
                      "assert 'checkout' not in granite_client.__file__, granite_client.__file__\n"
                      "c = dbapi.connect(port=int(sys.argv[1])).cursor()\n"
                      "c.execute('SELECT 40 + 2 AS x')\n"
                      "print(c.description[0][:2], c.fetchall())\n"
                      "try:\n"
                      "    import sqlalchemy\n"
                      "except ImportError:\n"
                      "    print('42')\n"
                      "else:\n"
                      "    # granite:// through the installed entry point, no register() call\n"
                      "    e = sqlalchemy.create_engine('granite://127.0.0.1:%s/default' "
                      "% sys.argv[1])\n"
                      "    with e.connect() as conn:\n"
                      "        print(conn.execute(sqlalchemy.text('SELECT 6 * 7')).scalar())\n")
            run = subprocess.run([python, "-c", script, str(self.cluster.port)], cwd=tmp,
                                 capture_output=True, text=True, timeout=TIMEOUT)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertEqual(run.stdout, "('x', 'UInt16') [(42,)]\n42\n")

    def test_dbapi(self):
        self.assertEqual((dbapi.apilevel, dbapi.paramstyle), ("2.0", "pyformat"))
        with dbapi.connect(port=self.cluster.port) as conn:
            cur = conn.cursor()
            cur.execute("CREATE TABLE py (id UInt32, name String, d Date) "
                        "ENGINE = MergeTree ORDER BY id")
            cur.execute("INSERT INTO py VALUES (%(a)s, %(b)s, '2024-05-06'), (2, %(c)s, "
                        "'2024-05-07')", {"a": 1, "b": "it's", "c": "two"})
            cur.execute("SELECT id, name, d FROM py ORDER BY id")
            self.assertEqual([d[:2] for d in cur.description],
                             [("id", "UInt32"), ("name", "String"), ("d", "Date")])
            first = cur.fetchone()
            self.assertEqual(first[:2], (1, "it's"))
            self.assertEqual(str(first[2]), "2024-05-06")
            self.assertEqual([r[0] for r in cur.fetchall()], [2])
            self.assertIsNone(cur.fetchone())
            cur.execute("SELECT number FROM numbers(%s)", (1000000,))
            cur.arraysize = 10
            self.assertEqual(len(cur.fetchmany()), 10)
            self.assertEqual(sum(r[0] for r in cur) + sum(range(10)), 999999 * 1000000 // 2)
            with self.assertRaises(dbapi.ProgrammingError) as failure:
                cur.execute("SELECT * FROM no_such_table")
            self.assertEqual(failure.exception.code, 60)
            cur.execute("SET use_pruning = 0")
            cur.execute("SELECT value FROM system.settings WHERE name = 'use_pruning'")
            self.assertEqual(cur.fetchall(), [("0",)])
            with self.assertRaises(dbapi.NotSupportedError):
                conn.rollback()

    def test_stream_never_hangs_and_cancels_after_finish(self):
        self.assertEqual(self.client.stream("SELECT 1").result().output, b"1\n")
        stream = self.client.stream("SELECT sum(number) FROM numbers(18446744073709551615)",
                                    query_id="py-cancel")
        stream.finish()
        deadline = time.monotonic() + TIMEOUT
        while self.client.query_text("SELECT count() FROM system.processes "
                                     "WHERE query_id = 'py-cancel'") != "1\n":
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.05)
        stream.cancel()
        results = []
        reader = threading.Thread(target=lambda: results.extend(stream), daemon=True)
        reader.start()
        reader.join(TIMEOUT)
        self.assertFalse(reader.is_alive())
        self.assertTrue(results and results[-1].cancelled)


if __name__ == "__main__":
    testmain.main([PythonClientTest])
