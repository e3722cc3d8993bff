# Installs granite_client. The gRPC stubs are generated from proto/clickhouse/grpc/
# clickhouse_grpc.proto (found at $GRANITE_PROTO_DIR or three folders up, in the repository) into
# the build folder, and setuptools' build and egg-info folders are temporary: `pip install
# client/python` writes nothing into the source tree. The stubs are never committed (see
# .gitignore); an editable install generates them at import time (granite_client._stubs).
import atexit
import importlib.util
import os
import shutil
import tempfile

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

_here = os.path.dirname(os.path.abspath(__file__))
# Loads _codegen by path: importing the package itself would import grpc and the stubs.
_spec = importlib.util.spec_from_file_location(
    "granite_codegen", os.path.join(_here, "granite_client", "_codegen.py"))
_codegen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_codegen)

_scratch = tempfile.mkdtemp(prefix="granite-client-build-")
atexit.register(shutil.rmtree, _scratch, True)


class BuildWithStubs(build_py):
    """Copies the package, then generates the stubs next to it in the build folder."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        proto = _codegen.find_proto()
        target = os.path.join(self.build_lib, "granite_client", "_generated")
        if proto is not None:
            _codegen.generate_into(proto, target)
        elif not _codegen.is_generated():
            raise RuntimeError("granite_client: clickhouse_grpc.proto not found; set "
                               "GRANITE_PROTO_DIR to the repository's proto/ folder")


setup(packages=find_packages(where=_here, include=["granite_client", "granite_client.*"]),
      cmdclass={"build_py": BuildWithStubs},
      options={"build": {"build_base": os.path.join(_scratch, "build")},
               "egg_info": {"egg_base": _scratch}})
