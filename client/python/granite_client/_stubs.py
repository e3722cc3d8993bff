"""Imports the generated protocol modules, generating them first when they are missing or stale."""

from . import _codegen

_codegen.generate_if_stale()

from ._generated import clickhouse_grpc_pb2 as pb2  # noqa: E402
from ._generated import clickhouse_grpc_pb2_grpc as pb2_grpc  # noqa: E402

__all__ = ["pb2", "pb2_grpc"]
