//! Hostile or mistaken inputs to the real `cosec` binary: each is refused before any
//! work starts, with an error naming the input, the limit and the fix, and never with
//! a crash, a hang or a run that quietly produces invalid results.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCENARIO: &str = "st-intra-owner-a1-s1";

fn cosec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .env_remove("COSEC_MODEL_BASE_URL")
        .env_remove("COSEC_JUDGE_BASE_URL")
        .output()
        .expect("run cosec")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A policy whose condition nests `depth` parentheses, on its second line.
fn deep_policy(dir: &Path, depth: usize) -> PathBuf {
    let path = dir.join("deep.cedar");
    let src = format!(
        "@id(\"deep\")\npermit(principal, action, resource) when {{ {}true{} }};\n",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    std::fs::write(&path, src).unwrap();
    path
}

/// The process ended by itself with `code` (no signal, no stack-overflow abort).
fn assert_exit(o: &Output, code: i32) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{err}");
    assert!(!err.contains("overflow"), "{err}");
}

fn assert_names_the_nesting_limit(err: &str, file: &Path) {
    let limit = cosec_policies::MAX_NESTING;
    // `{` is level 1 (column 42 of line 2) and the first `(` level 2 (column 44), so
    // the parenthesis that crosses the limit is the limit-th one.
    let column = 44 + limit - 1;
    let located = format!("{}:2:{column}", file.display());
    assert!(err.contains(&located), "no {located} in: {err}");
    assert!(
        err.contains(&format!("deeper than {limit} levels")),
        "{err}"
    );
    assert!(err.contains("split the condition"), "{err}");
}

#[test]
fn policy_check_reports_deep_nesting_at_its_place_instead_of_overflowing() {
    let tmp = tempfile::tempdir().unwrap();
    let file = deep_policy(tmp.path(), 5_000);
    let o = cosec(&["policy", "check", s(&file)]);
    assert_exit(&o, 1);
    assert_names_the_nesting_limit(&stderr(&o), &file);
}

#[test]
fn nesting_at_the_limit_is_still_a_valid_policy() {
    let tmp = tempfile::tempdir().unwrap();
    // The `when { }` braces are one level.
    let file = deep_policy(tmp.path(), cosec_policies::MAX_NESTING - 1);
    let o = cosec(&["policy", "check", s(&file)]);
    assert_exit(&o, 0);
}

#[test]
fn every_command_taking_a_policy_refuses_deep_nesting_the_same_way() {
    let tmp = tempfile::tempdir().unwrap();
    let file = deep_policy(tmp.path(), 600);
    let out = tmp.path().join("run");
    let state = tmp.path().join("state.json");
    let commands: [Vec<&str>; 3] = [
        vec!["policy", "test", s(&file)],
        vec![
            "run",
            "--defense",
            "proxy",
            "--policy",
            s(&file),
            "--scenario",
            SCENARIO,
            "--judge",
            "none",
            "--out",
            s(&out),
        ],
        vec![
            "proxy",
            "serve",
            "--policy",
            s(&file),
            "--upstream",
            "http://127.0.0.1:9/v1",
            "--state",
            s(&state),
            "--listen",
            "127.0.0.1:0",
        ],
    ];
    for args in commands {
        let o = cosec(&args);
        assert_exit(&o, 2);
        assert_names_the_nesting_limit(&stderr(&o), &file);
    }
    assert!(!out.exists(), "the run started");
}

#[test]
fn an_empty_or_comment_only_policy_is_refused_unless_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("empty.cedar", ""),
        ("comments.cedar", "// all rules removed\n\n  // for now\n"),
    ] {
        let file = tmp.path().join(name);
        std::fs::write(&file, text).unwrap();
        let o = cosec(&["policy", "check", s(&file)]);
        assert_exit(&o, 1);
        let err = stderr(&o);
        assert!(err.contains(&file.display().to_string()), "{err}");
        assert!(err.contains("holds no policy"), "{err}");
        assert!(err.contains("--allow-empty-policy"), "{err}");

        let o = cosec(&["policy", "check", "--allow-empty-policy", s(&file)]);
        assert_exit(&o, 0);
    }
}

