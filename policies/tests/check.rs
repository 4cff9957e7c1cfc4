//! `check_policy_files`: strict validation with located diagnostics.

use cosec_policies::{check_policy_files, EmptyPolicy, PolicyError, Severity};
use std::path::{Path, PathBuf};

#[allow(clippy::expect_used)] // a test helper: failing to write the fixture fails the test
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write fixture");
    path
}

#[test]
fn a_valid_policy_has_no_diagnostics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        "ok.cedar",
        r#"@id("no-health-outside")
forbid (principal, action in [Action::"egress"], resource)
when { resource.sensitivity.contains("health") && context.destination.kind == "person" };
"#,
    );
    let report = check_policy_files(&[path], None, EmptyPolicy::Refuse).expect("check runs");
    assert!(report.is_clean(), "{:?}", report.diagnostics);
}

#[test]
fn a_typoed_attribute_is_reported_with_policy_id_and_location() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        "typo.cedar",
        r#"// defense policy
@id("fine")
permit (principal, action, resource);

@id("owner-only")
permit (principal, action, resource)
when { resource.ownr == principal };
"#,
    );
    let report = check_policy_files(std::slice::from_ref(&path), None, EmptyPolicy::Refuse)
        .expect("check runs");
    assert_eq!(report.diagnostics.len(), 1, "{:?}", report.diagnostics);
    let d = &report.diagnostics[0];
    assert_eq!(d.file, path);
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.policy_id.as_deref(), Some("owner-only"));
    // `resource.ownr` starts on line 7, column 8.
    assert_eq!((d.line, d.column), (Some(7), Some(8)), "{d}");
    assert!(d.message.contains("ownr"), "{d}");
    assert!(
        !d.message.contains("policy1"),
        "Cedar's internal id leaks: {d}"
    );
    assert!(
        d.help.as_deref().is_some_and(|h| h.contains("owner")),
        "{d}"
    );
    assert_eq!(report.error_count(), 1);
}

#[test]
fn a_policy_without_id_is_named_by_cedar() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        "anon.cedar",
        "permit (principal, action, resource) when { principal.nope };\n",
    );
    let report = check_policy_files(&[path], None, EmptyPolicy::Refuse).expect("check runs");
    assert_eq!(report.diagnostics.len(), 1, "{:?}", report.diagnostics);
    assert_eq!(report.diagnostics[0].policy_id.as_deref(), Some("policy0"));
}

#[test]
fn a_syntax_error_is_located() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        "syntax.cedar",
        "@id(\"a\")\npermit (principal, action, resource)\nwhen { resource.public == };\n",
    );
    let report = check_policy_files(&[path], None, EmptyPolicy::Refuse).expect("check runs");
    assert!(!report.diagnostics.is_empty());
    let d = &report.diagnostics[0];
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.policy_id, None);
    assert_eq!(d.line, Some(3), "{d}");
    assert!(d.column.is_some(), "{d}");
}

#[test]
fn duplicate_ids_are_reported_at_the_second_use() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(
        dir.path(),
        "dup.cedar",
        "@id(\"x\")\npermit (principal, action, resource);\n@id(\"x\")\nforbid (principal, action, resource);\n",
    );
    let report = check_policy_files(&[path], None, EmptyPolicy::Refuse).expect("check runs");
    assert_eq!(report.diagnostics.len(), 1, "{:?}", report.diagnostics);
    assert_eq!(report.diagnostics[0].line, Some(3));
}

#[test]
fn the_shipped_oracle_checks_clean() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle.cedar");
    let report = check_policy_files(&[path], None, EmptyPolicy::Refuse).expect("check runs");
    assert!(report.is_clean(), "{:?}", report.diagnostics);
}

#[test]
fn a_schema_override_is_used() {
    let dir = tempfile::tempdir().expect("tempdir");
    let schema = write(
        dir.path(),
        "tiny.cedarschema",
        "entity User; entity Doc { ownr: User }; action read appliesTo { principal: User, resource: Doc };",
    );
    let path = write(
        dir.path(),
        "p.cedar",
        "permit (principal, action == Action::\"read\", resource) when { resource.ownr == principal };",
    );
    let report = check_policy_files(
        std::slice::from_ref(&path),
        Some(&schema),
        EmptyPolicy::Refuse,
    )
    .expect("check runs");
    assert!(report.is_clean(), "{:?}", report.diagnostics);
    // Against the built-in schema the same file is wrong.
    let report = check_policy_files(&[path], None, EmptyPolicy::Refuse).expect("check runs");
    assert!(!report.is_clean());
}

#[test]
fn an_unreadable_file_is_an_error_naming_it() {
    let missing = PathBuf::from("/nonexistent/cosec/none.cedar");
    match check_policy_files(std::slice::from_ref(&missing), None, EmptyPolicy::Refuse) {
        Err(PolicyError::Read { path, .. }) => assert_eq!(path, missing),
        other => panic!("expected a read error, got {other:?}"),
    }
}

/// A policy at every limit at once, in one expression: the deepest text the pre-parse
/// checks let through.
fn at_every_limit() -> String {
    let ifs = "if true then 1 else ".repeat(cosec_policies::MAX_CONDITIONALS);
    let sums = " + 1".repeat(cosec_policies::MAX_ARITHMETIC);
    // `when { }` is one level of the limit.
    let depth = cosec_policies::MAX_NESTING - 1;
    format!(
        "@id(\"deep\")\npermit(principal, action, resource) when {{ {}{ifs}1{sums}{} == 2 }};\n",
        "(".repeat(depth),
        ")".repeat(depth)
    )
}

#[test]
fn text_within_the_limits_is_answered_even_on_a_small_stack() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "deep.cedar", &at_every_limit());
    // Cedar's recursion runs on its own thread, whatever the caller's stack.
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || check_policy_files(&[path], None, EmptyPolicy::Refuse))
        .expect("spawn");
    let report = worker.join().expect("no crash").expect("check runs");
    assert_eq!(report.error_count(), 0, "{:?}", report.diagnostics);
    // A kept policy set is dropped by its owner, here on a test's 2 MiB thread.
    let guard = cosec_policies::Oracle::from_sources(
        cosec_policies::SCHEMA_SOURCE,
        &at_every_limit(),
        "deep.cedar",
    );
    assert!(guard.is_ok(), "{guard:?}");
}

#[test]
fn past_any_limit_the_file_is_refused_at_the_place_it_crosses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = at_every_limit().replacen(" + 1", " + 1 + 1", 1);
    let path = write(dir.path(), "over.cedar", &text);
    let report = check_policy_files(std::slice::from_ref(&path), None, EmptyPolicy::Refuse)
        .expect("check runs");
    assert_eq!(report.error_count(), 1, "{:?}", report.diagnostics);
    let d = &report.diagnostics[0];
    assert_eq!(d.line, Some(2));
    let column = text
        .lines()
        .nth(1)
        .and_then(|l| l.rfind('+'))
        .map(|c| c + 1);
    assert_eq!(d.column, column);
    assert!(d.message.contains("arithmetic operators"), "{d}");
}

#[test]
fn an_empty_file_is_refused_unless_allowed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "empty.cedar", "// nothing yet\n");
    let report = check_policy_files(std::slice::from_ref(&path), None, EmptyPolicy::Refuse)
        .expect("check runs");
    assert_eq!(report.error_count(), 1);
    assert!(report.diagnostics[0]
        .to_string()
        .contains("--allow-empty-policy"));
    let report = check_policy_files(&[path], None, EmptyPolicy::Allow).expect("check runs");
    assert!(report.is_clean(), "{:?}", report.diagnostics);
}
