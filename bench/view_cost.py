#!/usr/bin/env python3
"""Per-delivery cost of the guard's workspace views, from the traces of a run.

Usage: bench/view_cost.py RUN_DIR [RUN_DIR...]

A delivery spans from its `delivery` trace line to its `reply` line; inside it the
runner builds the turn's view (`workspace_view`, latency_us) and absorbs the turn's
writes (`workspace_writes`, latency_us). The turn without views is the span minus
both, measured in the same delivery, so the ratio does not depend on the machine's
load. Prints, per run: deliveries, median and p90 span, median view + absorb time, and
the median ratio span / (span - views).
"""

import json
import statistics
import sys
from pathlib import Path


def deliveries(trace_path):
    """(span_ms, views_ms) for each delivery of one trace."""
    out = []
    start = None
    views = 0.0
    for line in trace_path.read_text().splitlines():
        event = json.loads(line)
        kind = event.get("type")
        if kind == "delivery":
            start, views = event["ms"], 0.0
        elif kind in ("workspace_view", "workspace_writes") and start is not None:
            views += event.get("latency_us", 0) / 1000.0
        elif kind == "reply" and start is not None:
            out.append((event["ms"] - start, views))
            start = None
    return out


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(runs):
    for run in runs:
        rows = []
        for trace in sorted(Path(run).glob("trials/*/hidden/trace.jsonl")):
            rows.extend(deliveries(trace))
        if not rows:
            print(f"{run}: no deliveries")
            continue
        spans = [s for s, _ in rows]
        views = [v for _, v in rows]
        ratios = [s / (s - v) for s, v in rows if s - v > 0]
        print(
            f"{run}: {len(rows)} deliveries; span median {statistics.median(spans):.0f} ms, "
            f"p90 {quantile(spans, 0.9):.0f} ms; views median {statistics.median(views):.2f} ms, "
            f"p90 {quantile(views, 0.9):.2f} ms; ratio with/without views median "
            f"{statistics.median(ratios):.4f}"
        )


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
