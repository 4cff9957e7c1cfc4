#!/usr/bin/env python3
"""Per-delivery cost of each native harness over the built-in agent, from run folders.

Usage: bench/harness_speed.py BASELINE_RUN RUN [RUN...]

BASELINE_RUN is a run of the built-in agent on the same scenarios. For every run:
trials, deliveries (the `delivery` lines of the traces), the summed trial wall time
(`wall_seconds` of results.jsonl), the wall time per delivery, the overhead per
delivery over the baseline's, and, from the traces, the median span of a trial's
first delivery (which starts a long-lived harness) and of its later ones. Runs are
labelled by their folder name.
"""

import json
import statistics
import sys
from pathlib import Path


def spans(trace):
    """(first, later) delivery spans in ms of one trace: delivery line to reply line."""
    out, start = [], None
    for line in trace.read_text().splitlines():
        event = json.loads(line)
        kind = event.get("type")
        if kind == "delivery":
            start = event["ms"]
        elif kind == "reply" and start is not None:
            out.append(event["ms"] - start)
            start = None
    return out[:1], out[1:]


def measure(run):
    run = Path(run)
    results = [json.loads(l) for l in (run / "results.jsonl").read_text().splitlines() if l]
    wall = sum(r.get("wall_seconds", 0.0) for r in results)
    first, later = [], []
    for trace in run.glob("trials/*/hidden/trace.jsonl"):
        f, l = spans(trace)
        first += f
        later += l
    deliveries = len(first) + len(later)
    return {
        "name": run.name,
        "trials": len(results),
        "valid": sum(r.get("status") == "valid" for r in results),
        "deliveries": deliveries,
        "wall": wall,
        "per_delivery_ms": 1000.0 * wall / deliveries if deliveries else float("nan"),
        "first_ms": statistics.median(first) if first else float("nan"),
        "later_ms": statistics.median(later) if later else float("nan"),
    }


def main(baseline, runs):
    base = measure(baseline)
    print("| run | trials (valid) | deliveries | summed trial wall (s) | per delivery (ms) "
          "| overhead over built-in (ms) | first delivery median (ms) | later deliveries median (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for m in [base] + [measure(r) for r in runs]:
        overhead = m["per_delivery_ms"] - base["per_delivery_ms"]
        print(f"| {m['name']} | {m['trials']} ({m['valid']}) | {m['deliveries']} | {m['wall']:.1f} "
              f"| {m['per_delivery_ms']:.0f} | {overhead:.0f} | {m['first_ms']:.0f} | {m['later_ms']:.0f} |")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