#[test]
fn an_allowed_empty_policy_is_a_guard_that_permits_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("empty.cedar");
    std::fs::write(&file, "").unwrap();
    let o = cosec(&["policy", "test", s(&file)]);
    assert_exit(&o, 2);
    assert!(
        stderr(&o).contains("--allow-empty-policy"),
        "{}",
        stderr(&o)
    );

    let o = cosec(&["policy", "test", "--json", "--allow-empty-policy", s(&file)]);
    assert_exit(&o, 0);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // Denying everything leaks nothing and blocks every legitimate flow.
    assert_eq!(report["false_allow"], 0);
    assert_eq!(report["false_deny"], report["legit_flows"]);

    let out = tmp.path().join("run");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--defense",
            "proxy",
            "--policy",
            s(&file),
            "--scenario",
            SCENARIO,
            "--judge",
            "none",
            "--out",
            s(&out),
        ];
        args.extend_from_slice(extra);
        cosec(&args)
    };
    let o = run(&[]);
    assert_exit(&o, 2);
    assert!(
        stderr(&o).contains("--allow-empty-policy"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    let o = run(&["--allow-empty-policy"]);
    assert_exit(&o, 0);
    // What it denies includes the legitimate task's own use of the protected object, so
    // the task is lost and the summary says what the guard refused of it.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["overall"]["bcr"], 0.0, "{}", summary["overall"]);
    assert_eq!(summary["price"]["tasks_denied"], 1, "{}", summary["price"]);
    assert_eq!(summary["price"]["tasks_denied_failed"], 1);
    assert!(summary["price"]["legit_flows_denied"].as_u64().unwrap() >= 1);
}

/// `cosec run` of the built-in agent with no judge into `out`, plus `extra`.
fn run(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["run", "--judge", "none", "--out", s(out)];
    args.extend_from_slice(extra);
    cosec(&args)
}

#[test]
fn a_scenario_selected_twice_is_refused_naming_both_selections() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = run(&out, &["--scenario", SCENARIO, "--scenario", SCENARIO]);
    assert_exit(&o, 2);
    let err = stderr(&o);
    assert!(
        err.contains(&format!("scenario `{SCENARIO}` is selected twice")),
        "{err}"
    );
    assert!(err.contains(&format!("`--scenario {SCENARIO}`")), "{err}");
    assert!(!out.exists(), "the run started");

    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/suite");
    let first = tmp.path().join("mine.json");
    let second = tmp.path().join("copy.json");
    for path in [&first, &second] {
        std::fs::copy(suite.join(format!("{SCENARIO}.json")), path).unwrap();
    }
    for (a, b) in [(&first, &first), (&first, &second)] {
        let o = run(&out, &["--scenario-file", s(a), "--scenario-file", s(b)]);
        assert_exit(&o, 2);
        let err = stderr(&o);
        assert!(
            err.contains(&format!("--scenario-file {}", a.display())),
            "{err}"
        );
        assert!(
            err.contains(&format!("--scenario-file {}", b.display())),
            "{err}"
        );
        assert!(!out.exists(), "the run started");
    }
}

#[test]
fn a_malformed_model_url_is_refused_before_any_trial() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    for url in ["not a url", "ftp://models.example/v1", "http://"] {
        let o = run(
            &out,
            &[
                "--model",
                "openai:m",
                "--model-base-url",
                url,
                "--scenario",
                SCENARIO,
            ],
        );
        assert_exit(&o, 2);
        let err = stderr(&o);
        assert!(
            err.contains(&format!("`{url}` is not a usable URL")),
            "{err}"
        );
        assert!(!out.exists(), "the run started");
    }
}

#[test]
fn an_endless_scenario_file_is_refused_at_the_size_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let o = run(&out, &["--scenario-file", "/dev/zero"]);
    assert_exit(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("/dev/zero"), "{err}");
    assert!(err.contains("4194304-byte limit"), "{err}");
    assert!(!out.exists(), "the run started");
}

