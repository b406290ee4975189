# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Builds the package with one sparkbloom jar per supported Spark line inside it.

``pip install ./python`` from a source checkout builds missing jars with the repository's
``dev/build-jars`` (sbt, each line compiled against its own Spark, whose jars ``dev/setup``
installs); a package built without every jar would fail at run time on some Spark, so the
build fails instead. An editable install (dev/setup) takes the checkout's jars as they are.
"""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
JARS = HERE / "sparkbloom" / "jars"
BUILD_JARS = HERE.parent / "dev" / "build-jars"


def spark_lines() -> list[str]:
    """The lines jar.py declares (read, not imported: importing needs pyspark)."""
    module = ast.parse((HERE / "sparkbloom" / "jar.py").read_text())
    for node in module.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", None) == "SPARK_LINES":
            return list(ast.literal_eval(node.value))  # type: ignore[arg-type]
    raise SystemExit("sparkbloom/jar.py declares no SPARK_LINES")


def missing_jars() -> list[str]:
    return [line for line in spark_lines() if not list(JARS.glob(f"sparkbloom-spark{line}_*.jar"))]


class BuildPyWithJars(build_py):
    def run(self) -> None:
        # An editable install reads the jars from the checkout, where dev/setup builds them:
        # dev/setup --quickstart builds the newest line's only.
        if getattr(self, "editable_mode", False):
            super().run()
            return
        if missing_jars() and BUILD_JARS.exists():
            subprocess.run([str(BUILD_JARS)], check=True)
        missing = missing_jars()
        if missing:
            raise SystemExit(
                f"sparkbloom: no jar for Spark {', '.join(missing)} in {JARS}; "
                "build them in the source checkout with dev/setup"
            )
        super().run()


setup(cmdclass={"build_py": BuildPyWithJars})
