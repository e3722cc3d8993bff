#!/usr/bin/env python3
"""Issue 23: an attacker's suite against users, TLS, the inter-server secret and query limits.

Each attack gets its ClickHouse error code, the servers stay up, and a legitimate query from a
user with the right password succeeds afterwards:

- wrong password, unknown user, empty password: AUTHENTICATION_FAILED (516), the same message
  whether the user exists or not, counted in granite_authentication_failures_total;
- a readonly user's INSERT, CREATE, DROP and SET: READONLY (164); a profile constraint lifted
  with SETTINGS: SETTING_CONSTRAINT_VIOLATION (452);
- a 10,000-deep nested expression: TOO_DEEP_RECURSION (306); a 5 MB query: SYNTAX_ERROR (62,
  max_query_size, as ClickHouse reports it);
- max_execution_time (159), max_rows_to_read (158), max_result_rows (396),
  max_concurrent_queries_for_user (202);
- a direct call to a worker's port without the inter-server secret: AUTHENTICATION_FAILED;
- plaintext to a TLS port fails; TLS with the CA (Python package and `granite client --secure`)
  works; with --tls_ca a client without a certificate is refused (mutual TLS);
- a coordinator bound to the machine's own non-loopback address refuses to start without a users
  file; with one, the passwordless loopback-only user is refused from that address (skipped when
  the machine has no non-loopback IPv4 address).
"""

import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402

import grpc  # noqa: E402

import granite_client  # noqa: E402
from granite_client.errors import GraniteError  # noqa: E402

TIMEOUT = 60
ALICE_PASSWORD = "correct horse battery staple"
USERS_FILE = """
# Test users: alice may do anything, reader only reads, analyst is bounded by constraints.
[profile default]
max_execution_time.max = 100

[profile reading]
readonly = 1

[profile bounded]
max_result_rows = 1000
max_result_rows.max = 5000
use_pruning.readonly = 1
max_concurrent_queries_for_user = 1

[user default]
no_password = 1
networks = loopback

[user alice]
password_sha256_hex = %s
networks = any

[user reader]
password_sha256_hex = %s
profile = reading

[user analyst]
password_sha256_hex = %s
profile = bounded
""" % (hashlib.sha256(ALICE_PASSWORD.encode()).hexdigest(),
       hashlib.sha256(b"reader-pw").hexdigest(), hashlib.sha256(b"analyst-pw").hexdigest())


def error_code(fn):
    """Runs fn and returns the ClickHouse code of the GraniteError it raises (None if none)."""
    try:
        fn()
    except GraniteError as e:
        return e.code
    return None


def own_ipv4():
    """Returns a non-loopback IPv4 address of this machine, or None."""
    try:
        out = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True,
                             timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    for line in out.splitlines():
        parts = line.split()
        if "inet" in parts:
            address = parts[parts.index("inet") + 1].split("/")[0]
            if not address.startswith("127."):
                return address
    try:
        address = socket.gethostbyname(socket.gethostname())
        return None if address.startswith("127.") else address
    except OSError:
        return None


class UsersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="granite-security-")
        cls.users = os.path.join(cls.dir, "users.txt")
        with open(cls.users, "w") as f:
            f.write(USERS_FILE)
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=2,
                                           extra_args=["--users_file", cls.users]).start()

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def client(self, user, password, **kwargs):
        return self.cluster.client(user_name=user, password=password, timeout=TIMEOUT, **kwargs)

    def alice(self):
        return self.client("alice", ALICE_PASSWORD)

    def assert_still_serving(self):
        with self.alice() as c:
            self.assertEqual(c.query_text("SELECT 40 + 2").strip(), "42")

    def test_wrong_unknown_and_empty_passwords(self):
        messages = []
        for user, password in [("alice", "wrong"), ("mallory", "anything"), ("alice", ""),
                               ("reader", ALICE_PASSWORD), ("nobody", "")]:
            with self.client(user, password) as c:
                try:
                    c.query_text("SELECT 1")
                    self.fail("%s/%r was let in" % (user, password))
                except GraniteError as e:
                    self.assertEqual(e.code, 516, e)
                    messages.append(str(e).replace(user, "USER"))
        # The message does not tell an unknown user from a wrong password.
        self.assertEqual(len(set(messages)), 1, messages)
        with self.alice() as c:
            failures = c.query_text(
                "SELECT value FROM system.events WHERE event = 'AuthenticationFailures' "
                "AND worker = 'coordinator'")
            self.assertGreaterEqual(int(failures.strip()), 5)
        self.assert_still_serving()

    def test_current_user_and_system_users(self):
        with self.alice() as c:
            self.assertEqual(c.query_text("SELECT currentUser()").strip(), "alice")
            rows = c.query_text("SELECT name, auth_type, profile, readonly FROM system.users "
                                "ORDER BY name")
            self.assertIn("reader\tsha256_password\treading\t1", rows)
            self.assertNotIn(hashlib.sha256(ALICE_PASSWORD.encode()).hexdigest(), rows)
            c.query_text("SELECT 1", query_id="alice-logged")
            self.assertEqual(c.query_text("SELECT user FROM system.query_log "
                                          "WHERE query_id = 'alice-logged'").strip(), "alice")

    def test_readonly_user(self):
        with self.alice() as c:
            c.query_text("CREATE TABLE IF NOT EXISTS ro_t (x UInt64) ENGINE = MergeTree "
                         "ORDER BY x")
            c.query_text("INSERT INTO ro_t VALUES (1), (2)")
        with self.client("reader", "reader-pw") as c:
            self.assertEqual(c.query_text("SELECT count() FROM ro_t").strip(), "2")
            for sql in ["INSERT INTO ro_t VALUES (3)",
                        "CREATE TABLE ro_u (x UInt64) ENGINE = MergeTree ORDER BY x",
                        "DROP TABLE ro_t", "SET max_result_rows = 5",
                        "SELECT 1 SETTINGS max_result_rows = 5"]:
                self.assertEqual(error_code(lambda: c.query_text(sql)), 164, sql)
            self.assertEqual(error_code(lambda: c.query_text(
                "SELECT 1", settings={"readonly": "0"})), 164)
        with self.alice() as c:
            self.assertEqual(c.query_text("SELECT count() FROM ro_t").strip(), "2")

    def test_profile_constraints(self):
        with self.client("analyst", "analyst-pw") as c:
            self.assertEqual(c.query_text("SELECT count() FROM numbers(10) "
                                          "SETTINGS max_result_rows = 4000").strip(), "10")
            for sql in ["SELECT 1 SETTINGS max_result_rows = 100000",
                        "SELECT 1 SETTINGS use_pruning = 0"]:
                self.assertEqual(error_code(lambda: c.query_text(sql)), 452, sql)
            # The profile's max_result_rows holds.
            self.assertEqual(error_code(lambda: c.query_text(
                "SELECT number FROM numbers(2000)")), 396)
        with self.alice() as c:  # the `default` profile bounds alice too
            self.assertEqual(error_code(lambda: c.query_text(
                "SELECT 1 SETTINGS max_execution_time = 1000")), 452)

    def test_concurrent_queries_for_user(self):
        errors = []

        def endless():
            with self.client("analyst", "analyst-pw") as c:
                errors.append(error_code(lambda: c.query_text(
                    "SELECT sum(number) FROM numbers(1000000000000) "
                    "SETTINGS max_execution_time = 30", query_id="analyst-endless")))

        thread = threading.Thread(target=endless)
        thread.start()
        with self.alice() as admin:
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and "analyst-endless" not in admin.query_text(
                    "SELECT query_id FROM system.processes"):
                time.sleep(0.05)
            self.assertEqual(admin.query_text(
                "SELECT user FROM system.processes WHERE query_id = 'analyst-endless'").strip(),
                "analyst")
            with self.client("analyst", "analyst-pw") as c:
                self.assertEqual(error_code(lambda: c.query_text("SELECT 1")), 202)
            admin.query_text("KILL QUERY WHERE query_id = 'analyst-endless'")
        thread.join(60)
        self.assertFalse(thread.is_alive())
        with self.client("analyst", "analyst-pw") as c:
            self.assertEqual(c.query_text("SELECT 1").strip(), "1")

    def test_deep_and_huge_queries(self):
        with self.alice() as c:
            deep = "SELECT " + "(" * 10000 + "1" + ")" * 10000
            self.assertEqual(error_code(lambda: c.query_text(deep)), 306)
            calls = "SELECT " + "abs(" * 10000 + "1" + ")" * 10000
            self.assertEqual(error_code(lambda: c.query_text(calls)), 306)
            huge = "SELECT '" + "x" * (5 << 20) + "'"
            try:
                c.query_text(huge)
                self.fail("a 5 MB query ran")
            except GraniteError as e:
                self.assertEqual(e.code, 62)
                self.assertIn("Max query size exceeded", str(e))
        self.assert_still_serving()

    def test_limits(self):
        with self.alice() as c:
            self.assertEqual(error_code(lambda: c.query_text(
                "SELECT sum(number) FROM numbers(1000000000000) "
                "SETTINGS max_execution_time = 1")), 159)
            self.assertEqual(error_code(lambda: c.query_text(
                "SELECT sum(number) FROM numbers(1000) SETTINGS max_rows_to_read = 10")), 158)
            self.assertEqual(error_code(lambda: c.query_text(
                "SELECT sum(number) FROM numbers(1000) SETTINGS max_bytes_to_read = 10")), 307)
            self.assertEqual(error_code(lambda: c.query_text(
                "SELECT number FROM numbers(100) SETTINGS max_result_rows = 10")), 396)
            self.assertEqual(c.query_text(
                "SELECT number FROM numbers(100) ORDER BY number "
                "SETTINGS max_result_rows = 3, result_overflow_mode = 'break'").split(),
                ["0", "1", "2"])
        self.assert_still_serving()

    def test_worker_port_without_secret(self):
        with self.alice() as c:
            addresses = c.query_text("SELECT address FROM system.workers").split()
        self.assertEqual(len(addresses), 2)
        for address in addresses:
            with grpc.insecure_channel(address) as channel:
                for method in ["ListTables", "Execute", "CreateTable", "Insert"]:
                    path = "/granite.worker.v1.Worker/" + method
                    call = (channel.unary_stream if method == "Execute" else
                            channel.unary_unary)(path, request_serializer=lambda b: b,
                                                 response_deserializer=lambda b: b)
                    try:
                        result = call(b"", timeout=TIMEOUT)
                        if method == "Execute":
                            list(result)
                        self.fail("%s on %s answered without the secret" % (method, address))
                    except grpc.RpcError as e:
                        self.assertEqual(e.code(), grpc.StatusCode.UNAUTHENTICATED, method)
                        details = dict(e.trailing_metadata() or ())
                        self.assertEqual(details.get("grpc-status-details-bin"), b"516")
        with self.alice() as c:
            self.assertEqual(c.query_text("SELECT count() FROM numbers(100)").strip(), "100")


