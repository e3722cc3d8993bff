#!/usr/bin/env python3
"""Unit tests of the comparison rules of compare.py (no engine needed)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engines  # noqa: E402
import result_check as rc  # noqa: E402


def rows(*tuples):
    return [tuple(t) for t in tuples]


class ParsingTest(unittest.TestCase):
    def test_unescape(self):
        self.assertEqual(rc.unescape(b"a\\tb\\nc\\\\d\\'e\\x41"), b"a\tb\nc\\d'eA")
        _, data = rc.parse_tsv(b"1\ta\\tb\n2\t\n")
        self.assertEqual(data, [[b"1", b"a\tb"], [b"2", b""]])

    def test_typed_rejects_bad_values(self):
        with self.assertRaisesRegex(ValueError, "row 2 column 1"):
            rc.typed([[b"1"], [b"x"]], ["int"], "granite")
        with self.assertRaisesRegex(ValueError, "2 columns, expected 1"):
            rc.typed([[b"1", b"2"]], ["int"], "granite")

    def test_kinds(self):
        self.assertEqual([rc.kind_of(t) for t in ("UInt64", "Int16", "Float64", "String",
                                                  "DateTime", "Nullable(Float32)")],
                         ["int", "int", "float", "str", "str", "float"])

    def test_shape(self):
        s = rc.QueryShape("SELECT a, COUNT(*) AS c, extract(minute FROM t) AS m FROM hits "
                          "WHERE x <> '' GROUP BY a ORDER BY c DESC, a LIMIT 10 OFFSET 5;")
        self.assertEqual(s.select_items[1], ("COUNT(*)", "c"))
        self.assertEqual(s.order_keys, [("c", True), ("a", False)])
        self.assertEqual((s.limit, s.offset), (10, 5))
        self.assertEqual(s.without_limit(), "SELECT a, COUNT(*) AS c, extract(minute FROM t) AS m "
                         "FROM hits WHERE x <> '' GROUP BY a ORDER BY c DESC, a")
        self.assertIn("c AS __order_key_0, a AS __order_key_1 FROM", s.with_keys())
        self.assertEqual(s.key_columns(["a", "c", "m"]), [(1, True), (0, False)])
        star = rc.QueryShape("SELECT * FROM hits ORDER BY EventTime LIMIT 10")
        self.assertEqual(star.key_columns(["x", "EventTime"]), [(1, False)])
        hidden = rc.QueryShape("SELECT p FROM hits ORDER BY t, p LIMIT 10")
        self.assertEqual(hidden.key_columns(["p"]), [])  # leading key not in the output

    def test_strip_statement(self):
        self.assertEqual(engines.strip_statement("CREATE x (a Int8) -- c;\n;  -- tail; x\n"),
                         "CREATE x (a Int8) -- c;")
        self.assertEqual(engines.strip_statement("SELECT ';'"), "SELECT ';'")


class CompareTest(unittest.TestCase):
    def never(self):
        raise AssertionError("not needed")

    def check(self, sql, kinds, granite, reference, keyed=None, full=None, names=None):
        shape = rc.QueryShape(sql)
        names = names or ["c%d" % i for i in range(len(kinds))]
        return rc.compare(shape, kinds, names, granite, reference,
                          (lambda: keyed) if keyed is not None else self.never,
                          (lambda: full) if full is not None else self.never)

    def test_unordered_multiset(self):
        sql = "SELECT a, b FROM t GROUP BY a, b"
        ref = rows((1, b"x"), (2, b"y"), (2, b"y"))
        self.assertIsNone(self.check(sql, ["int", "str"], rows((2, b"y"), (1, b"x"), (2, b"y")),
                                     ref))
        problem = self.check(sql, ["int", "str"], rows((2, b"y"), (1, b"x"), (1, b"x")), ref)
        self.assertIn("1 expected row(s) missing", problem)
        self.assertIn("1 unexpected row(s)", problem)

    def test_float_tolerance(self):
        sql = "SELECT AVG(x) FROM t"
        self.assertIsNone(self.check(sql, ["float"], rows((1513.4879000000001,)),
                                     rows((1513.4879,))))
        self.assertIsNotNone(self.check(sql, ["float"], rows((1513.48791,)), rows((1513.4879,))))
        self.assertIsNone(self.check(sql, ["float"], rows((0.0,)), rows((1e-15,))))
        # An infinity equals only itself: the relative tolerance of inf is infinite.
        inf = float("inf")
        self.assertIsNone(self.check(sql, ["float"], rows((inf,)), rows((inf,))))
        self.assertIsNotNone(self.check(sql, ["float"], rows((-inf,)), rows((0.0,))))
        self.assertIsNotNone(self.check(sql, ["float"], rows((1e30,)), rows((inf,))))

    def test_limit_without_order_accepts_any_rows(self):
        sql = "SELECT a FROM t GROUP BY a LIMIT 2"
        full = rows((1,), (2,), (3,))
        self.assertIsNone(self.check(sql, ["int"], rows((3,), (1,)), rows((1,), (2,)), full=full))
        self.assertIn("1 rows, expected 2",
                      self.check(sql, ["int"], rows((3,)), rows((1,), (2,)), full=full))
        self.assertIn("unexpected",
                      self.check(sql, ["int"], rows((3,), (4,)), rows((1,), (2,)), full=full))

    def test_ties_at_the_limit_boundary(self):
        sql = "SELECT k, COUNT(*) AS c FROM t GROUP BY k ORDER BY c DESC LIMIT 3"
        kinds = ["str", "int"]
        ref = rows((b"a", 9), (b"b", 5), (b"c", 5))
        # Full result with the key (c) appended: d also has 5, so b/c/d tie at the boundary.
        keyed = rows((b"a", 9, 9), (b"b", 5, 5), (b"c", 5, 5), (b"d", 5, 5), (b"e", 1, 1))
        self.assertIsNone(self.check(sql, kinds, rows((b"a", 9), (b"d", 5), (b"b", 5)), ref,
                                     keyed=keyed))
        # Leaving out the strictly-inside row a is wrong.
        problem = self.check(sql, kinds, rows((b"b", 5), (b"c", 5), (b"d", 5)), ref, keyed=keyed)
        self.assertIn("missing", problem)
        # A row from outside the tie group is wrong.
        self.assertIn("unexpected", self.check(sql, kinds, rows((b"a", 9), (b"b", 5), (b"e", 1)),
                                               ref, keyed=keyed))
        # Right rows in the wrong order of the visible key are wrong.
        self.assertIn("not in ORDER BY order",
                      self.check(sql, kinds, rows((b"b", 5), (b"a", 9), (b"c", 5)), ref,
                                 keyed=keyed))

    def test_offset_window(self):
        sql = "SELECT k, COUNT(*) AS c FROM t GROUP BY k ORDER BY c DESC LIMIT 2 OFFSET 1"
        kinds = ["str", "int"]
        keyed = rows((b"a", 9, 9), (b"b", 7, 7), (b"c", 5, 5), (b"d", 5, 5))
        ref = rows((b"b", 7), (b"c", 5))
        self.assertIsNone(self.check(sql, kinds, rows((b"b", 7), (b"d", 5)), ref, keyed=keyed))
        self.assertIsNotNone(self.check(sql, kinds, rows((b"a", 9), (b"b", 7)), ref, keyed=keyed))

    def test_empty_results(self):
        sql = "SELECT k FROM t ORDER BY k LIMIT 10 OFFSET 1000"
        self.assertIsNone(self.check(sql, ["int"], [], [], keyed=rows((1, 1))))
        self.assertIn("1 rows, expected 0",
                      self.check(sql, ["int"], rows((1,)), [], keyed=rows((1, 1))))


class MultisetTest(unittest.TestCase):
    def test_equal_floats_pair_first_whatever_the_order(self):
        # 715827882.0 is within the tolerance of 715827881.33 and of 715827882.33: paired by
        # tolerance in row order it took the first one's partner and left a false difference.
        kinds = ["int", "float"]
        expected = rows((1, 715827881.3333334), (1, 715827882.0), (1, 715827882.3333334))
        for actual in (list(expected), list(reversed(expected)),
                       rows((1, 715827882.0), (1, 715827882.3333334), (1, 715827881.3333334))):
            self.assertEqual(rc.multiset_diff(expected, actual, kinds), ([], []))
        # A real difference is still one.
        missing, unexpected = rc.multiset_diff(expected, rows((1, 715827881.3333334),
                                                              (1, 715827882.0), (1, 5.0)), kinds)
        self.assertEqual((missing, unexpected), ([(1, 715827882.3333334)], [(1, 5.0)]))


if __name__ == "__main__":
    unittest.main()
