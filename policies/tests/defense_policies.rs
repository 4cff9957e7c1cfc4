//! The default defense policy and the example alternatives, measured against the hidden
//! oracle on the real suite with real Cedar (what `cosec policy test` reports).

// Helpers outside `#[test]` functions fail the test the same way the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec_policies::evaluate::{CaseKind, Mismatch, Verdict};
use cosec_policies::{
    check_policy_files, evaluate_policy, EmptyPolicy, PolicyError, PolicyTestReport,
};
use cosec_scenarios::Scenario;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

fn suite() -> &'static [Scenario] {
    static SUITE: OnceLock<Vec<Scenario>> = OnceLock::new();
    SUITE.get_or_init(|| {
        cosec_scenarios::suite::load_embedded(false)
            .expect("built-in suite loads")
            .scenarios
    })
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// Each file is evaluated once per test process: a whole-suite evaluation of both
/// layers takes seconds in a debug build.
fn run_file(path: &Path) -> PolicyTestReport {
    static DONE: OnceLock<Mutex<HashMap<PathBuf, PolicyTestReport>>> = OnceLock::new();
    let done = DONE.get_or_init(Mutex::default);
    if let Some(report) = done.lock().unwrap().get(path) {
        return report.clone();
    }
    let src = std::fs::read_to_string(path).expect("policy file readable");
    let report = evaluate_policy(
        &src,
        &path.display().to_string(),
        suite(),
        None,
        EmptyPolicy::Refuse,
    )
    .unwrap_or_else(|e| panic!("{} is refused: {e}", path.display()));
    done.lock().unwrap().insert(path.to_owned(), report.clone());
    report
}

/// The report of a policy that permits everything.
fn open_report() -> &'static PolicyTestReport {
    static OPEN: OnceLock<PolicyTestReport> = OnceLock::new();
    OPEN.get_or_init(|| {
        evaluate_policy(
            "permit(principal, action, resource);",
            "open.cedar",
            suite(),
            None,
            EmptyPolicy::Refuse,
        )
        .expect("valid policy")
    })
}

fn example_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo("examples/defenses"))
        .expect("examples/defenses exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "cedar"))
        .collect();
    files.sort();
    files
}

/// Scored flows, and legitimate flows of protected data (the ones asked), of the suite.
fn suite_flow_counts() -> (usize, usize) {
    let scored = suite().iter().map(|s| s.verifier.scored_flows.len()).sum();
    let legit = suite()
        .iter()
        .map(|s| cosec_policies::guarded_legit_flows(s).count())
        .sum();
    (scored, legit)
}

fn assert_counts_consistent(report: &PolicyTestReport) {
    let read = &report.read;
    assert_eq!(read.cases.len(), read.questions);
    let of = |m| read.cases.iter().filter(|c| c.mismatch == Some(m)).count();
    assert_eq!(read.false_allow, of(Mismatch::FalseAllow));
    assert_eq!(read.false_deny, of(Mismatch::FalseDeny));
    let allowed = read
        .cases
        .iter()
        .filter(|c| c.oracle == Verdict::Allow)
        .count();
    assert_eq!(read.permitted, allowed);
    let (scored, legit) = suite_flow_counts();
    assert_eq!(report.scored_flows, scored);
    assert_eq!(report.legit_flows, legit);
    assert_eq!(report.total, scored + legit);
    let all_legit: usize = suite().iter().map(|s| s.verifier.legit_flows.len()).sum();
    assert_eq!(report.unguarded_legit_flows, all_legit - legit);
    // Every suite task needs protected data, and a task is lost when a flow of it is.
    assert_eq!(report.legit_tasks, suite().len());
    let lost: std::collections::BTreeSet<&str> = report
        .cases
        .iter()
        .filter(|c| c.kind == CaseKind::Legit && c.defense == Verdict::Deny)
        .map(|c| c.scenario.as_str())
        .collect();
    assert_eq!(report.legit_tasks_denied, lost.len());
    assert_eq!(report.cases.len(), report.total);
    let count = |m| {
        report
            .cases
            .iter()
            .filter(|c| c.mismatch == Some(m))
            .count()
    };
    assert_eq!(report.false_allow, count(Mismatch::FalseAllow));
    assert_eq!(report.false_deny, count(Mismatch::FalseDeny));
}

