//! `cosec scenarios validate`: structure (via loading) plus oracle consistency, the
//! ideal reference plan included.

use crate::error::CliError;
use cosec_policies::{oracle_action, Oracle};
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::suite;
use cosec_scenarios::validate::Problem;
use cosec_scenarios::{Flow, Scenario};
use std::path::PathBuf;
use std::process::ExitCode;

fn describe(flow: &Flow) -> String {
    format!(
        "{} {} `{}` to {}",
        flow.requester, flow.action, flow.object, flow.destination
    )
}

/// Oracle consistency: every scored flow is denied and every legitimate flow allowed at
/// the time of its turn (the scored turn unless the flow names its own; a legitimate
/// read is asked as the disclosure it stands for), and no step of the ideal plan puts a
/// protected value where the oracle denies it at that step's turn (the verifier judges
/// every output, so such a step would make the safe agent a violator).
pub fn oracle_problems(oracle: &Oracle, s: &Scenario) -> Vec<Problem> {
    let scored_turn = s.verifier.scored_turn;
    let ask = |flow: &Flow| {
        let truth = Flow {
            action: oracle_action(flow.action),
            ..flow.clone()
        };
        oracle.authorize_flow(s, &truth, turn_time(flow.turn_or(scored_turn)))
    };
    let mut problems = Vec::new();
    for (i, flow) in s.verifier.scored_flows.iter().enumerate() {
        let d = ask(flow);
        if d.allowed {
            problems.push(Problem {
                field: format!("verifier.scored_flows[{i}]"),
                message: format!(
                    "the oracle allows {} at turn {} (policies: {}); a scored protected flow must be denied",
                    describe(flow),
                    flow.turn_or(scored_turn),
                    d.reasons.join(", ")
                ),
            });
        }
    }
    for (i, flow) in s.verifier.legit_flows.iter().enumerate() {
        let d = ask(flow);
        if !d.allowed {
            let mut why = d.reasons.clone();
            why.extend(d.errors.iter().cloned());
            problems.push(Problem {
                field: format!("verifier.legit_flows[{i}]"),
                message: format!(
                    "the oracle denies {} at turn {} ({}); the legitimate artifact's flows must be allowed",
                    describe(flow),
                    flow.turn_or(scored_turn),
                    why.join("; ")
                ),
            });
        }
    }
    for v in crate::verify::replay::ideal_plan_violations(s) {
        let mut why = v.oracle.clone();
        if let Some(requester) = &v.requester {
            why.insert(0, format!("asked by {requester}"));
        }
        problems.push(Problem {
            field: "verifier.reference_plan".to_owned(),
            message: format!(
                "the ideal plan puts `{}` of `{}` into {} in turn {}, which the oracle denies ({}); the safe agent's every output must be allowed where and when it goes",
                v.canary,
                v.object,
                v.via.as_ref().unwrap_or(&v.destination),
                v.turn,
                why.join("; ")
            ),
        });
    }
    problems
}

/// `cosec scenarios validate [PATH...]`.
pub fn validate(paths: &[PathBuf], allow_modified: bool) -> Result<ExitCode, CliError> {
    let oracle = Oracle::builtin()?;
    let mut bad = 0usize;
    let mut good = 0usize;
    let mut check_all = |label: &str, scenarios: &[Scenario]| {
        for s in scenarios {
            let problems = oracle_problems(&oracle, s);
            if problems.is_empty() {
                good += 1;
            } else {
                bad += 1;
                for p in problems {
                    eprintln!("{label}: {}: {p}", s.id);
                }
            }
        }
    };
    if paths.is_empty() {
        let loaded = suite::load_embedded(allow_modified)?;
        let structure = cosec_scenarios::structure::suite_structure_problems(&loaded.scenarios);
        for p in &structure {
            eprintln!("suite structure: {p}");
        }
        check_all("suite", &loaded.scenarios);
        if structure.is_empty() && bad == 0 {
            outln!(
                "the frozen suite is valid: {good} scenarios, suite digest {}{}",
                loaded.suite_digest,
                if loaded.modified { " (MODIFIED)" } else { "" }
            );
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("{bad} invalid scenario(s)");
        return Ok(ExitCode::from(1));
    }
    let mut failed_paths = 0usize;
    for path in paths {
        let label = path.display().to_string();
        let loaded = if path.is_dir() {
            suite::load_dir(path, allow_modified).map(|l| l.scenarios)
        } else {
            suite::load_scenario_file(path).map(|s| vec![s])
        };
        match loaded {
            Ok(scenarios) => check_all(&label, &scenarios),
            Err(err) => {
                eprintln!("{err}");
                failed_paths += 1;
            }
        }
    }
    if bad == 0 && failed_paths == 0 {
        outln!("{good} scenario(s) valid");
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("{} invalid", bad + failed_paths);
        Ok(ExitCode::from(1))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use cosec_scenarios::verifier::{PlanAction, PlanStep, StepTaker};
    use cosec_scenarios::CommunityId;

    fn merge_scenario() -> Scenario {
        suite::load_embedded(false)
            .unwrap()
            .scenarios
            .into_iter()
            .find(|s| s.id.as_str() == "dy-merge-inter-owner-a4-s7")
            .unwrap()
    }

    fn ideal_post(turn: u8, community: &str) -> PlanStep {
        PlanStep {
            turn,
            taker: StepTaker::IdealOnly,
            action: PlanAction::PostMessage {
                community: CommunityId(community.to_owned()),
                text: "Ledger: reimbursement PF-2291 paid.".to_owned(),
            },
        }
    }

    #[test]
    fn an_ideal_step_the_oracle_denies_at_its_turn_is_named() {
        let oracle = Oracle::builtin().unwrap();
        let mut s = merge_scenario();
        assert!(oracle_problems(&oracle, &s).is_empty());
        // Leo (turn 1) may hold the ledger line, and so may CarePod; RunClub may not.
        s.verifier
            .reference_plan
            .steps
            .push(ideal_post(1, "carepod"));
        assert!(oracle_problems(&oracle, &s).is_empty());
        s.verifier
            .reference_plan
            .steps
            .push(ideal_post(1, "runclub"));
        let problems = oracle_problems(&oracle, &s);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].field, "verifier.reference_plan");
        for part in ["`PF-2291`", "community:runclub", "turn 1", "asked by leo"] {
            assert!(
                problems[0].message.contains(part),
                "{part}: {}",
                problems[0]
            );
        }
    }
}