ACCESS_USERS_FILE = """
# admin manages access; bob may only read acl.allowed; carol has every privilege (no `grants`
# key) but may not grant; limited has a quota of 3 queries an hour; dave gets a SQL quota;
# erin gets roles.
[profile bounded]
max_result_rows.max = 1000

[quota three]
duration = 3600
queries = 3

[user default]
no_password = 1

[user admin]
password_sha256_hex = %s
access_management = 1

[user bob]
password_sha256_hex = %s
grants = SELECT ON acl.allowed
profile = bounded

[user carol]
password_sha256_hex = %s

[user limited]
password_sha256_hex = %s
quota = three

[user dave]
password_sha256_hex = %s

[user erin]
password_sha256_hex = %s
grants = SELECT ON acl.allowed
""" % tuple(hashlib.sha256(pw.encode()).hexdigest()
            for pw in ["admin-pw", "bob-pw", "carol-pw", "limited-pw", "dave-pw", "erin-pw"])


class AccessTest(unittest.TestCase):
    """GRANT / REVOKE, privilege checks, hidden rows, KILL, quotas (issue 23 items 2, 6, 7).

    A split cluster, so the coordinator restarts alone and reloads the grants from the workers.
    """

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="granite-access-")
        users = os.path.join(cls.dir, "users.txt")
        with open(users, "w") as f:
            f.write(ACCESS_USERS_FILE)
        cls.cluster = cluster.SplitCluster(testmain.granite(), workers=2,
                                           data_root=os.path.join(cls.dir, "data"),
                                           coordinator_args=["--users_file", users]).start()
        with cls.user("admin") as c:
            c.query_text("CREATE DATABASE IF NOT EXISTS acl")
            for table in ["allowed", "secret", "inbox"]:
                c.query_text("CREATE TABLE IF NOT EXISTS acl.%s (x UInt64) ENGINE = MergeTree "
                             "ORDER BY x" % table)
                c.query_text("INSERT INTO acl.%s VALUES (1), (2), (3)" % table)

    @classmethod
    def tearDownClass(cls):
        cls.cluster.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def user(cls, name, **kwargs):
        return cls.cluster.client(user_name=name, password=name + "-pw", timeout=TIMEOUT,
                                  **kwargs)

    def assert_denied(self, client, sql, *needles):
        try:
            client.query_text(sql)
            self.fail("%r was allowed" % sql)
        except GraniteError as e:
            self.assertEqual(e.code, 497, "%s: %s" % (sql, e))
            for needle in needles:
                self.assertIn(needle, str(e))

    def assert_still_serving(self):
        with self.user("admin") as c:
            self.assertEqual(c.query_text("SELECT count() FROM acl.secret").strip(), "3")

    def test_select_insert_and_ddl_without_privileges(self):
        with self.user("bob") as bob:
            self.assertEqual(bob.query_text("SELECT sum(x) FROM acl.allowed").strip(), "6")
            self.assert_denied(bob, "SELECT * FROM acl.secret", "bob", "Not enough privileges",
                               "SELECT ON acl.secret")
            for sql in [
                    "SELECT count() FROM acl.allowed AS a JOIN acl.secret AS s ON a.x = s.x",
                    "SELECT count() FROM (SELECT x FROM acl.secret)",
                    "SELECT count() FROM acl.allowed WHERE x IN (SELECT x FROM acl.secret)",
                    "SELECT (SELECT max(x) FROM acl.secret)",
                    "WITH s AS (SELECT x FROM acl.secret) SELECT count() FROM s",
                    "SELECT x FROM acl.allowed UNION ALL SELECT x FROM acl.secret"]:
                self.assert_denied(bob, sql, "SELECT ON acl.secret")
            self.assert_denied(bob, "INSERT INTO acl.allowed VALUES (9)", "INSERT ON acl.allowed")
            self.assert_denied(bob, "INSERT INTO acl.allowed SELECT x FROM acl.allowed",
                               "INSERT ON acl.allowed")
            self.assert_denied(bob, "CREATE TABLE acl.mine (x UInt64) ENGINE = MergeTree "
                               "ORDER BY x", "CREATE ON acl.mine")
            self.assert_denied(bob, "DROP TABLE acl.allowed", "DROP ON acl.allowed")
            self.assert_denied(bob, "TRUNCATE TABLE acl.allowed", "TRUNCATE ON acl.allowed")
            self.assert_denied(bob, "CREATE DATABASE bobs", "CREATE ON bobs.*")
            self.assertEqual(bob.query_text("SELECT count() FROM acl.allowed").strip(), "3")
        self.assert_still_serving()

    def test_grant_by_non_admin(self):
        for name in ["bob", "carol"]:
            with self.user(name) as c:
                self.assert_denied(c, "GRANT SELECT ON acl.secret TO bob", name,
                                   "access_management")
                self.assert_denied(c, "REVOKE SELECT ON acl.allowed FROM bob")
                self.assert_denied(c, "CREATE QUOTA q FOR INTERVAL 1 hour MAX queries = 1 TO bob")
        with self.user("admin") as admin:
            self.assertEqual(error_code(lambda: admin.query_text(
                "GRANT SELECT ON acl.secret TO nobody")), 192)
            self.assertEqual(error_code(lambda: admin.query_text(
                "GRANT SELECT ON acl.secret TO bob WITH GRANT OPTION")), 48)
        with self.user("bob") as bob:
            self.assert_denied(bob, "SELECT * FROM acl.secret")
        self.assert_still_serving()

    def test_grant_revoke_and_coordinator_restart(self):
        with self.user("admin") as admin:
            admin.query_text("GRANT SELECT ON acl.secret TO bob")
            admin.query_text("GRANT INSERT ON acl.inbox TO bob")
        with self.user("bob") as bob:
            self.assertEqual(bob.query_text("SELECT sum(x) FROM acl.secret").strip(), "6")
            grants = bob.query_text("SHOW GRANTS")
            self.assertIn("GRANT SELECT ON acl.secret TO bob", grants)
            self.assertIn("GRANT INSERT ON acl.inbox TO bob", grants)
            self.assertIn("bob\tSELECT\tacl\tsecret\t0",
                          bob.query_text("SELECT user_name, access_type, database, table, "
                                         "is_partial_revoke FROM system.grants"))
            self.assert_denied(bob, "SHOW GRANTS FOR carol")
        with self.user("admin") as admin:
            admin.query_text("REVOKE SELECT ON acl.secret FROM bob")
        with self.user("bob") as bob:  # the next query already sees the revoke
            self.assert_denied(bob, "SELECT count() FROM acl.secret", "SELECT ON acl.secret")
            bob.query_text("INSERT INTO acl.inbox VALUES (4)")
        self.cluster.restart_coordinator()
        with self.user("bob") as bob:
            self.assert_denied(bob, "SELECT count() FROM acl.secret")
            bob.query_text("INSERT INTO acl.inbox VALUES (5)")
        with self.user("admin") as admin:
            self.assertIn("GRANT INSERT ON acl.inbox TO bob",
                          admin.query_text("SHOW GRANTS FOR bob"))
            self.assertEqual(admin.query_text("SELECT sum(x) FROM acl.inbox").strip(), "15")
            admin.query_text("REVOKE INSERT ON acl.inbox FROM bob")
        with self.user("bob") as bob:
            self.assert_denied(bob, "INSERT INTO acl.inbox VALUES (6)", "INSERT ON acl.inbox")
        self.assert_still_serving()

    def test_catalog_shows_only_granted_objects(self):
        with self.user("bob") as bob:
            tables = bob.query_text("SHOW TABLES FROM acl").split()
            self.assertIn("allowed", tables)
            self.assertNotIn("secret", tables)
            databases = bob.query_text("SHOW DATABASES").split()
            self.assertIn("acl", databases)
            self.assertIn("system", databases)
            self.assertNotIn("default", databases)
            self.assertEqual(bob.query_text("SELECT DISTINCT table FROM system.columns "
                                            "WHERE database = 'acl'").split(), ["allowed"])
        with self.user("carol") as carol:  # every privilege: every table
            self.assertIn("secret", carol.query_text("SHOW TABLES FROM acl").split())

    def test_roles(self):
        with self.user("admin") as admin:
            admin.query_text("CREATE ROLE acl_reader")
            admin.query_text("CREATE ROLE IF NOT EXISTS acl_reader, acl_staff")
            admin.query_text("GRANT SELECT ON acl.secret TO acl_reader")
            admin.query_text("GRANT acl_reader TO acl_staff")
            admin.query_text("GRANT acl_staff TO erin")
            self.assertEqual(error_code(lambda: admin.query_text("CREATE ROLE acl_reader")), 493)
            self.assertEqual(error_code(lambda: admin.query_text("CREATE ROLE bob")), 493)
            self.assertEqual(error_code(lambda: admin.query_text("GRANT nope TO erin")), 492)
            self.assertEqual(error_code(lambda: admin.query_text("GRANT acl_staff TO acl_reader")),
                             36)
            self.assertIn("acl_reader\tworkers", admin.query_text(
                "SELECT name, storage FROM system.roles ORDER BY name"))
            self.assertIn("erin\t\\N\tacl_staff", admin.query_text(
                "SELECT user_name, role_name, granted_role_name FROM system.role_grants"))
        with self.user("erin") as erin:  # through acl_staff, then acl_reader
            self.assertEqual(erin.query_text("SELECT sum(x) FROM acl.secret").strip(), "6")
            self.assertIn("GRANT acl_staff TO erin", erin.query_text("SHOW GRANTS"))
            self.assert_denied(erin, "INSERT INTO acl.secret VALUES (7)", "INSERT ON acl.secret")
            self.assert_denied(erin, "CREATE ROLE mine", "access_management")
        # Roles survive a coordinator restart (kept on the workers).
        self.cluster.restart_coordinator()
        with self.user("erin") as erin:
            self.assertEqual(erin.query_text("SELECT count() FROM acl.secret").strip(), "3")
        with self.user("admin") as admin:
            admin.query_text("REVOKE acl_reader FROM acl_staff")
        with self.user("erin") as erin:
            self.assert_denied(erin, "SELECT count() FROM acl.secret", "SELECT ON acl.secret")
        with self.user("admin") as admin:
            admin.query_text("GRANT acl_reader TO erin")
        with self.user("erin") as erin:
            self.assertEqual(erin.query_text("SELECT count() FROM acl.secret").strip(), "3")
        with self.user("admin") as admin:
            admin.query_text("DROP ROLE acl_reader, acl_staff")
            self.assertEqual(admin.query_text(
                "SELECT count() FROM system.role_grants WHERE user_name = 'erin'").strip(), "0")
        with self.user("erin") as erin:
            self.assert_denied(erin, "SELECT count() FROM acl.secret", "SELECT ON acl.secret")
        self.assert_still_serving()

    def test_set_role_and_default_roles(self):
        """SET ROLE chooses the session's roles among those granted; SET DEFAULT ROLE the roles a
        new session starts with (kept with the grants); privileges and row policies follow."""
        with self.user("admin") as admin:
            admin.query_text("CREATE TABLE acl.ranked (k UInt64) ENGINE = MergeTree ORDER BY k")
            admin.query_text("INSERT INTO acl.ranked SELECT number FROM numbers(10)")
            admin.query_text("CREATE ROLE ranked_reader, ranked_low")
            admin.query_text("GRANT SELECT ON acl.ranked TO ranked_reader")
            admin.query_text("GRANT ranked_reader, ranked_low TO erin")
            admin.query_text("CREATE ROW POLICY low ON acl.ranked AS RESTRICTIVE USING k < 3 "
                             "TO ranked_low")
        with self.user("erin", session_id="erin-roles") as erin:
            self.assertEqual(erin.query_text("SELECT count() FROM acl.ranked").strip(), "3")
            self.assertEqual(sorted(erin.query_text(
                "SELECT role_name FROM system.current_roles").split()),
                ["ranked_low", "ranked_reader"])
            erin.query_text("SET ROLE ranked_reader")  # the policy's role is off
            self.assertEqual(erin.query_text("SELECT count() FROM acl.ranked").strip(), "10")
            self.assertEqual(erin.query_text("SELECT role_name FROM system.current_roles")
                             .strip(), "ranked_reader")
            erin.query_text("SET ROLE NONE")
            self.assert_denied(erin, "SELECT count() FROM acl.ranked", "SELECT ON acl.ranked")
            self.assertEqual(erin.query_text("SELECT count() FROM acl.allowed").strip(), "3")
            erin.query_text("SET ROLE ALL EXCEPT ranked_low")
            self.assertEqual(erin.query_text("SELECT count() FROM acl.ranked").strip(), "10")
            self.assertEqual(error_code(lambda: erin.query_text("SET ROLE acl_nonexistent")), 492)
            self.assertEqual(error_code(lambda: erin.query_text("SET ROLE ranked_other")), 492)
            erin.query_text("SET ROLE DEFAULT")
            self.assertEqual(erin.query_text("SELECT count() FROM acl.ranked").strip(), "3")
            # Another user's defaults need access management; one's own do not.
            self.assert_denied(erin, "SET DEFAULT ROLE NONE TO bob", "access_management")
            erin.query_text("SET DEFAULT ROLE ranked_reader TO CURRENT_USER")
        with self.user("admin") as admin:
            admin.query_text("CREATE ROLE ranked_other")
            self.assertEqual(error_code(lambda: admin.query_text(
                "SET DEFAULT ROLE ranked_other TO erin")), 512)
            self.assertIn("erin\t\\N\tranked_low\t0", admin.query_text(
                "SELECT user_name, role_name, granted_role_name, granted_role_is_default "
                "FROM system.role_grants"))
        with self.user("erin") as erin:  # a new session: the default roles
            self.assertEqual(erin.query_text("SELECT count() FROM acl.ranked").strip(), "10")
            self.assertEqual(error_code(lambda: erin.query_text("SET ROLE ranked_other")), 512)
        self.cluster.restart_coordinator()
        with self.user("erin") as erin:
            self.assertEqual(erin.query_text("SELECT count() FROM acl.ranked").strip(), "10")
        with self.user("admin") as admin:
            admin.query_text("SET DEFAULT ROLE ALL TO erin")
        with self.user("erin") as erin:
            self.assertEqual(erin.query_text("SELECT count() FROM acl.ranked").strip(), "3")
        with self.user("admin") as admin:
            admin.query_text("DROP ROW POLICY low ON acl.ranked")
            admin.query_text("DROP ROLE ranked_reader, ranked_low, ranked_other")
        self.assert_still_serving()

    def test_row_policies(self):
        """CREATE ROW POLICY filters every read of the table (plain, aggregated, joined, in a
        subquery, through INSERT ... SELECT), for the users and roles it names; an ALTER that
        rewrites the table keeps every row; policies survive a coordinator restart."""
        with self.user("admin") as admin:
            admin.query_text("CREATE TABLE acl.rows (k UInt64, owner String, public UInt8) "
                             "ENGINE = MergeTree ORDER BY k")
            admin.query_text("INSERT INTO acl.rows SELECT number, if(number % 2 = 0, 'carol', "
                             "'dave'), number < 2 FROM numbers(10)")
            admin.query_text("CREATE ROLE rows_public")
            admin.query_text("GRANT rows_public TO erin")
            admin.query_text("GRANT SELECT ON acl.rows TO erin")
            admin.query_text("CREATE ROW POLICY own ON acl.rows USING owner = currentUser() "
                             "TO carol, dave")
            admin.query_text("CREATE ROW POLICY public ON acl.rows FOR SELECT USING public = 1 "
                             "TO rows_public, dave")
            admin.query_text("CREATE POLICY low ON acl.rows AS RESTRICTIVE USING k < 9 "
                             "TO ALL EXCEPT admin")
            self.assertEqual(error_code(lambda: admin.query_text(
                "CREATE ROW POLICY own ON acl.rows USING 1 TO carol")), 493)
            self.assertEqual(error_code(lambda: admin.query_text(
                "CREATE ROW POLICY x ON acl.rows USING 1 TO nobody_here")), 192)
            self.assertEqual(admin.query_text("SELECT count() FROM acl.rows").strip(), "10")
            self.assertEqual(admin.query_text("SHOW ROW POLICIES ON acl.rows").split("\n")[:-1],
                             ["low ON acl.rows", "own ON acl.rows", "public ON acl.rows"])
            self.assertEqual(admin.query_text(
                "SELECT short_name, select_filter, is_restrictive, apply_to_all, apply_to_list, "
                "apply_to_except FROM system.row_policies WHERE table = 'rows' ORDER BY name"),
                "low\tk < 9\t1\t1\t[]\t['admin']\n"
                "own\towner = currentUser()\t0\t0\t['carol','dave']\t[]\n"
                "public\tpublic = 1\t0\t0\t['rows_public','dave']\t[]\n")
            self.assertIn("USING owner = currentUser() TO `carol`, `dave`",
                          admin.query_text("SHOW CREATE ROW POLICY own ON acl.rows"))
        with self.user("carol") as carol:  # own rows (even k), below 9
            self.assertEqual(carol.query_text("SELECT groupArray(k) FROM (SELECT k FROM acl.rows "
                                              "ORDER BY k)").strip(), "[0,2,4,6,8]")
            self.assertEqual(carol.query_text("SELECT count() FROM acl.rows").strip(), "5")
            # A select alias named like a column does not stand in for it in the policy.
            self.assertEqual(carol.query_text(
                "SELECT count() FROM (SELECT 'carol' AS owner, k FROM acl.rows)").strip(), "5")
            self.assertEqual(carol.query_text(
                "SELECT 'carol' AS owner, count() FROM acl.rows GROUP BY owner").strip(),
                "carol\t5")
            self.assertEqual(carol.query_text(
                "SELECT count() FROM acl.rows AS a JOIN acl.rows AS b ON a.k = b.k").strip(), "5")
            self.assertEqual(carol.query_text(
                "SELECT count() FROM acl.allowed WHERE x IN (SELECT k FROM acl.rows)").strip(),
                "1")  # 2 only: 1 and 3 are dave's
            self.assertEqual(carol.query_text("SELECT max(k) FROM acl.rows").strip(), "8")
        with self.user("dave") as dave:  # own (odd) or public (0, 1), below 9
            self.assertEqual(dave.query_text("SELECT groupArray(k) FROM (SELECT k FROM acl.rows "
                                             "ORDER BY k)").strip(), "[0,1,3,5,7]")
        with self.user("erin") as erin:  # public through the role
            self.assertEqual(erin.query_text("SELECT groupArray(k) FROM (SELECT k FROM acl.rows "
                                             "ORDER BY k)").strip(), "[0,1]")
        # An ALTER that rewrites the rows keeps those a policy hides from the user running it.
        with self.user("carol") as carol:
            carol.query_text("ALTER TABLE acl.rows MODIFY COLUMN public UInt16")
        with self.user("admin") as admin:
            self.assertEqual(admin.query_text("SELECT count() FROM acl.rows").strip(), "10")
        self.cluster.restart_coordinator()
        with self.user("carol") as carol:
            self.assertEqual(carol.query_text("SELECT count() FROM acl.rows").strip(), "5")
        with self.user("admin") as admin:
            admin.query_text("DROP ROW POLICY own ON acl.rows")
            admin.query_text("DROP POLICY public ON acl.rows")
            self.assertEqual(error_code(lambda: admin.query_text(
                "DROP ROW POLICY own ON acl.rows")), 492)
        with self.user("carol") as carol:  # only the restrictive one is left
            self.assertEqual(carol.query_text("SELECT count() FROM acl.rows").strip(), "9")
        with self.user("admin") as admin:
            admin.query_text("DROP ROW POLICY low ON acl.rows")
            admin.query_text("DROP ROLE rows_public")
        with self.user("carol") as carol:
            self.assertEqual(carol.query_text("SELECT count() FROM acl.rows").strip(), "10")
        self.assert_still_serving()

    def test_other_users_rows_and_kill(self):
        errors = []

        def endless():
            with self.user("carol") as c:
                errors.append(error_code(lambda: c.query_text(
                    "SELECT sum(number) FROM numbers(1000000000000) "
                    "SETTINGS max_execution_time = 60", query_id="carol-endless")))

        with self.user("carol") as carol:
            carol.query_text("SELECT 1", query_id="carol-logged")
        thread = threading.Thread(target=endless)
        thread.start()
        try:
            with self.user("admin") as admin:
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and "carol-endless" not in admin.query_text(
                        "SELECT query_id FROM system.processes"):
                    time.sleep(0.05)
                self.assertIn("carol-endless",
                              admin.query_text("SELECT query_id FROM system.processes"))
            with self.user("bob") as bob:
                bob.query_text("SELECT 2", query_id="bob-logged")
                self.assertEqual(bob.query_text(
                    "SELECT count() FROM system.processes WHERE user != 'bob'").strip(), "0")
                self.assertEqual(bob.query_text(
                    "SELECT count() FROM system.query_log WHERE user != 'bob'").strip(), "0")
                self.assertEqual(bob.query_text(
                    "SELECT count() FROM system.query_log WHERE query_id = 'bob-logged'")
                    .strip(), "1")
                self.assertNotIn("carol-endless", bob.query_text("SHOW PROCESSLIST"))
                self.assert_denied(bob, "KILL QUERY WHERE query_id = 'carol-endless'",
                                   "KILL QUERY ON *.*")
            with self.user("admin") as admin:
                self.assertIn("carol-endless",
                              admin.query_text("SELECT query_id FROM system.processes"))
                self.assertEqual(admin.query_text(
                    "SELECT count() FROM system.query_log WHERE query_id = 'carol-logged'")
                    .strip(), "1")
                admin.query_text("KILL QUERY WHERE query_id = 'carol-endless' SYNC")
        finally:
            thread.join(60)
        self.assertFalse(thread.is_alive())
        self.assertEqual(errors, [394])
        self.assert_still_serving()

    def test_quotas(self):
        with self.user("limited") as limited:
            for i in range(3):
                self.assertEqual(limited.query_text("SELECT %d" % i).strip(), str(i))
            try:
                limited.query_text("SELECT 3")
                self.fail("the fourth query ran")
            except GraniteError as e:
                self.assertEqual(e.code, 201)
                for needle in ["limited", "3600s", "queries = 4/3", "Interval will end at",
                               "`three`"]:
                    self.assertIn(needle, str(e))
        with self.user("admin") as admin:
            self.assertEqual(admin.query_text("SELECT 40 + 2").strip(), "42")
            admin.query_text("CREATE QUOTA two FOR INTERVAL 1 hour MAX queries = 2 TO dave")
            self.assertEqual(error_code(lambda: admin.query_text(
                "CREATE QUOTA two FOR INTERVAL 1 hour MAX queries = 2 TO dave")), 493)
            self.assertIn("two\tworkers", admin.query_text("SELECT name, storage FROM system.quotas"))
        # Kept on the workers: a restarted coordinator reads it before its first query (the
        # counters start again from zero).
        self.cluster.restart_coordinator()
        with self.user("dave") as dave:
            self.assertEqual(dave.query_text(
                "SELECT quota_name, queries, max_queries FROM system.quota_usage").strip(),
                "two\t1\t2")
            dave.query_text("SELECT 1")
            self.assertEqual(error_code(lambda: dave.query_text("SELECT 1")), 201)
        with self.user("admin") as admin:
            admin.query_text("DROP QUOTA two")
        with self.user("dave") as dave:
            self.assertEqual(dave.query_text("SELECT 5").strip(), "5")
        self.assert_still_serving()

    def test_views_are_checked_as_themselves(self):
        with self.user("admin") as admin:
            admin.query_text("CREATE VIEW IF NOT EXISTS acl.secret_sum AS "
                             "SELECT sum(x) AS s FROM acl.secret")
        with self.user("bob") as bob:
            self.assert_denied(bob, "SELECT * FROM acl.secret_sum", "SELECT ON acl.secret_sum")
        with self.user("admin") as admin:
            admin.query_text("GRANT SELECT ON acl.secret_sum TO bob")
            admin.query_text("GRANT CREATE ON acl.* TO bob")
        try:
            with self.user("bob") as bob:
                # As ClickHouse's SQL SECURITY DEFINER: the view, not what it reads.
                self.assertEqual(bob.query_text("SELECT s FROM acl.secret_sum").strip(), "6")
                self.assert_denied(bob, "CREATE VIEW acl.peek AS SELECT * FROM acl.secret",
                                   "SELECT ON acl.secret")
        finally:
            with self.user("admin") as admin:
                admin.query_text("REVOKE SELECT ON acl.secret_sum FROM bob")
                admin.query_text("REVOKE CREATE ON acl.* FROM bob")
        self.assert_still_serving()

    def test_setting_constraints(self):
        with self.user("bob", session_id="bob-session") as bob:
            self.assertEqual(error_code(lambda: bob.query_text("SET max_result_rows = 5000")),
                             452)
            self.assertEqual(error_code(lambda: bob.query_text(
                "SELECT 1 SETTINGS max_result_rows = 5000")), 452)
            bob.query_text("SET max_result_rows = 500")
        self.assert_still_serving()


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True,
                   timeout=60)