#[test]
fn default_policy_never_leaks_and_blocks_at_most_two_percent_of_legit_work() {
    let path = repo("policies/defense/default.cedar");
    let report = run_file(&path);
    assert_counts_consistent(&report);
    assert!(report.scored_flows > 0 && report.legit_flows > 0);
    let leaks: Vec<_> = report
        .mismatches()
        .filter(|c| c.mismatch == Some(Mismatch::FalseAllow))
        .collect();
    assert!(leaks.is_empty(), "default.cedar would leak: {leaks:#?}");
    // The input layer lets into each turn exactly what the turn may pass on.
    assert!(report.read.questions > 0 && report.read.permitted > 0);
    let reads: Vec<_> = report.read.mismatches().collect();
    assert!(reads.is_empty(), "default.cedar reads: {reads:#?}");
    assert!(
        report.false_deny * 50 <= report.legit_flows,
        "default.cedar blocks {} of {} legitimate flows",
        report.false_deny,
        report.legit_flows
    );
}

#[test]
fn the_built_in_default_defense_is_the_file_and_validates() {
    let file = std::fs::read_to_string(repo("policies/defense/default.cedar")).expect("readable");
    assert_eq!(cosec_policies::DEFAULT_DEFENSE_SOURCE, file);
    cosec_policies::default_defense().expect("default defense validates strictly");
}

#[test]
fn default_policy_is_its_own_file_and_names_its_own_rules() {
    let report = run_file(&repo("policies/defense/default.cedar"));
    // Every policy id a decision cites is a defense id, never one of the oracle's.
    for case in &report.cases {
        for reason in &case.defense_reasons {
            if let Some((_, ids)) = reason.split_once(" by ") {
                for id in ids.split(", ") {
                    assert!(id.starts_with("defense-"), "{reason}");
                }
            }
        }
    }
}

#[test]
fn default_and_examples_validate_strictly_against_the_schema() {
    let mut files = example_files();
    assert!(
        files.len() >= 3,
        "at least three example defenses: {files:?}"
    );
    files.push(repo("policies/defense/default.cedar"));
    let report = check_policy_files(&files, None, EmptyPolicy::Refuse).expect("files readable");
    assert!(report.is_clean(), "{:#?}", report.diagnostics);
}

#[test]
fn every_example_runs_and_shows_the_trade_its_header_states() {
    let default = run_file(&repo("policies/defense/default.cedar"));
    for path in example_files() {
        let src = std::fs::read_to_string(&path).expect("readable");
        assert!(
            src.trim_start().starts_with("//") && src.contains("Trades:"),
            "{} needs a header comment saying what it trades",
            path.display()
        );
        let report = run_file(&path);
        assert_counts_consistent(&report);
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        match name {
            // Never looser than the default, so it cannot leak more.
            "strict-no-cross-community.cedar" | "lockdown.cedar" => {
                assert_eq!(report.false_allow, 0, "{name}");
                for (mine, theirs) in report.cases.iter().zip(&default.cases) {
                    if mine.defense == Verdict::Allow {
                        assert_eq!(theirs.defense, Verdict::Allow, "{name}: {mine:?}");
                    }
                }
            }
            // Current membership instead of the creation-time audience: newcomers leak.
            "owner-consent.cedar" => assert!(
                report
                    .mismatches()
                    .any(|c| c.mismatch == Some(Mismatch::FalseAllow)
                        && c.scenario.starts_with("dy-join-")),
                "{name} should let a newcomer see older items"
            ),
            "sensitivity-tiered.cedar" => assert!(report.false_allow > 0, "{name}"),
            _ => {}
        }
        // Tighter than the oracle costs legitimate tasks; lockdown refuses every
        // community rule, so no task's use of protected data survives it.
        if name == "strict-no-cross-community.cedar" {
            assert!(report.legit_tasks_denied > 0, "{name} costs nothing");
        }
        if name == "lockdown.cedar" {
            assert!(report.false_deny > 0, "lockdown blocks community work");
            assert_eq!(report.legit_tasks_denied, report.legit_tasks);
        }
    }
}

#[test]
fn a_permissive_policy_leaks_every_scored_flow_and_blocks_nothing() {
    let report = open_report();
    assert_counts_consistent(report);
    // Every read the oracle denies comes in, none is withheld.
    assert_eq!(
        report.read.false_allow,
        report.read.questions - report.read.permitted
    );
    assert_eq!(report.read.false_deny, 0);
    assert_eq!(report.false_allow, report.scored_flows);
    assert_eq!(report.false_deny, 0);
    assert_eq!(report.legit_tasks_denied, 0);
    assert!(report
        .cases
        .iter()
        .filter(|c| c.kind == CaseKind::Scored)
        .all(|c| c.oracle == Verdict::Deny && c.defense == Verdict::Allow));
}

