#!/usr/bin/env python3
"""Issue 24: the granite_client package's SQLAlchemy dialect against granite local (1 worker):
create_engine("granite://user:@host:port/db"), engine.connect().execute(text(...)) with bound
parameters (one set and many), table reflection through system.tables / system.columns (names,
types, nullability, the sorting key as primary key), a SELECT built from the reflected table, and
errors surfacing as SQLAlchemy's DBAPIError with the ClickHouse code. Skipped without SQLAlchemy
(scripts/make-venv.sh installs it). The entry point that makes "granite://" work after
`pip install` is checked by python_client_test.py's clean install.
"""

import datetime
import decimal
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "harness"))
import cluster  # noqa: E402
import testmain  # noqa: E402


class SqlAlchemyDialectTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            import sqlalchemy
        except ImportError:
            raise unittest.SkipTest("SQLAlchemy is not installed (scripts/make-venv.sh)")
        from granite_client import sqlalchemy_dialect
        sqlalchemy_dialect.register()  # the venv's editable install may predate the entry point
        cls.sa = sqlalchemy
        cls.cluster = cluster.LocalCluster(testmain.granite(), workers=1).start()
        cls.engine = sqlalchemy.create_engine(
            "granite://default:@%s:%d/default" % (cls.cluster.host, cls.cluster.port))

    @classmethod
    def tearDownClass(cls):
        cls.engine.dispose()
        cls.cluster.stop()

    def test_text_queries_reflection_and_select(self):
        text = self.sa.text
        with self.engine.connect() as conn:
            conn.execute(text("CREATE TABLE people (id UInt32, name Nullable(String), "
                              "score Decimal(10, 2), born Date, seen DateTime, w Float64) "
                              "ENGINE = MergeTree ORDER BY id"))
            insert = text("INSERT INTO people VALUES (:id, :name, :score, :born, :seen, :w)")
            conn.execute(insert, {"id": 1, "name": "Ann", "score": decimal.Decimal("9.50"),
                                  "born": datetime.date(1990, 5, 6),
                                  "seen": datetime.datetime(2024, 1, 2, 3, 4, 5), "w": 0.5})
            conn.execute(insert, [
                {"id": 2, "name": None, "score": decimal.Decimal("-1.25"),
                 "born": datetime.date(2000, 1, 1), "seen": datetime.datetime(2024, 1, 1),
                 "w": 1.5},
                {"id": 3, "name": "O'Brien", "score": decimal.Decimal("0"),
                 "born": datetime.date(2010, 12, 31), "seen": datetime.datetime(1970, 1, 1),
                 "w": -2.0}])
            rows = conn.execute(text("SELECT id, name, score FROM people WHERE id >= :low "
                                     "ORDER BY id"), {"low": 2}).fetchall()
            self.assertEqual([tuple(r) for r in rows],
                             [(2, None, decimal.Decimal("-1.25")),
                              (3, "O'Brien", decimal.Decimal("0.00"))])
            self.assertEqual(conn.execute(text("SELECT sum(number) FROM numbers(:n)"),
                                          {"n": 10}).scalar(), 45)

        inspector = self.sa.inspect(self.engine)
        self.assertIn("people", inspector.get_table_names())
        self.assertTrue(inspector.has_table("people"))
        self.assertFalse(inspector.has_table("nobody"))
        table = self.sa.Table("people", self.sa.MetaData(), autoload_with=self.engine)
        columns = {c.name: c for c in table.columns}
        self.assertEqual(list(columns), ["id", "name", "score", "born", "seen", "w"])
        self.assertIsInstance(columns["id"].type, self.sa.Integer)
        self.assertIsInstance(columns["name"].type, self.sa.String)
        self.assertEqual((columns["score"].type.precision, columns["score"].type.scale), (10, 2))
        self.assertIsInstance(columns["born"].type, self.sa.Date)
        self.assertIsInstance(columns["seen"].type, self.sa.DateTime)
        self.assertEqual([c.name for c in table.columns if c.nullable], ["name"])
        self.assertEqual([c.name for c in table.primary_key.columns], ["id"])
        with self.assertRaises(self.sa.exc.NoSuchTableError):
            self.sa.Table("nobody", self.sa.MetaData(), autoload_with=self.engine)

        with self.engine.connect() as conn:
            query = self.sa.select(table.c.id, table.c.born).where(
                table.c.name.is_not(None)).order_by(table.c.id.desc())
            self.assertEqual([tuple(r) for r in conn.execute(query)],
                             [(3, datetime.date(2010, 12, 31)), (1, datetime.date(1990, 5, 6))])
            count = conn.execute(self.sa.select(self.sa.func.count()).select_from(table))
            self.assertEqual(count.scalar(), 3)

    def test_errors_carry_the_clickhouse_code(self):
        with self.engine.connect() as conn:
            with self.assertRaises(self.sa.exc.DBAPIError) as failure:
                conn.execute(self.sa.text("SELECT * FROM no_such_table"))
            self.assertEqual(failure.exception.orig.code, 60)
            self.assertEqual(conn.execute(self.sa.text("SELECT 1")).scalar(), 1)


if __name__ == "__main__":
    testmain.main([SqlAlchemyDialectTest])
