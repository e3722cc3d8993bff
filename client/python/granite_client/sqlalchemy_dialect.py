"""A small SQLAlchemy dialect over granite_client.dbapi: engines for granite://host:port/database
(the port is the gRPC client port, 9100 unless given; user and password from the URL).

    engine = sqlalchemy.create_engine("granite://default:@127.0.0.1:9100/default")
    with engine.connect() as conn:
        conn.execute(sqlalchemy.text("SELECT number FROM numbers(:n)"), {"n": 3}).fetchall()
    table = sqlalchemy.Table("t", sqlalchemy.MetaData(), autoload_with=engine)

It covers textual SQL with bound parameters (SQLAlchemy's :name becomes the DB-API's pyformat,
bound on the server: parameters.py) and reflection through system.tables and system.columns
(table names, columns with their types and nullability, the sorting key as the primary key). It
does not compile ClickHouse DDL or dialect-specific SQL. Registered as the "granite" dialect by
the package's entry point (pyproject.toml); without an install, call register() first.
Needs SQLAlchemy (1.4 or 2.x).
"""

import re

from sqlalchemy import types as sqltypes
from sqlalchemy.engine import default

_TYPES = {
    "UInt8": sqltypes.SmallInteger, "UInt16": sqltypes.Integer, "UInt32": sqltypes.BigInteger,
    "UInt64": sqltypes.BigInteger, "Int8": sqltypes.SmallInteger, "Int16": sqltypes.SmallInteger,
    "Int32": sqltypes.Integer, "Int64": sqltypes.BigInteger, "Float32": sqltypes.Float,
    "Float64": sqltypes.Float, "String": sqltypes.String, "Date": sqltypes.Date,
    "Date32": sqltypes.Date, "DateTime": sqltypes.DateTime, "Bool": sqltypes.Boolean,
}
_DECIMAL = re.compile(r"^Decimal\((\d+),\s*(\d+)\)$")


def register():
    """Registers the dialect under "granite" (the entry point does it for an installed package)."""
    from sqlalchemy.dialects import registry
    registry.register("granite", "granite_client.sqlalchemy_dialect", "GraniteDialect")


def column_type(type_name):
    """Returns (SQLAlchemy type, nullable) of a ClickHouse type name; NullType if unknown."""
    nullable = type_name.startswith("Nullable(") and type_name.endswith(")")
    inner = type_name[len("Nullable("):-1] if nullable else type_name
    m = _DECIMAL.match(inner)
    if m:
        return sqltypes.Numeric(int(m.group(1)), int(m.group(2))), nullable
    if inner.startswith("DateTime"):
        return sqltypes.DateTime(), nullable
    return _TYPES.get(inner, sqltypes.NullType)(), nullable


class GraniteDialect(default.DefaultDialect):
    """The "granite" dialect: granite_client.dbapi connections, reflection from system tables.

    Thread-safety: as any SQLAlchemy dialect (shared, stateless after initialize()).
    """

    name = "granite"
    driver = "granite_client"
    default_paramstyle = "pyformat"
    supports_statement_cache = True
    supports_native_decimal = True
    supports_native_boolean = False
    supports_sequences = False
    supports_alter = False
    postfetch_lastrowid = False
    returns_unicode_strings = True
    description_encoding = None
    default_schema_name = "default"
    max_identifier_length = 127

    @classmethod
    def import_dbapi(cls):  # SQLAlchemy 2.x
        from granite_client import dbapi
        return dbapi

    @classmethod
    def dbapi(cls):  # SQLAlchemy 1.4
        return cls.import_dbapi()

    def create_connect_args(self, url):
        kwargs = {"host": url.host or "127.0.0.1", "port": url.port or 9100,
                  "database": url.database or "", "user": url.username or "default",
                  "password": url.password or ""}
        kwargs.update(url.query)
        return [], kwargs

    # Transactions: granite has none; every statement takes effect when it succeeds.
    def do_rollback(self, dbapi_connection):
        pass

    def do_begin(self, dbapi_connection):
        pass

    def get_isolation_level(self, dbapi_connection):
        return "AUTOCOMMIT"

    def get_default_isolation_level(self, dbapi_connection):
        return "AUTOCOMMIT"

    def set_isolation_level(self, dbapi_connection, level):
        pass

    def _get_server_version_info(self, connection):
        version = self._scalar(connection, "SELECT version()")
        return tuple(int(p) for p in re.findall(r"\d+", version or "")[:4])

    def _get_default_schema_name(self, connection):
        return self._scalar(connection, "SELECT currentDatabase()")

    def do_ping(self, dbapi_connection):
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("SELECT 1")
            cursor.fetchall()
        finally:
            cursor.close()
        return True

    # Reflection.
    def _scalar(self, connection, sql, parameters=None):
        from sqlalchemy import text
        return connection.execute(text(sql), parameters or {}).scalar()

    def _rows(self, connection, sql, parameters):
        from sqlalchemy import text
        return connection.execute(text(sql), parameters).fetchall()

    def _database(self, connection, schema):
        return schema or self._get_default_schema_name(connection)

    def get_schema_names(self, connection, **kw):
        return [r[0] for r in self._rows(connection, "SELECT name FROM system.databases "
                                         "ORDER BY name", {})]

    def get_table_names(self, connection, schema=None, **kw):
        return self._names(connection, schema, "engine != 'View'")

    def get_view_names(self, connection, schema=None, **kw):
        return self._names(connection, schema, "engine = 'View'")

    def _names(self, connection, schema, condition):
        sql = ("SELECT name FROM system.tables WHERE database = :db AND %s ORDER BY name"
               % condition)
        return [r[0] for r in self._rows(connection, sql,
                                         {"db": self._database(connection, schema)})]

    def has_table(self, connection, table_name, schema=None, **kw):
        return bool(self._scalar(
            connection, "SELECT count() FROM system.tables WHERE database = :db AND name = :t",
            {"db": self._database(connection, schema), "t": table_name}))

    def _columns(self, connection, table_name, schema):
        rows = self._rows(
            connection, "SELECT name, type, default_expression, is_in_primary_key "
                        "FROM system.columns WHERE database = :db AND table = :t ORDER BY position",
            {"db": self._database(connection, schema), "t": table_name})
        if not rows and not self.has_table(connection, table_name, schema):
            from sqlalchemy.exc import NoSuchTableError
            raise NoSuchTableError(table_name)
        return rows

    def get_columns(self, connection, table_name, schema=None, **kw):
        out = []
        for name, type_name, default_expression, _ in self._columns(connection, table_name,
                                                                     schema):
            type_, nullable = column_type(type_name)
            out.append({"name": name, "type": type_, "nullable": nullable,
                        "default": default_expression or None, "autoincrement": False})
        return out

    def get_pk_constraint(self, connection, table_name, schema=None, **kw):
        rows = self._columns(connection, table_name, schema)
        return {"constrained_columns": [r[0] for r in rows if r[3]], "name": None}

    def get_foreign_keys(self, connection, table_name, schema=None, **kw):
        return []

    def get_indexes(self, connection, table_name, schema=None, **kw):
        return []

    def get_unique_constraints(self, connection, table_name, schema=None, **kw):
        return []

    def get_check_constraints(self, connection, table_name, schema=None, **kw):
        return []

    def get_table_comment(self, connection, table_name, schema=None, **kw):
        return {"text": None}
