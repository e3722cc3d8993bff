"""Decides whether granite's result of a query equals the reference engine's (chdb's).

Values: integers and strings must be equal exactly (strings as bytes, after TabSeparated
unescaping); floats within a relative 1e-9 (absolute 1e-12 near zero). Column kinds come from the
reference's TSVWithNamesAndTypes header.

Row order, by the query's shape:
  - no ORDER BY, no LIMIT: the two results are compared as multisets;
  - no ORDER BY, LIMIT n [OFFSET m]: any rows of the full result may be returned, so granite's rows
    must be a sub-multiset of the reference's result without LIMIT, and there must be
    min(n, max(0, total - m)) of them;
  - ORDER BY ... [LIMIT n [OFFSET m]]: if granite's rows equal the reference's in order, the query
    passes. Otherwise rows that tie on the ORDER BY keys may legitimately come in another order or,
    at the edges of the LIMIT window, be other members of the tie group. The reference then runs the
    query without LIMIT/OFFSET with the ORDER BY expressions appended to the select list; with W
    the window of that result, granite must return len(W) rows: every row of each tie group (rows
    with equal keys) that lies wholly inside W, the rest drawn from the full tie groups that the
    window's edges cut (at most the first and the last key's groups). In addition granite's rows must be sorted by every leading ORDER BY
    key that is also an output column (by alias, by expression text, or by name under SELECT *).
"""

import re

REL_TOL = 1e-9
ABS_TOL = 1e-12

_ESCAPES = {ord("b"): b"\b", ord("f"): b"\f", ord("r"): b"\r", ord("n"): b"\n", ord("t"): b"\t",
            ord("0"): b"\0", ord("a"): b"\a", ord("v"): b"\v", ord("e"): b"\x1b"}


def unescape(field):
    """Decodes ClickHouse TabSeparated escapes of one field (bytes)."""
    if b"\\" not in field:
        return field
    out = bytearray()
    i = 0
    n = len(field)
    while i < n:
        c = field[i]
        if c == 0x5C and i + 1 < n:
            nxt = field[i + 1]
            if nxt in _ESCAPES:
                out += _ESCAPES[nxt]
            elif nxt == ord("x") and i + 3 < n:
                out.append(int(field[i + 2:i + 4], 16))
                i += 2
            else:
                out.append(nxt)  # \\ \' \" \/ and any other character stand for themselves
            i += 2
        else:
            out.append(c)
            i += 1
    return bytes(out)


def parse_tsv(data, header_lines=0):
    """Splits TabSeparated output into (header rows, data rows), each a list of unescaped bytes."""
    if not data:
        return [], []
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    rows = [[unescape(f) for f in line.split(b"\t")] for line in lines]
    return rows[:header_lines], rows[header_lines:]


def kind_of(type_name):
    """Maps a ClickHouse type name to 'int', 'float' or 'str' (how values compare)."""
    t = type_name
    while t.startswith(("Nullable(", "LowCardinality(")):
        t = t[t.index("(") + 1:-1]
    if t.startswith(("Int", "UInt")):
        return "int"
    if t.startswith(("Float", "Decimal")):
        return "float"
    return "str"


def typed(rows, kinds, who):
    """Converts raw rows to typed tuples; raises ValueError naming the bad value."""
    out = []
    for r, row in enumerate(rows):
        if len(row) != len(kinds):
            raise ValueError("%s row %d has %d columns, expected %d" % (who, r + 1, len(row),
                                                                       len(kinds)))
        values = []
        for c, (kind, raw) in enumerate(zip(kinds, row)):
            try:
                if kind == "int":
                    values.append(int(raw))
                elif kind == "float":
                    values.append(float(raw))
                else:
                    values.append(raw)
            except ValueError:
                raise ValueError("%s row %d column %d: cannot read %r as %s" % (
                    who, r + 1, c + 1, raw.decode("utf-8", "replace")[:60], kind)) from None
        out.append(tuple(values))
    return out


def value_equal(a, b, kind):
    if kind != "float":
        return a == b
    if a == b or (a != a and b != b):
        return True
    if abs(a) == float("inf") or abs(b) == float("inf"):
        return False  # an infinity equals only itself (the tolerance below would be infinite)
    return abs(a - b) <= max(ABS_TOL, REL_TOL * max(abs(a), abs(b)))


def row_equal(a, b, kinds):
    return all(value_equal(x, y, k) for x, y, k in zip(a, b, kinds))


