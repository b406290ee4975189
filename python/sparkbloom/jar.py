"""Where the bundled JVM extension jar is."""

from __future__ import annotations

from pathlib import Path

_JARS_DIR = Path(__file__).resolve().parent / "jars"


def jar_path() -> str:
    """Absolute path of the sparkbloom jar bundled inside this package.

    Raises:
        FileNotFoundError: the package was installed without its jar (a source checkout
            where ``dev/setup`` has not run yet).
    """
    jars = sorted(_JARS_DIR.glob("sparkbloom_2.13-*.jar"))
    if not jars:
        raise FileNotFoundError(
            f"no sparkbloom jar in {_JARS_DIR}; in a source checkout run dev/setup to build it"
        )
    if len(jars) > 1:
        raise RuntimeError(f"more than one sparkbloom jar in {_JARS_DIR}: {[j.name for j in jars]}")
    return str(jars[0])
