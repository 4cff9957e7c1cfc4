//! `cosec matrix run` of 3 defenses x 2 simulated models x the built-in agent, killed
//! midway (the real process, SIGKILL) and run again: every cell ends with each trial
//! exactly once, finished cells are not run again, and the killed cell keeps what it
//! had finished.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn cosec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .output()
        .expect("run cosec")
}

fn lines(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .map(|t| t.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

fn scenario(line: &str) -> String {
    let v: Value = serde_json::from_str(line).unwrap();
    v["scenario"].as_str().unwrap().to_owned()
}

const CELLS: [&str; 6] = [
    "builtin-sim_comply-none-all",
    "builtin-sim_comply-prompt-all",
    "builtin-sim_comply-proxy-default-all",
    "builtin-sim_refuse-none-all",
    "builtin-sim_refuse-prompt-all",
    "builtin-sim_refuse-proxy-default-all",
];

/// Trials per cell: every eighth scenario of the suite, both halves.
const TRIALS: usize = 26;

/// `run_args` selecting every eighth scenario of the suite.
fn scenario_flags() -> String {
    let o = cosec(&["scenarios", "list", "--json"]);
    let all: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    let ids: Vec<String> = all
        .iter()
        .step_by(8)
        .map(|s| format!("\"--scenario\", {:?}", s["id"].as_str().unwrap()))
        .collect();
    assert_eq!(ids.len(), TRIALS);
    ids.join(", ")
}

#[test]
fn a_killed_matrix_resumes_cell_by_cell_losing_and_repeating_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("study");
    let file = tmp.path().join("matrix.toml");
    std::fs::write(
        &file,
        format!(
            "out = {:?}\nmodels = [\"sim:comply\", \"sim:refuse\"]\ndefenses = [\"none\", \"prompt\", \"proxy\"]\nrun_args = [\"--judge\", \"none\", \"--jobs\", \"1\", {}]\n",
            out.display().to_string(),
            scenario_flags()
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["matrix", "run", file.to_str().unwrap()])
        .env_remove("COSEC_JUDGE_BASE_URL")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let second = out.join(CELLS[1]);
    let started = Instant::now();
    while lines(&second).is_empty() && started.elapsed() < Duration::from_secs(600) {
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let first_done = lines(&out.join(CELLS[0]));
    let second_before = lines(&second);
    assert_eq!(first_done.len(), TRIALS);
    assert!(
        (1..TRIALS).contains(&second_before.len()),
        "killed after {} trials of the second cell",
        second_before.len()
    );
    assert!(!second.join("summary.json").exists());

    let o = cosec(&["matrix", "status", out.to_str().unwrap()]);
    assert!(o.status.success());
    let status = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        status.contains(&format!(
            "partial: {} of {TRIALS} trials",
            second_before.len()
        )),
        "{status}"
    );
    assert!(
        status.contains("1 of 6 cells done, 1 partial, 4 not started"),
        "{status}"
    );

    let o = cosec(&["matrix", "run", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let log = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(
        log.contains(&format!("[1/6] {}: done already", CELLS[0])),
        "{log}"
    );
    assert!(
        log.contains(&format!(
            "[2/6] {}: resuming ({} of {TRIALS} trials done)",
            CELLS[1],
            second_before.len()
        )),
        "{log}"
    );
    assert_eq!(log.matches(": done in ").count(), 5, "{log}");

    assert_eq!(
        lines(&out.join(CELLS[0])),
        first_done,
        "a finished cell is not run again"
    );
    let second_after = lines(&second);
    assert_eq!(
        &second_after[..second_before.len()],
        &second_before[..],
        "what the killed cell finished is kept"
    );
    for cell in CELLS {
        let dir = out.join(cell);
        let ids: Vec<String> = lines(&dir).iter().map(|l| scenario(l)).collect();
        let unique: BTreeSet<&String> = ids.iter().collect();
        assert_eq!((ids.len(), unique.len()), (TRIALS, TRIALS), "{cell}");
        assert!(dir.join("summary.json").is_file(), "{cell}");
    }
    let comply: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join(CELLS[0]).join("summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(comply["config"]["defense"], "none");
    assert!(comply["overall"]["pvr"].as_f64().unwrap() > 0.5);

    let o = cosec(&["matrix", "status", file.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("6 of 6 cells done"));
    let o = cosec(&["report", out.to_str().unwrap()]);
    assert!(o.status.success());
    let table = String::from_utf8_lossy(&o.stdout).into_owned();
    for cell in CELLS {
        assert!(table.contains(cell), "{table}");
    }
}

#[test]
fn a_cell_whose_model_is_unknown_is_refused_before_any_folder_is_made() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("study");
    let file = tmp.path().join("matrix.toml");
    std::fs::write(
        &file,
        format!(
            "out = {:?}\nmodels = [\"sim:comply\", \"gpt\"]\ndefenses = [\"none\"]\n",
            out.display().to_string()
        ),
    )
    .unwrap();
    let o = cosec(&["matrix", "run", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cell builtin-gpt-none-all"), "{err}");
    assert!(err.contains("--model `gpt` is not known"), "{err}");
    assert!(
        !out.exists(),
        "nothing is created before every cell is checked"
    );
}