#[test]
fn a_matrix_checks_every_cell_before_its_first_trial() {
    let tmp = tempfile::tempdir().unwrap();
    deep_policy(tmp.path(), 600);
    std::fs::write(tmp.path().join("empty.cedar"), "").unwrap();
    let cases = [
        // The bad cell comes last: nothing may run before it is found.
        ("policies = [\"default\", \"deep.cedar\"]\n", "deeper than"),
        (
            "policies = [\"default\", \"missing.cedar\"]\n",
            "missing.cedar",
        ),
        (
            "policies = [\"default\", \"empty.cedar\"]\n",
            "--allow-empty-policy",
        ),
        (
            "run_args = [\"--judge\", \"none\", \"--prices\", \"nowhere.toml\"]\n",
            "nowhere.toml",
        ),
    ];
    for (i, (extra, expected)) in cases.iter().enumerate() {
        let out = tmp.path().join(format!("m{i}"));
        let mut text = format!(
            "out = \"{}\"\nmodels = [\"sim:comply\"]\ndefenses = [\"none\", \"proxy\"]\n",
            out.display()
        );
        if !extra.starts_with("run_args") {
            text.push_str("run_args = [\"--judge\", \"none\"]\n");
        }
        text.push_str(extra);
        let file = tmp.path().join(format!("m{i}.toml"));
        std::fs::write(&file, text).unwrap();
        let o = cosec(&["matrix", "run", s(&file)]);
        assert_exit(&o, 2);
        let err = stderr(&o);
        assert!(err.contains(expected), "{expected} not in: {err}");
        assert!(!out.exists(), "a cell ran: {err}");
    }

    let out = tmp.path().join("url");
    let file = tmp.path().join("url.toml");
    std::fs::write(
        &file,
        format!(
            "out = \"{}\"\nmodels = [\"sim:comply\", \"openai:m\"]\ndefenses = [\"none\"]\nrun_args = [\"--judge\", \"none\", \"--model-base-url\", \"not a url\"]\n",
            out.display()
        ),
    )
    .unwrap();
    let o = cosec(&["matrix", "run", s(&file)]);
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("not a usable URL"), "{}", stderr(&o));
    assert!(!out.exists());
}

fn generate_into(out: &Path) -> Output {
    let world = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/worlds/a4-workhub");
    cosec(&[
        "scenarios",
        "generate",
        "--worlds",
        s(&world),
        "--out",
        s(out),
    ])
}

#[test]
fn generate_writes_only_into_a_new_empty_or_generated_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("mine");
    std::fs::create_dir(&out).unwrap();
    let notes = out.join("notes.json");
    std::fs::write(&notes, "{\"keep\": true}").unwrap();
    let o = generate_into(&out);
    assert_exit(&o, 2);
    let err = stderr(&o);
    assert!(err.contains(&out.display().to_string()), "{err}");
    assert!(err.contains("not a generated suite folder"), "{err}");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1, "wrote into it");
    assert!(notes.is_file());

    // An empty folder, then the same folder again: the manifest marks it as generated.
    let out = tmp.path().join("suite");
    std::fs::create_dir(&out).unwrap();
    assert_exit(&generate_into(&out), 0);
    let manifest = out.join("MANIFEST.json");
    assert!(manifest.is_file());
    let stale = out.join("st-gone.json");
    std::fs::write(&stale, "{}").unwrap();
    assert_exit(&generate_into(&out), 0);
    // Only files an earlier generation listed are ever removed.
    assert!(
        stale.is_file(),
        "a file the generation did not write was deleted"
    );

    // A scenario the previous generation wrote and this one does not is removed.
    let mut listed: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    listed["files"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"file": "st-dropped.json", "sha256": "00"}));
    std::fs::write(&manifest, serde_json::to_vec(&listed).unwrap()).unwrap();
    let dropped = out.join("st-dropped.json");
    std::fs::write(&dropped, "{}").unwrap();
    assert_exit(&generate_into(&out), 0);
    assert!(
        !dropped.exists(),
        "a scenario of the previous generation was kept"
    );
    assert!(stale.is_file());
}
