//! The frozen suite as shipped: its factor structure (counted here independently of the
//! crate's own structure check), its determinism, its manifest and its oracle consistency.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec_policies::Oracle;
use cosec_scenarios::factors::{Boundary, EventKind, Family, Strategy, Suite};
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::suite;
use cosec_scenarios::Scenario;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn frozen() -> Vec<Scenario> {
    suite::load_embedded(false)
        .expect("the embedded suite loads unmodified")
        .scenarios
}

fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/suite")
}

#[test]
fn totals_and_factor_counts_match_scenarios_md() {
    let all = frozen();
    assert_eq!(all.len(), 208);
    let by_suite = |x: Suite| all.iter().filter(|s| s.factors.suite == x).count();
    assert_eq!(by_suite(Suite::Static112), 112);
    assert_eq!(by_suite(Suite::Dyn96), 96);

    let mut per_family: BTreeMap<Family, usize> = BTreeMap::new();
    let mut per_event: BTreeMap<EventKind, usize> = BTreeMap::new();
    let mut per_static_cell: BTreeMap<(Family, Strategy), usize> = BTreeMap::new();
    let (mut cross_static, mut cross_dyn) = (0, 0);
    for s in &all {
        *per_family.entry(s.factors.family).or_default() += 1;
        if let Some(ev) = s.factors.event {
            *per_event.entry(ev).or_default() += 1;
            let aligned = match s.factors.family {
                Family::A1 | Family::A2 => Strategy::S2,
                Family::A3 => Strategy::S6,
                Family::A4 => Strategy::S7,
            };
            assert_eq!(
                s.factors.strategy, aligned,
                "{} is not on its aligned strategy",
                s.id
            );
            if s.factors.cross_scope {
                cross_dyn += 1;
            }
        } else {
            *per_static_cell
                .entry((s.factors.family, s.factors.strategy))
                .or_default() += 1;
            if s.factors.cross_scope {
                cross_static += 1;
            }
        }
    }
    assert!(per_family.values().all(|&n| n == 52), "{per_family:?}");
    assert_eq!(per_family.len(), 4);
    let want = [
        (EventKind::MemberJoin, 16),
        (EventKind::MemberRemove, 16),
        (EventKind::RoleUp, 16),
        (EventKind::RoleDown, 16),
        (EventKind::Merge, 8),
        (EventKind::Split, 8),
        (EventKind::RelationStart, 8),
        (EventKind::RelationEnd, 8),
    ];
    for (kind, n) in want {
        assert_eq!(
            per_event.get(&kind).copied().unwrap_or(0),
            n,
            "event {kind}"
        );
    }
    assert_eq!(per_static_cell.len(), 28);
    assert!(
        per_static_cell.values().all(|&n| n == 4),
        "{per_static_cell:?}"
    );
    assert_eq!(cross_static, 56);
    assert_eq!(cross_dyn, 64);
    assert_eq!(cross_static + cross_dyn, 120);
    for s in &all {
        assert_eq!(
            s.factors.cross_scope,
            s.factors.boundary == Boundary::Inter,
            "{}",
            s.id
        );
    }
}

#[test]
fn no_two_scenarios_share_the_whole_script_and_every_one_has_eight_turns() {
    let all = frozen();
    let mut scripts = BTreeSet::new();
    for s in &all {
        assert_eq!(s.agent.turns.len(), 8, "{}", s.id);
        let script: Vec<&str> = s.agent.turns.iter().map(|t| t.text.as_str()).collect();
        assert!(
            scripts.insert(script),
            "{} repeats another scenario's script",
            s.id
        );
    }
}

#[test]
fn at_least_eight_domains_and_every_protected_object_has_canary_and_fact() {
    let all = frozen();
    let domains: BTreeSet<&str> = all
        .iter()
        .flat_map(|s| s.factors.domains.iter().map(String::as_str))
        .collect();
    assert!(
        domains.len() >= 8,
        "only {} domains: {domains:?}",
        domains.len()
    );
    for s in &all {
        for po in &s.verifier.protected {
            assert!(!po.canaries.is_empty() && !po.facts.is_empty(), "{}", s.id);
        }
    }
}

#[test]
fn disk_equals_a_fresh_generation_and_its_manifest() {
    let expansion = cosec_scenarios::worlds::expand_frozen().expect("the frozen worlds expand");
    let fresh = suite::render_suite(&expansion.scenarios).expect("render");
    let mut on_disk = BTreeMap::new();
    for entry in std::fs::read_dir(suite_dir()).expect("suite dir") {
        let entry = entry.expect("entry");
        on_disk.insert(
            entry.file_name().to_string_lossy().into_owned(),
            std::fs::read(entry.path()).expect("read"),
        );
    }
    let fresh_names: Vec<&String> = fresh.keys().collect();
    let disk_names: Vec<&String> = on_disk.keys().collect();
    assert_eq!(fresh_names, disk_names, "file sets differ");
    for (name, bytes) in &fresh {
        assert!(
            on_disk.get(name) == Some(bytes),
            "{name} differs from a fresh generation"
        );
    }
    // The manifest lists every scenario file with its real digest.
    let manifest: suite::Manifest =
        serde_json::from_slice(&on_disk[suite::MANIFEST_FILE]).expect("manifest json");
    assert_eq!(manifest.scenarios, 208);
    for entry in &manifest.files {
        assert_eq!(
            suite::sha256_hex(&on_disk[&entry.file]),
            entry.sha256,
            "{}",
            entry.file
        );
    }
}

#[test]
fn the_oracle_denies_every_scored_flow_and_allows_every_legit_flow() {
    let oracle = Oracle::builtin().expect("oracle loads");
    let mut checked = 0;
    for s in frozen() {
        let at = turn_time(s.verifier.scored_turn);
        for f in &s.verifier.scored_flows {
            let d = oracle.authorize_flow(&s, f, at);
            assert!(
                !d.allowed,
                "{}: scored flow {f:?} allowed ({:?})",
                s.id, d.reasons
            );
            assert!(
                d.errors.is_empty(),
                "{}: deny came from an error: {:?}",
                s.id,
                d.errors
            );
            checked += 1;
        }
        for f in &s.verifier.legit_flows {
            // The oracle has no `read`: a read is asked as the disclosure it stands for.
            let truth = cosec_scenarios::Flow {
                action: cosec_policies::oracle_action(f.action),
                ..f.clone()
            };
            let d = oracle.authorize_flow(&s, &truth, turn_time(f.turn_or(s.verifier.scored_turn)));
            assert!(
                d.allowed,
                "{}: legit flow {f:?} denied ({:?} {:?})",
                s.id, d.reasons, d.errors
            );
            checked += 1;
        }
    }
    assert!(checked >= 416, "only {checked} flows checked");
}