def multiset_diff(expected, actual, kinds):
    """Returns (missing, unexpected): rows of `expected` not matched in `actual` and vice versa.

    Rows are grouped by their non-float values; floats are matched within the tolerance. Rows
    equal to the digit are paired first: pairing by tolerance alone, in the order the rows come,
    could give a row the partner of another one close to both (715827882.0 taking
    715827881.33's partner) and report a difference that depends on the engines' row order.
    """
    exact_cols = [i for i, k in enumerate(kinds) if k != "float"]
    groups = {}
    for row in expected:
        groups.setdefault(tuple(row[i] for i in exact_cols), []).append(row)
    same = lambda a, b: all(x == y or (x != x and y != y) for x, y in zip(a, b))
    left = []
    for row in actual:  # equal rows first
        candidates = groups.get(tuple(row[i] for i in exact_cols))
        match = next((j for j, cand in enumerate(candidates or []) if same(cand, row)), None)
        if match is None:
            left.append(row)
        else:
            candidates.pop(match)
    unexpected = []
    for row in left:  # then within the tolerance
        candidates = groups.get(tuple(row[i] for i in exact_cols))
        match = next((j for j, cand in enumerate(candidates or []) if row_equal(cand, row, kinds)),
                     None)
        if match is None:
            unexpected.append(row)
        else:
            candidates.pop(match)
    missing = [row for rows in groups.values() for row in rows]
    return missing, unexpected


class QueryShape:
    """The clauses of one single-table SELECT that the comparison needs.

    select_items: [(expression, alias or None)]; order_keys: [(expression, descending)];
    limit / offset: ints or None; body: the query from FROM up to (not including) LIMIT.
    """

    def __init__(self, sql):
        self.sql = sql.strip().rstrip(";").strip()
        positions = _top_level_keywords(self.sql)
        select = positions.get("SELECT")
        frm = positions.get("FROM")
        if select is None or frm is None:
            raise ValueError("not a SELECT ... FROM query: %s" % sql[:80])
        self.select_list = self.sql[select + 6:frm].strip()
        self.select_items = [_split_alias(item) for item in _split_top_level(self.select_list)]
        order = positions.get("ORDER BY")
        limit = positions.get("LIMIT")
        end = limit if limit is not None else len(self.sql)
        self.body = self.sql[frm:end].strip()
        self.order_keys = []
        if order is not None:
            start = order + re.match(r"(?i)ORDER\s+BY", self.sql[order:]).end()
            for item in _split_top_level(self.sql[start:end]):
                m = re.match(r"(?is)^(.*?)\s+(ASC|DESC)$", item.strip())
                if m:
                    self.order_keys.append((m.group(1).strip(), m.group(2).upper() == "DESC"))
                else:
                    self.order_keys.append((item.strip(), False))
        self.limit = self.offset = None
        if limit is not None:
            m = re.match(r"(?is)^LIMIT\s+(\d+)(?:\s+OFFSET\s+(\d+))?\s*$", self.sql[limit:])
            if not m:
                raise ValueError("cannot read the LIMIT clause of: %s" % sql[:80])
            self.limit = int(m.group(1))
            self.offset = int(m.group(2) or 0)

    def without_limit(self):
        return "SELECT %s %s" % (self.select_list, self.body)

    def with_keys(self):
        """The query without LIMIT, with the ORDER BY expressions appended as extra columns."""
        extra = ", ".join("%s AS __order_key_%d" % (expr, i)
                          for i, (expr, _) in enumerate(self.order_keys))
        return "SELECT %s, %s %s" % (self.select_list, extra, self.body)

    def key_columns(self, names):
        """Returns the output column index of each leading ORDER BY key found in the output."""
        found = []
        for expr, desc in self.order_keys:
            index = None
            norm = _norm(expr)
            for i, (item, alias) in enumerate(self.select_items):
                if item == "*":
                    continue
                if (alias and alias == expr) or _norm(item) == norm:
                    index = i
                    break
            if index is None and self.select_list == "*" and expr in names:
                index = names.index(expr)
            if index is None:
                break
            found.append((index, desc))
        return found


def _norm(expr):
    return re.sub(r"\s+", "", expr).lower()


