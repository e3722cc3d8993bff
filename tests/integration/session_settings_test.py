#!/usr/bin/env python3
"""Settings over the ClickHouse gRPC wire: QueryInfo.settings apply to their query; `SET x = y`
within a session (QueryInfo.session_id) applies to that session's later queries and to no other
session; session_check on an unknown session is SESSION_NOT_FOUND (372); unknown names and bad
values are UNKNOWN_SETTING (115) and BAD_ARGUMENTS (36), and a SET with one bad pair changes
nothing."""

import os
import sys
import unittest
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

from granite_client import GraniteError  # noqa: E402

VALUE = "SELECT value, changed FROM system.settings WHERE name = '%s'"


class SessionSettingsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2, threads=1).start()

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()

    def session(self):
        return self.cluster.client(timeout=30, session_id=str(uuid.uuid4()))

    def value(self, client, name, **kwargs):
        return client.query_text(VALUE % name, **kwargs).strip()

    def test_set_applies_to_later_queries_of_the_session_only(self):
        a, b = self.session(), self.session()
        plain = self.cluster.client(timeout=30)
        try:
            self.assertEqual(self.value(a, "late_materialization_max_limit"), "1000\t0")
            a.query("SET late_materialization_max_limit = 7, use_pruning = false")
            self.assertEqual(self.value(a, "late_materialization_max_limit"), "7\t1")
            self.assertEqual(self.value(a, "use_pruning"), "0\t1")
            self.assertEqual(self.value(b, "late_materialization_max_limit"), "1000\t0")
            self.assertEqual(self.value(plain, "use_pruning"), "1\t0")
            # The request's own settings win over the session's for that query only.
            self.assertEqual(self.value(a, "use_pruning", settings={"use_pruning": "1"}), "1\t1")
            self.assertEqual(self.value(a, "use_pruning"), "0\t1")
        finally:
            for c in (a, b, plain):
                c.close()

    def test_set_without_a_session_lasts_one_query(self):
        plain = self.cluster.client(timeout=30)
        try:
            plain.query("SET use_pruning = 0")
            self.assertEqual(self.value(plain, "use_pruning"), "1\t0")
        finally:
            plain.close()

    def test_a_bad_set_changes_nothing(self):
        a = self.session()
        try:
            with self.assertRaises(GraniteError) as caught:
                a.query("SET use_pruning = 0, use_prunning = 1")
            self.assertEqual(caught.exception.code, 115)
            self.assertIn("use_pruning", str(caught.exception))
            with self.assertRaises(GraniteError) as caught:
                a.query("SET use_pruning = 0, queue_max_wait_ms = 'soon'")
            self.assertEqual(caught.exception.code, 36)
            self.assertEqual(self.value(a, "use_pruning"), "1\t0")
        finally:
            a.close()

    def test_request_settings_are_validated(self):
        plain = self.cluster.client(timeout=30)
        try:
            with self.assertRaises(GraniteError) as caught:
                plain.query("SELECT 1", settings={"use_pruning": "perhaps"})
            self.assertEqual(caught.exception.code, 36)
            with self.assertRaises(GraniteError) as caught:
                plain.query("SELECT 1", settings={"send_log_level": "debug"})
            self.assertEqual(caught.exception.code, 115)
            self.assertIn("send_logs_level", str(caught.exception))
        finally:
            plain.close()

    def test_session_check_needs_an_existing_session(self):
        a = self.session()
        try:
            info = a.query_info("SELECT 1")
            info.session_check = True
            result = a.stub.ExecuteQuery(info, timeout=30)
            self.assertEqual(result.exception.code, 372, result.exception)
            a.query("SELECT 1")  # creates the session
            result = a.stub.ExecuteQuery(info, timeout=30)
            self.assertFalse(result.HasField("exception"), result.exception)
        finally:
            a.close()


if __name__ == "__main__":
    testmain.main([SessionSettingsTest])
