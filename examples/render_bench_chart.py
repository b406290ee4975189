# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 the sparkbloom authors
"""Renders bench/results/lookup.json (written by bench/lookup.py) to a PNG chart.

    python examples/render_bench_chart.py [output_dir]

Writes lookup.png into output_dir (default: bench/results), the chart the README shows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LABELS = {
    "a_none": "(a) no filters",
    "b_pj_default": "(b) parquet-java default",
    "c_pj_ndv": "(c) parquet-java ndv-tuned",
    "d_pj_adaptive": "(d) parquet-java adaptive",
    "e_sparkbloom": "(e) sparkbloom",
    "f_sparkbloom_files_extension_off": "(f) sparkbloom's files, extension off",
}


def render(results_file: Path, out: Path) -> tuple[Path, list[str], int]:
    """One panel per table shape (small and large row groups), seconds on a log scale.
    Returns the chart's file, its panels' shapes and how many bars it drew."""
    data = json.loads(results_file.read_text())
    shapes = data["shapes"]
    fig, axes = plt.subplots(len(shapes), 1, figsize=(13, 5 * len(shapes)), squeeze=False)
    bars = 0
    for ax, (shape, results) in zip(axes[:, 0], shapes.items()):
        layouts = [name for name in LABELS if name in results]
        queries = list(results[layouts[0]])
        width = 0.8 / len(layouts)
        for i, layout in enumerate(layouts):
            xs = [q + i * width for q in range(len(queries))]
            ax.bar(xs, [results[layout][q]["seconds"] for q in queries], width, label=LABELS[layout])
            bars += len(queries)
        ax.set_xticks([q + 0.4 - width / 2 for q in range(len(queries))])
        ax.set_xticklabels(queries, rotation=15, ha="right")
        ax.set_yscale("log")
        ax.set_ylabel("seconds, median of warm runs (log)")
        files = data["files"] if shape == "small" else data.get("large_files", "?")
        ax.set_title(f"{data['rows']:,} rows in {files} files ({shape} row groups)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    target = out / "lookup.png"
    fig.savefig(target, dpi=90)
    return target, list(shapes), bars


def main(out_dir: str | None) -> None:
    results_file = ROOT / "bench" / "results" / "lookup.json"
    if not results_file.exists():
        raise SystemExit(f"no benchmark results at {results_file}: run bench/lookup.py first")
    target, shapes, bars = render(results_file, Path(out_dir) if out_dir else ROOT / "bench" / "results")
    print(f"sparkbloom benchmark chart written to {target}: {len(shapes)} panels ({', '.join(shapes)}), {bars} bars")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
