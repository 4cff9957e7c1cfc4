//! Whole-suite structure: the factor counts of docs/scenarios.md that every generated suite
//! must meet (checked before `generate` writes anything), and the suite's fixed shape of
//! eight turns and at most one event per scenario (a custom scenario may have more), and
//! a legitimate task in every scenario that needs an authorized use of protected data.

use crate::factors::{Boundary, EventKind, Family, Strategy, Suite};
use crate::ids::TURN_COUNT;
use crate::scenario::Scenario;
use std::collections::{BTreeMap, BTreeSet};

/// Expected scenarios per event kind in Dyn96.
pub fn expected_event_count(kind: EventKind) -> usize {
    if kind.inter_only() {
        8
    } else {
        16
    }
}

/// Every way the suite's factor structure differs from docs/scenarios.md (empty when it holds).
pub fn suite_structure_problems(scenarios: &[Scenario]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut expect = |what: &str, found: usize, want: usize| {
        if found != want {
            problems.push(format!("{what}: expected {want}, found {found}"));
        }
    };
    let count = |pred: &dyn Fn(&Scenario) -> bool| scenarios.iter().filter(|s| pred(s)).count();
    expect("scenarios in total", scenarios.len(), 208);
    expect(
        "static112 scenarios",
        count(&|s| s.factors.suite == Suite::Static112),
        112,
    );
    expect(
        "dyn96 scenarios",
        count(&|s| s.factors.suite == Suite::Dyn96),
        96,
    );
    for &family in Family::ALL {
        expect(
            &format!("scenarios of family {family}"),
            count(&|s| s.factors.family == family),
            52,
        );
        for &strategy in Strategy::ALL {
            expect(
                &format!("static112 scenarios of {family}-{strategy}"),
                count(&|s| {
                    s.factors.suite == Suite::Static112
                        && s.factors.family == family
                        && s.factors.strategy == strategy
                }),
                4,
            );
        }
    }
    for &kind in EventKind::ALL {
        expect(
            &format!("dyn96 scenarios with event {kind}"),
            count(&|s| s.factors.event == Some(kind)),
            expected_event_count(kind),
        );
    }
    expect(
        "static112 cross-scope scenarios",
        count(&|s| s.factors.suite == Suite::Static112 && s.factors.cross_scope),
        56,
    );
    expect(
        "dyn96 cross-scope scenarios",
        count(&|s| s.factors.suite == Suite::Dyn96 && s.factors.cross_scope),
        64,
    );
    expect(
        "inter-boundary scenarios",
        count(&|s| s.factors.boundary == Boundary::Inter),
        120,
    );
    let mut scripts: BTreeMap<Vec<(String, String, String)>, &str> = BTreeMap::new();
    let mut ids = BTreeSet::new();
    for s in scenarios {
        if !ids.insert(&s.id) {
            problems.push(format!("scenario id `{}` appears twice", s.id));
        }
        let script: Vec<(String, String, String)> = s
            .agent
            .turns
            .iter()
            .map(|t| (t.community.0.clone(), t.speaker.0.clone(), t.text.clone()))
            .collect();
        if let Some(other) = scripts.insert(script, s.id.as_str()) {
            problems.push(format!(
                "scenarios `{other}` and `{}` share the whole 8-turn script",
                s.id
            ));
        }
        if s.agent.turns.len() != usize::from(TURN_COUNT) {
            problems.push(format!(
                "scenario `{}` has {} turns; every suite scenario has exactly {TURN_COUNT}",
                s.id,
                s.agent.turns.len()
            ));
        }
        if s.platform.events.len() > 1 {
            problems.push(format!(
                "scenario `{}` has a chain of {} events; a suite scenario has at most one",
                s.id,
                s.platform.events.len()
            ));
        }
        let protected_use = s.verifier.legit_flows.iter().any(|f| {
            f.action != crate::verifier::Action::Read
                && s.verifier.protected.iter().any(|po| po.object == f.object)
        });
        if !protected_use {
            problems.push(format!(
                "scenario `{}`: its legitimate task uses none of its protected objects; every suite task needs an authorized use of what the scenario protects (a legitimate flow of it, checked by the goal), so that a defense that refuses everything pays for it",
                s.id
            ));
        }
        if s.factors.scenario_id() != s.id {
            problems.push(format!(
                "scenario `{}` should have the id `{}` its factors encode",
                s.id,
                s.factors.scenario_id()
            ));
        }
    }
    problems
}