def make_certificates(directory):
    """Writes ca.pem, server.pem/server.key (for 127.0.0.1 and localhost) and client.pem/
    client.key, all signed by the CA."""
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            "/CN=granite test CA", "-keyout", "ca.key", "-out", "ca.pem", cwd=directory)
    with open(os.path.join(directory, "san.cnf"), "w") as f:
        f.write("subjectAltName = IP:127.0.0.1, DNS:localhost\n")
    for name in ["server", "client"]:
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=granite " + name,
                "-keyout", name + ".key", "-out", name + ".csr", cwd=directory)
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-days", "2", "-extfile", "san.cnf", "-out", name + ".pem",
                cwd=directory)


@unittest.skipIf(shutil.which("openssl") is None, "no openssl command")
class TlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="granite-tls-")
        make_certificates(cls.dir)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def read(self, name):
        with open(os.path.join(self.dir, name), "rb") as f:
            return f.read()

    def start(self, mutual):
        args = ["--tls_cert", os.path.join(self.dir, "server.pem"),
                "--tls_key", os.path.join(self.dir, "server.key")]
        if mutual:
            args += ["--tls_ca", os.path.join(self.dir, "ca.pem")]
        return cluster.LocalCluster(testmain.granite(), workers=1, extra_args=args).start()

    def test_tls_port(self):
        c = self.start(mutual=False)
        try:
            with c.client(timeout=10) as plain:
                self.assertRaises(GraniteError, lambda: plain.query_text("SELECT 1"))
            with c.client(timeout=TIMEOUT, secure=True,
                          root_certificates=self.read("ca.pem")) as secure:
                self.assertEqual(secure.query_text("SELECT 7").strip(), "7")
            out = subprocess.run(
                testmain.granite() + ["client", "--port", str(c.port), "--secure", "--ca",
                                      os.path.join(self.dir, "ca.pem"), "-q", "SELECT 8"],
                capture_output=True, text=True, timeout=TIMEOUT)
            self.assertEqual(out.stdout.strip(), "8", out.stderr)
        finally:
            c.stop()

    def test_mutual_tls(self):
        c = self.start(mutual=True)
        try:
            with c.client(timeout=10, secure=True,
                          root_certificates=self.read("ca.pem")) as anonymous:
                self.assertRaises(GraniteError, lambda: anonymous.query_text("SELECT 1"))
            with c.client(timeout=TIMEOUT, secure=True, root_certificates=self.read("ca.pem"),
                          private_key=self.read("client.key"),
                          certificate_chain=self.read("client.pem")) as known:
                self.assertEqual(known.query_text("SELECT 9").strip(), "9")
        finally:
            c.stop()


