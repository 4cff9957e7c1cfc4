"""Reads CoSec's exported logs with inspect-ai's own API, validates them against the
schema `inspect log schema` prints and checks them against the run folders'
summary.json: argv = LOG_DIR RUN_DIR..., one log per run."""

import json
import math
import subprocess
import sys
from pathlib import Path

import jsonschema

from inspect_ai.analysis import samples_df
from inspect_ai.log import list_eval_logs, read_eval_log

RATES = ["pvr", "pvr_all", "ccpvr", "bcr", "stcr"]
FACTORS = ["family", "strategy", "boundary", "privacy_object", "event"]

log_dir, runs = sys.argv[1], sys.argv[2:]
listed = list_eval_logs(log_dir)
assert len(listed) == len(runs), f"inspect lists {len(listed)} logs, expected {len(runs)}"
by_model_defense = {}
for info in listed:
    log = read_eval_log(info.name)
    key = (log.eval.model, log.eval.task_args["defense"])
    by_model_defense[key] = log
# The schema `inspect log schema` prints (an OpenAPI document): every file must be an
# EvalLog by it, not only readable by the lenient reader.
openapi = json.loads(
    subprocess.run(
        [str(Path(sys.executable).parent / "inspect"), "log", "schema"],
        capture_output=True, text=True, check=True,
    ).stdout
)
validator = jsonschema.Draft202012Validator(
    {"$ref": "#/components/schemas/EvalLog", "components": openapi["components"]}
)
for info in listed:
    path = info.name.removeprefix("file://")
    errors = list(validator.iter_errors(json.loads(Path(path).read_text())))
    assert not errors, f"{path}: {[(list(e.absolute_path), e.message[:200]) for e in errors[:5]]}"
df = samples_df(log_dir)
for run in runs:
    summary = json.loads((Path(run) / "summary.json").read_text())
    config = summary["config"]
    log = by_model_defense[(config["model"], config["defense"])]
    assert log.status == "success", log.status
    assert len(log.samples) == 208, len(log.samples)
    scores = {s.name: s for s in log.results.scores}
    for rate in RATES:
        want = summary["overall"][rate]
        got = scores[rate].metrics["mean"].value
        assert got == want, f"{run} {rate}: log {got}, summary {want}"
        values = [s.scores[rate].value for s in log.samples if s.scores and rate in s.scores]
        assert math.isclose(sum(values) / len(values), want), f"{run} {rate} samples"
    rows = df[df["eval_id"] == log.eval.eval_id]
    assert len(rows) == 208, len(rows)
    for factor in FACTORS:
        column = f"metadata_{factor}"
        assert column in rows.columns, f"samples_df lacks {column}"
    assert rows["metadata_family"].notna().all()
    for rate in RATES:
        mean = rows[f"score_{rate}"].dropna().astype(float).mean()
        assert math.isclose(mean, summary["overall"][rate]), f"samples_df {rate}: {mean}"
    print(f"{run}: 208 samples, rates equal summary.json, factors present")