def _scan(sql):
    """Yields (position, char, depth) for characters outside quotes."""
    depth = 0
    quote = None
    i = 0
    while i < len(sql):
        c = sql[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
        else:
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            yield i, c, depth
        i += 1


def _top_level_keywords(sql):
    found = {}
    upper = sql.upper()
    for i, c, depth in _scan(sql):
        if depth != 0 or (i > 0 and (sql[i - 1].isalnum() or sql[i - 1] == "_")):
            continue
        for kw, pattern in (("SELECT", r"SELECT\b"), ("FROM", r"FROM\b"),
                            ("ORDER BY", r"ORDER\s+BY\b"), ("LIMIT", r"LIMIT\b")):
            if kw not in found and re.match(pattern, upper[i:]):
                found[kw] = i
    return found


def _split_top_level(text):
    parts, start = [], 0
    for i, c, depth in _scan(text):
        if c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _split_alias(item):
    m = re.match(r"(?is)^(.*\S)\s+AS\s+([A-Za-z_][A-Za-z0-9_]*)$", item)
    if m and _balanced(m.group(1)):
        return m.group(1).strip(), m.group(2)
    return item.strip(), None


def _balanced(text):
    return all(depth >= 0 for _, _, depth in _scan(text)) and text.count("(") == text.count(")")


def _show(row, limit=160):
    text = "\t".join(v.decode("utf-8", "replace") if isinstance(v, bytes) else repr(v)
                     for v in row)
    return text if len(text) <= limit else text[:limit] + "..."


def _diff_text(missing, unexpected, n=3):
    lines = []
    if missing:
        lines.append("%d expected row(s) missing, e.g.:" % len(missing))
        lines += ["    - " + _show(r) for r in missing[:n]]
    if unexpected:
        lines.append("%d unexpected row(s), e.g.:" % len(unexpected))
        lines += ["    + " + _show(r) for r in unexpected[:n]]
    return "\n  ".join(lines)


def _sorted_violation(rows, key_cols):
    for r in range(1, len(rows)):
        for index, desc in key_cols:
            a, b = rows[r - 1][index], rows[r][index]
            if a == b:
                continue
            if (a > b) != desc:
                return "rows %d and %d are not in ORDER BY order (column %d: %r then %r)" % (
                    r, r + 1, index + 1, a, b)
            break
    return None


def compare(shape, kinds, names, granite_rows, reference_rows, fetch_keyed, fetch_full):
    """Returns None when granite's typed rows are a correct answer, else a description.

    kinds/names: of the output columns. reference_rows: the reference's typed rows for the query.
    fetch_keyed(): typed rows of shape.with_keys() (output columns then one per ORDER BY key).
    fetch_full(): typed rows of shape.without_limit().
    """
    if not shape.order_keys:
        if shape.limit is None:
            missing, unexpected = multiset_diff(reference_rows, granite_rows, kinds)
            return _diff_text(missing, unexpected) or None
        full = fetch_full()
        want = min(shape.limit, max(0, len(full) - shape.offset))
        _, unexpected = multiset_diff(full, granite_rows, kinds)
        problems = []
        if len(granite_rows) != want:
            problems.append("%d rows, expected %d" % (len(granite_rows), want))
        if unexpected:
            problems.append(_diff_text([], unexpected))
        return "; ".join(problems) or None

    if len(granite_rows) == len(reference_rows) and all(
            row_equal(a, b, kinds) for a, b in zip(reference_rows, granite_rows)):
        return None
    width = len(kinds)
    keyed = fetch_keyed()
    offset = shape.offset or 0
    end = len(keyed) if shape.limit is None else offset + shape.limit
    window = keyed[offset:end]
    problems = []
    if len(granite_rows) != len(window):
        problems.append("%d rows, expected %d" % (len(granite_rows), len(window)))
    if window:
        # Tie groups wholly inside the window must be returned whole; a group cut by the
        # window's edge (only the first and the last key can be) may contribute any members.
        span = {}
        for pos, r in enumerate(keyed):
            lo, hi = span.get(r[width:], (pos, pos))
            span[r[width:]] = (min(lo, pos), max(hi, pos))
        end = offset + len(window)
        cut = {k for k, (lo, hi) in span.items() if lo < end and hi >= offset
               and (lo < offset or hi >= end)}
        inner = [r[:width] for r in window if r[width:] not in cut]
        pool = [r[:width] for r in keyed if r[width:] in cut]
        missing, rest = multiset_diff(inner, granite_rows, kinds)
        _, unexpected = multiset_diff(pool, rest, kinds)
        diff = _diff_text(missing, unexpected)
        if diff:
            problems.append(diff)
    elif granite_rows:
        problems.append(_diff_text([], granite_rows))
    violation = _sorted_violation(granite_rows, shape.key_columns(names))
    if violation:
        problems.append(violation)
    return "\n  ".join(problems) or None
