# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""The table index under concurrent writers, across processes and threads: one process appends
through sparkbloom (each append refreshes in the background) while two others refresh the index
from several threads, one of them rebuilding it once with a short retention, and a thread of
each looks keys up all along; on a local disk and on the S3 server at once
(tests/index_writers_job.py). Afterwards: every lookup was right, no refresh or write failed,
one last refresh covers every file and describe_index agrees with the files.

Randomized: the seed is printed (SPARKBLOOM_SEED repeats a run). SPARKBLOOM_INDEX_WRITER_ROUNDS
sets the appends and the refreshes per thread (8). `dev/test --all` runs it (the default tier
leaves it out: three JVMs, ~2.5 min on 2 cores)."""

from __future__ import annotations

import os
import random
import subprocess
import time
from pathlib import Path

import pytest
from s3_support import CURRENT_LINE, ROOT, child_command, line_python

pytestmark = pytest.mark.s3

ROUNDS = int(os.environ.get("SPARKBLOOM_INDEX_WRITER_ROUNDS", "8"))
JOB = ROOT / "tests" / "index_writers_job.py"


def test_index_under_concurrent_writers_and_refreshers(s3_env: dict[str, str], tmp_path: Path) -> None:
    seed = os.environ.get("SPARKBLOOM_SEED") or str(random.randrange(1 << 30))
    print(f"SPARKBLOOM_SEED={seed}")
    python = line_python(CURRENT_LINE)
    assert python is not None
    work = tmp_path / "markers"
    work.mkdir()
    tables = [str(tmp_path / "table"), f"s3a://{s3_env['SPARKBLOOM_S3_BUCKET']}/index-writers-{CURRENT_LINE}-{seed}"]
    common = [str(work), *tables, "--rounds", str(ROUNDS), "--seed", seed]
    roles = {
        "writer": ["writer", *common, "--refreshers", "2"],
        "refresher-0": ["refresher", *common, "--process", "0", "--threads", "2", "--rebuild"],
        "refresher-1": ["refresher", *common, "--process", "1", "--threads", "2"],
    }
    running: dict[str, tuple[subprocess.Popen[bytes], Path, Path]] = {}
    for name, args in roles.items():
        command, env = child_command(python, JOB, args, s3_env)
        out, err = tmp_path / f"{name}.out", tmp_path / f"{name}.err"
        with open(out, "wb") as o, open(err, "wb") as e:
            running[name] = (subprocess.Popen(command, env=env, stdout=o, stderr=e), out, err)

    def output(name: str) -> str:
        _, out, err = running[name]
        return f"--- {name} stdout\n{out.read_text()[-4000:]}\n--- {name} stderr\n{err.read_text()[-4000:]}"

    deadline = time.monotonic() + 1200
    try:
        while any(p.poll() is None for p, _, _ in running.values()):
            failed = [n for n, (p, _, _) in running.items() if p.poll() not in (None, 0)]
            assert not failed, "\n".join(output(n) for n in running)
            assert time.monotonic() < deadline, "timed out\n" + "\n".join(output(n) for n in running)
            time.sleep(1)
    finally:
        for p, _, _ in running.values():
            if p.poll() is None:
                p.kill()
    assert all(p.returncode == 0 for p, _, _ in running.values()), "\n".join(output(n) for n in running)
    outs = {name: out.read_text() for name, (_, out, _) in running.items()}
    errs = {name: err.read_text() for name, (_, _, err) in running.items()}
    # no background refresh after a write failed (they are logged, never raised)
    assert "could not refresh the index" not in errs["writer"], output("writer")
    assert not any("FAILED" in out for out in outs.values()), outs
    for name in ("refresher-0", "refresher-1"):
        lookups = int(next(line for line in outs[name].splitlines() if line.startswith("LOOKUPS")).split()[1])
        assert lookups > 0, outs[name]
    attempts = [int(line.split()[1]) for out in outs.values() for line in out.splitlines() if "MAX_ATTEMPTS" in line]
    print(f"most commit attempts of one build: {max(attempts)}")
    assert len(attempts) == 3 and min(attempts) >= 1, outs
    # S3A of this line creates each version with a conditional PUT where it can (Hadoop 3.4.2 on)
    conditional = next(line for line in outs["writer"].splitlines() if line.startswith("CONDITIONAL_CREATE"))
    assert conditional.split()[1] == ("false" if CURRENT_LINE in ("3.5", "4.0") else "true"), conditional
