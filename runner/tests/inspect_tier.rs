//! Inspect tier (scripts/tiers/inspect.sh): inspect-ai itself reads the export of a
//! whole-suite `sim:comply` run and of a `--defense proxy` run: `read_eval_log` and
//! `samples_df` find 208 samples each, scores equal to `summary.json`'s rates and the
//! factors as metadata, and `inspect log dump` accepts each file; `inspect view` on
//! 127.0.0.1, opened in headless Chromium, shows both evals and a sample's scores.

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

/// `inspect view` serving a log folder on 127.0.0.1, stopped when dropped.
struct Viewer {
    child: std::process::Child,
    port: u16,
}

impl Viewer {
    fn start(venv: &Path, logs: &Path) -> Self {
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = free.local_addr().unwrap().port();
        drop(free);
        let child = Command::new(venv.join("bin/inspect"))
            .args(["view", "start", "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .arg("--log-dir")
            .arg(logs)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let viewer = Viewer { child, port };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "inspect view did not listen on 127.0.0.1:{port}"
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        viewer
    }

    /// The page at `route` once it shows `ready`: the viewer fetches the log after its
    /// first paint, and a headless dump often comes before (about one load in four
    /// shows the sample here), so the page is loaded up to 40 times.
    fn dom_showing(&self, route: &str, ready: &str) -> String {
        let mut dom = String::new();
        for _ in 0..40 {
            dom = self.dom(route);
            if dom.contains(ready) {
                break;
            }
        }
        dom
    }

    /// The page at `route` (the part after `#`) as headless Chromium rendered it.
    fn dom(&self, route: &str) -> String {
        let profile = tempfile::tempdir().unwrap();
        let bin = std::env::var("COSEC_CHROMIUM").unwrap_or_else(|_| "chromium".to_owned());
        let url = format!("http://127.0.0.1:{}/#{route}", self.port);
        let o = Command::new(bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1600,1200",
                // The viewer loads the logs after its first paint.
                "--virtual-time-budget=60000",
                "--dump-dom",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(&url)
            .output()
            .expect("chromium runs (scripts/tiers/inspect.sh installs it)");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The part of a URL path Inspect's router takes for a log file name.
fn encoded(name: &str) -> String {
    name.replace('+', "%2B")
}

#[test]
#[ignore = "tier inspect: needs inspect-ai and chromium (scripts/tiers/inspect.sh)"]
fn inspect_view_shows_both_evals_and_a_samples_scores_in_chromium() {
    let venv = venv();
    let tmp = tempfile::tempdir().unwrap();
    let scenarios = ["st-inter-owner-a1-s1", "dy-join-inter-owner-a1-s2"];
    let mut runs = Vec::new();
    for defense in ["none", "proxy"] {
        let dir = tmp.path().join(defense);
        let mut extra = vec!["--defense", defense];
        for s in scenarios {
            extra.extend(["--scenario", s]);
        }
        whole_suite(&dir, &extra);
        runs.push(dir);
    }
    let logs = tmp.path().join("logs");
    let mut args = vec!["export", "inspect"];
    args.extend(runs.iter().map(|r| r.to_str().unwrap()));
    args.extend(["--out", logs.to_str().unwrap()]);
    let o = cosec(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let names: Vec<String> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            Path::new(l)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(names.len(), 2);

    let viewer = Viewer::start(&venv, &logs);
    let listing = viewer.dom_showing("/logs/", names[1].trim_end_matches(".json"));
    for name in &names {
        let stem = name.trim_end_matches(".json");
        assert!(listing.contains(stem), "the log list lacks {stem}");
    }
    assert!(listing.contains("cosec-static112") || listing.contains("cosec-all"));
    let guarded = &names[1];
    let scoring = viewer.dom_showing(
        &format!(
            "/logs/{}/samples/sample/{}/1/scoring",
            encoded(guarded),
            scenarios[0]
        ),
        "stcr",
    );
    assert!(scoring.contains(scenarios[0]), "no sample on the page");
    for score in ["pvr", "pvr_all", "ccpvr", "bcr", "stcr"] {
        assert!(scoring.contains(score), "the scoring tab lacks {score}");
    }
    let log = read_log(&logs.join(guarded));
    let sample = log["samples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == scenarios[0])
        .unwrap();
    let explanation = sample["scores"]["bcr"]["explanation"].as_str().unwrap();
    assert!(
        scoring.contains(explanation),
        "the page lacks the BCR explanation `{explanation}`"
    );
}

fn read_log(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}