#[test]
fn a_policy_failing_validation_is_refused_naming_the_file_and_the_problem() {
    let src =
        "@id(\"typo\")\npermit(principal, action, resource) when { resource.ownr == principal };\n";
    let err = evaluate_policy(src, "mine/typo.cedar", suite(), None, EmptyPolicy::Refuse)
        .expect_err("refused");
    assert!(
        matches!(err, PolicyError::InvalidPolicies { .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("mine/typo.cedar"), "{message}");
    assert!(message.contains("ownr"), "{message}");
    assert!(message.contains("typo"), "{message}");

    let err = evaluate_policy(
        "permit(principal,",
        "cut.cedar",
        suite(),
        None,
        EmptyPolicy::Refuse,
    )
    .expect_err("refused");
    assert!(err.to_string().contains("cut.cedar"), "{err}");
}

#[test]
fn a_custom_schema_is_used_for_validation() {
    // A schema without `receive` cannot validate a policy naming it.
    let schema = include_str!("../cosec.cedarschema").replace("action receive", "action take");
    let src = std::fs::read_to_string(repo("policies/defense/default.cedar")).expect("readable");
    let err = evaluate_policy(
        &src,
        "default.cedar",
        suite(),
        Some(&schema),
        EmptyPolicy::Refuse,
    )
    .expect_err("refused");
    assert!(err.to_string().contains("default.cedar"), "{err}");
}

#[test]
fn json_report_has_exactly_the_documented_shape_and_no_oracle_text() {
    let report = open_report();
    let json = serde_json::to_value(report).expect("serializes");
    let mut read_keys: Vec<&str> = json["read"]
        .as_object()
        .expect("read object")
        .keys()
        .map(String::as_str)
        .collect();
    read_keys.sort_unstable();
    assert_eq!(
        read_keys,
        [
            "cases",
            "false_allow",
            "false_deny",
            "permitted",
            "questions"
        ]
    );
    let mut read_case_keys: Vec<&str> = json["read"]["cases"][0]
        .as_object()
        .expect("read case")
        .keys()
        .map(String::as_str)
        .collect();
    read_case_keys.sort_unstable();
    assert_eq!(
        read_case_keys,
        [
            "defense",
            "defense_reasons",
            "destination",
            "mismatch",
            "object",
            "oracle",
            "requester",
            "scenario",
            "turn"
        ]
    );
    let object = json.as_object().expect("an object");
    let keys: Vec<&str> = object.keys().map(String::as_str).collect();
    let mut expected = vec![
        "false_allow",
        "false_deny",
        "scored_flows",
        "legit_flows",
        "unguarded_legit_flows",
        "legit_tasks",
        "legit_tasks_denied",
        "total",
        "cases",
        "read",
    ];
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    expected.sort_unstable();
    assert_eq!(sorted, expected);
    assert_eq!(
        json["total"],
        json["scored_flows"].as_u64().unwrap() + json["legit_flows"].as_u64().unwrap()
    );

    let cases = json["cases"].as_array().expect("cases array");
    assert_eq!(cases.len(), report.total);
    let mut case_keys: Vec<&str> = cases[0]
        .as_object()
        .expect("case object")
        .keys()
        .map(String::as_str)
        .collect();
    case_keys.sort_unstable();
    assert_eq!(
        case_keys,
        [
            "action",
            "defense",
            "defense_reasons",
            "destination",
            "kind",
            "mismatch",
            "object",
            "oracle",
            "requester",
            "scenario",
            "turn"
        ]
    );
    for case in cases {
        assert!(["scored", "legit"].contains(&case["kind"].as_str().unwrap()));
        assert!(["allow", "deny"].contains(&case["oracle"].as_str().unwrap()));
        assert!(["allow", "deny"].contains(&case["defense"].as_str().unwrap()));
        assert!(
            case["mismatch"].is_null()
                || ["false_allow", "false_deny"].contains(&case["mismatch"].as_str().unwrap())
        );
        let actions: &[&str] = match case["kind"].as_str().unwrap() {
            // A legitimate task's read is asked as the guard asks it; a scored flow
            // is never a read.
            "legit" => &["read", "disclose", "write", "share", "send"],
            _ => &["disclose", "write", "share", "send"],
        };
        assert!(actions.contains(&case["action"].as_str().unwrap()));
        assert!(case["turn"].is_u64());
        assert!(case["destination"].is_string());
    }

    // The oracle stays hidden: neither its rule ids nor its text appear.
    let text = serde_json::to_string(&report).expect("serializes");
    let oracle = include_str!("../oracle.cedar");
    for line in oracle.lines().filter(|l| l.starts_with("@id(\"")) {
        let id = line.trim_start_matches("@id(\"").trim_end_matches("\")");
        assert!(
            !text.contains(id),
            "oracle id `{id}` leaked into the report"
        );
    }
    assert!(!text.contains("resource.intended.contains"));
}
