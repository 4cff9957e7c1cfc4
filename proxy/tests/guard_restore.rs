//! The post-turn restore: community files that gained denied content go back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod guard_fixture;

use cosec_proxy::guard::{apply_restores, snapshot, GuardMode, Restore, Snapshot};
use guard_fixture::*;

fn snap(items: &[(&str, &str)]) -> Snapshot {
    items
        .iter()
        .map(|(p, c)| ((*p).to_owned(), (*c).to_owned()))
        .collect()
}

#[test]
fn files_that_gained_denied_content_are_restored_or_removed() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    let leak = "Ole: levetiracetam 500 mg twice daily, 07700 900412";
    let before = snap(&[
        ("communities/y5parents/plan.md", "Plan: meet at 9:30"),
        ("communities/fellside/health.md", OLE_POST),
    ]);
    let after = snap(&[
        (
            "communities/y5parents/plan.md",
            &format!("Plan: meet at 9:30\n{leak}"),
        ),
        ("communities/y5parents/new.md", leak),
        // Kwame's club may hold Ole's post: not restored.
        ("communities/fellside/walk.md", leak),
        // Already held the object before the turn: edited, not a new disclosure.
        (
            "communities/fellside/health.md",
            &format!("{OLE_POST}\nupdated"),
        ),
        // Not a community namespace.
        ("shared/copy.md", leak),
    ]);
    let kwame = ctx("fellside", Some("kwame"));
    let restores = f.guard.files_to_restore(&kwame, &before, &after);
    assert_eq!(
        restores,
        vec![
            Restore {
                path: "communities/y5parents/new.md".into(),
                previous_content: None,
            },
            Restore {
                path: "communities/y5parents/plan.md".into(),
                previous_content: Some("Plan: meet at 9:30".into()),
            },
        ]
    );
    let rows = decisions(&f.trace_path);
    let restored: Vec<_> = rows.iter().filter(|r| r.5 == "restore").collect();
    assert_eq!(restored.len(), 2, "{rows:?}");
    assert!(restored
        .iter()
        .all(|r| r.0 == "restore" && r.3 == "write" && r.4 == "workspace:y5parents" && r.7));
    assert!(rows
        .iter()
        .any(|r| r.5 == "allow" && r.4 == "workspace:fellside"));
    assert_eq!(f.guard.stats().counts.restored, 2);
}

#[test]
fn snapshots_and_restores_work_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    let plan = f.root.join("communities/y5parents/plan.md");
    std::fs::write(&plan, "Plan").unwrap();
    let before = snapshot(&f.root).unwrap();
    assert_eq!(
        before
            .get("communities/y5parents/plan.md")
            .map(String::as_str),
        Some("Plan")
    );
    assert!(before.contains_key("communities/fellside/routes/ridgeway.md"));
    assert!(!before.keys().any(|k| k.starts_with("shared")));

    std::fs::write(&plan, format!("Plan\n{REFUND}")).unwrap();
    std::fs::write(f.root.join("communities/y5parents/iban.md"), REFUND).unwrap();
    let after = snapshot(&f.root).unwrap();
    let restores = f
        .guard
        .files_to_restore(&ctx("y5parents", Some("gemma")), &before, &after);
    assert_eq!(restores.len(), 2);
    apply_restores(&f.root, &restores).unwrap();
    assert_eq!(std::fs::read_to_string(&plan).unwrap(), "Plan");
    assert!(!f.root.join("communities/y5parents/iban.md").exists());
    assert_eq!(snapshot(&f.root).unwrap(), before);
}

#[test]
fn shadow_mode_restores_nothing_but_traces() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Shadow);
    let before = Snapshot::new();
    let after = snap(&[("communities/y5parents/iban.md", REFUND)]);
    assert!(f
        .guard
        .files_to_restore(&ctx("y5parents", Some("gemma")), &before, &after)
        .is_empty());
    let rows = decisions(&f.trace_path);
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].5.as_str(), rows[0].7), ("restore", false));
}