class NetworkTest(unittest.TestCase):
    """Binds the coordinator to this machine's own non-loopback address."""

    def setUp(self):
        self.address = own_ipv4()
        if self.address is None:
            self.skipTest("no non-loopback IPv4 address")

    def test_refuses_non_loopback_without_users_file(self):
        data = tempfile.mkdtemp(prefix="granite-security-")
        try:
            out = subprocess.run(
                testmain.granite() + ["local", "--workers", "1", "--data", data, "--port", "0",
                                      "--host", self.address],
                capture_output=True, text=True, timeout=TIMEOUT)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("without --users_file", out.stderr)
        finally:
            shutil.rmtree(data, ignore_errors=True)

    def test_passwordless_user_only_from_loopback(self):
        directory = tempfile.mkdtemp(prefix="granite-security-")
        users = os.path.join(directory, "users.txt")
        with open(users, "w") as f:
            f.write(USERS_FILE)
        c = cluster.LocalCluster(testmain.granite(), workers=1,
                                 extra_args=["--users_file", users, "--host", self.address])
        try:
            c.start()
            with granite_client.connect(self.address, c.port, timeout=TIMEOUT) as anonymous:
                self.assertEqual(error_code(lambda: anonymous.query_text("SELECT 1")), 516)
            with granite_client.connect(self.address, c.port, user_name="alice",
                                        password=ALICE_PASSWORD, timeout=TIMEOUT) as alice:
                self.assertEqual(alice.query_text("SELECT 5").strip(), "5")
        finally:
            c.stop()
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    testmain.main([UsersTest, AccessTest, TlsTest, NetworkTest])
