# Generates the gRPC stubs from proto/clickhouse/grpc/clickhouse_grpc.proto before setuptools collects
# the packages, so both regular and editable installs carry granite_client._generated. The stubs are
# never committed (see .gitignore); granite_client._stubs regenerates them at import time if missing.
import importlib.util
import os

from setuptools import find_packages, setup

_here = os.path.dirname(os.path.abspath(__file__))
# Loads _codegen by path: importing the package itself would import grpc and the stubs.
_spec = importlib.util.spec_from_file_location(
    "granite_codegen", os.path.join(_here, "granite_client", "_codegen.py"))
_codegen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_codegen)
_codegen.generate_if_stale()

setup(packages=find_packages(where=_here, include=["granite_client", "granite_client.*"]))
