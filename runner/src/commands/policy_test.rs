//! `cosec policy test`: a defense policy compared with the hidden oracle on every
//! authorization question of the built-in suite, in seconds and without agents.

use crate::error::CliError;
use cosec_policies::evaluate::{Mismatch, PolicyCase};
use cosec_policies::{evaluate_policy, EmptyPolicy, PolicyError, PolicyTestReport};
use std::path::Path;
use std::process::ExitCode;

/// `cosec policy test FILE.cedar [--json] [--strict] [--schema FILE]`: prints the false
/// allows and false denies with their scenarios (or the report as JSON). Exit code 0
/// once the evaluation ran, 1 with `--strict` when any question disagrees; a policy
/// that fails validation is an error naming the file (exit code 2).
pub fn test(
    file: &Path,
    json: bool,
    strict: bool,
    schema: Option<&Path>,
    empty: EmptyPolicy,
) -> Result<ExitCode, CliError> {
    let schema_src = match schema {
        Some(path) => {
            let src = read(path)?;
            // Parsed here first so that a broken schema is reported under its path.
            cosec_policies::parse_schema(&path.display().to_string(), &src)?;
            Some(src)
        }
        None => None,
    };
    let policy_src = read(file)?;
    let suite = cosec_scenarios::suite::load_embedded(false)?;
    let file_name = file.display().to_string();
    let report = match evaluate_policy(
        &policy_src,
        &file_name,
        &suite.scenarios,
        schema_src.as_deref(),
        empty,
    ) {
        Ok(report) => report,
        Err(err) => {
            // The error itself names the first problem; list every one for the author.
            if let PolicyError::InvalidPolicies { diagnostics, .. } = &err {
                for d in diagnostics.iter().filter(|_| diagnostics.len() > 1) {
                    eprintln!("{d}");
                }
            }
            return Err(err.into());
        }
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("{}", render(&file_name, suite.scenarios.len(), &report));
    }
    if strict && !report.is_exact() {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn read(path: &Path) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|source| {
        CliError::Policy(PolicyError::Read {
            path: path.to_owned(),
            source,
        })
    })
}

/// The readable report: the counts, then one table per kind of disagreement.
fn render(file: &str, scenarios: usize, report: &PolicyTestReport) -> String {
    let mut out = format!(
        "policy test: {file} against the built-in oracle\n\
         {scenarios} scenarios, {} questions: {} scored flows, {} legitimate flows\n\n\
         false allows (would leak):                  {} of {} scored flows\n\
         false denies (would block legitimate work): {} of {} legitimate flows ({})\n",
        report.total,
        report.scored_flows,
        report.legit_flows,
        report.false_allow,
        report.scored_flows,
        report.false_deny,
        report.legit_flows,
        percent(report.false_deny, report.legit_flows),
    );
    for (kind, title) in [
        (Mismatch::FalseAllow, "false allows"),
        (Mismatch::FalseDeny, "false denies"),
    ] {
        let cases: Vec<&PolicyCase> = report
            .mismatches()
            .filter(|c| c.mismatch == Some(kind))
            .collect();
        if cases.is_empty() {
            continue;
        }
        let mut ids: Vec<&str> = cases.iter().map(|c| c.scenario.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        out.push_str(&format!(
            "\n{title} ({} in {} scenarios):\n",
            cases.len(),
            ids.len()
        ));
        out.push_str(&table(&cases));
    }
    out
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "n/a".to_owned();
    }
    // Counts are far below 2^52, so the conversion is exact.
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

fn table(cases: &[&PolicyCase]) -> String {
    let header = [
        "SCENARIO",
        "REQUESTER",
        "ACTION",
        "OBJECT",
        "DESTINATION",
        "DEFENSE SAYS",
    ];
    let rows: Vec<[String; 6]> = cases
        .iter()
        .map(|c| {
            [
                c.scenario.clone(),
                c.requester.clone(),
                c.action.to_string(),
                c.object.clone(),
                c.destination.clone(),
                // The first reason is the requester's (on allow) or the first refusal.
                c.defense_reasons.first().cloned().unwrap_or_default(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 6]| {
        let mut s = String::from(" ");
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                s.push_str(&format!(" {cell}"));
            } else {
                s.push_str(&format!(" {cell:<w$}"));
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(header);
    for row in &rows {
        out.push_str(&line(row.each_ref().map(String::as_str)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosec_policies::evaluate::{CaseKind, Verdict};
    use cosec_scenarios::Action;

    fn case(scenario: &str, mismatch: Option<Mismatch>) -> PolicyCase {
        PolicyCase {
            scenario: scenario.to_owned(),
            kind: CaseKind::Scored,
            requester: "felix".to_owned(),
            action: Action::Disclose,
            object: "rosa-checkin".to_owned(),
            destination: "community:secondwind".to_owned(),
            oracle: Verdict::Deny,
            defense: Verdict::Allow,
            mismatch,
            defense_reasons: vec!["requester `felix`: allowed by my-rule".to_owned()],
        }
    }

    #[test]
    fn the_table_names_every_disagreeing_scenario_and_no_agreeing_one() {
        let report = PolicyTestReport {
            false_allow: 2,
            false_deny: 0,
            scored_flows: 3,
            legit_flows: 4,
            total: 7,
            cases: vec![
                case("dy-join-a", Some(Mismatch::FalseAllow)),
                case("dy-join-a", Some(Mismatch::FalseAllow)),
                case("st-agree", None),
            ],
        };
        let text = render("mine.cedar", 2, &report);
        assert!(text.contains("false allows (would leak):                  2 of 3"));
        assert!(text.contains("0 of 4 legitimate flows (0.0%)"));
        assert!(text.contains("false allows (2 in 1 scenarios)"), "{text}");
        assert!(text.contains("dy-join-a"));
        assert!(text.contains("allowed by my-rule"));
        assert!(!text.contains("st-agree"));
        // No table for false denies, since there are none.
        assert_eq!(text.matches("scenarios):").count(), 1, "{text}");
    }
}
