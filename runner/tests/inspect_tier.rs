//! Inspect tier (scripts/tiers/inspect.sh): inspect-ai itself reads the export of a
//! whole-suite `sim:comply` run and of a `--defense proxy` run: `read_eval_log` and
//! `samples_df` find 208 samples each, scores equal to `summary.json`'s rates and the
//! factors as metadata, and `inspect log dump` accepts each file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cosec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .env_remove("COSEC_MODEL_BASE_URL")
        .env_remove("COSEC_MODEL_API_KEY")
        .output()
        .expect("run cosec")
}

/// The virtual environment holding inspect-ai (`COSEC_INSPECT_VENV`, else
/// `~/.cache/cosec/inspect-venv`, where scripts/tiers/inspect.sh installs it).
fn venv() -> PathBuf {
    let dir = std::env::var_os("COSEC_INSPECT_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(&std::env::var_os("HOME").expect("HOME")).join(".cache/cosec/inspect-venv")
        });
    assert!(
        dir.join("bin/inspect").is_file(),
        "inspect-ai is not installed in {}: run scripts/tiers/inspect.sh",
        dir.display()
    );
    dir
}

fn whole_suite(dir: &Path, extra: &[&str]) {
    let mut args = vec!["run", "--judge", "none", "--model", "sim:comply"];
    args.extend_from_slice(extra);
    args.extend(["--out", dir.to_str().unwrap()]);
    let o = cosec(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
#[ignore = "tier inspect: needs inspect-ai in a virtual environment (scripts/tiers/inspect.sh)"]
fn inspect_ai_reads_the_exported_logs_with_the_runs_rates_and_factors() {
    let venv = venv();
    let tmp = tempfile::tempdir().unwrap();
    let comply = tmp.path().join("comply");
    let proxy = tmp.path().join("proxy");
    whole_suite(&comply, &[]);
    whole_suite(&proxy, &["--defense", "proxy"]);
    let logs = tmp.path().join("logs");
    let o = cosec(&[
        "export",
        "inspect",
        comply.to_str().unwrap(),
        proxy.to_str().unwrap(),
        "--out",
        logs.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files: Vec<String> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(files.len(), 2);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inspect/check_logs.py");
    let o = Command::new(venv.join("bin/python"))
        .arg(&script)
        .arg(&logs)
        .arg(&comply)
        .arg(&proxy)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    println!("{}", String::from_utf8_lossy(&o.stdout));
    for file in &files {
        let o = Command::new(venv.join("bin/inspect"))
            .args(["log", "dump", file])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "inspect log dump {file}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let dumped: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(dumped["samples"].as_array().unwrap().len(), 208);
    }
}
