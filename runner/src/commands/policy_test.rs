//! `cosec policy test`: a defense policy compared with the hidden oracle on every
//! authorization question of a suite, for both guard layers (the scored flows, the
//! legitimate tasks' reads and answers, and the input layer's `read` in every turn), in
//! seconds and without agents.

use crate::cli::SuiteSource;
use crate::error::CliError;
use cosec_policies::evaluate::{Mismatch, PolicyCase, ReadCase};
use cosec_policies::{evaluate_policy, EmptyPolicy, PolicyError, PolicyTestReport};
use cosec_scenarios::{suite, Scenario};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Rows of a `read` disagreement table printed before the rest is summarised (a
/// policy without `read` rules disagrees on hundreds of reads; `--json` lists all).
const READ_ROWS: usize = 20;

/// The flags of `cosec policy test` beside the policy file.
pub struct Options<'a> {
    /// Print the report as JSON.
    pub json: bool,
    /// Exit 1 when any question disagrees.
    pub strict: bool,
    /// Validate against this schema instead of the built-in one.
    pub schema: Option<&'a Path>,
    /// The suite to score (`--suite-dir`, else the built-in one).
    pub source: &'a SuiteSource,
    /// Lone scenario files to score instead of a suite.
    pub scenario_files: &'a [PathBuf],
    /// Whether a policy file holding no policy is accepted.
    pub empty: EmptyPolicy,
}

/// `cosec policy test FILE.cedar [--json] [--strict] [--schema FILE] [--suite-dir DIR |
/// --scenario-file PATH...]`: prints the false allows and false denies of both layers
/// with their scenarios (or the report as JSON). Exit code 0 once the evaluation ran,
/// 1 with `--strict` when any question disagrees; a policy that fails validation is an
/// error naming the file (exit code 2).
pub fn test(file: &Path, opts: &Options<'_>) -> Result<ExitCode, CliError> {
    let schema_src = match opts.schema {
        Some(path) => {
            let src = read(path)?;
            // Parsed here first so that a broken schema is reported under its path.
            cosec_policies::parse_schema(&path.display().to_string(), &src)?;
            Some(src)
        }
        None => None,
    };
    let policy_src = read(file)?;
    let (scenarios, against) = scenarios(opts)?;
    let file_name = file.display().to_string();
    let report = match evaluate_policy(
        &policy_src,
        &file_name,
        &scenarios,
        schema_src.as_deref(),
        opts.empty,
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
    if opts.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("{}", render(&file_name, &against, scenarios.len(), &report));
    }
    if opts.strict && !report.is_exact() {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The scenarios to score and how the report names them.
fn scenarios(opts: &Options<'_>) -> Result<(Vec<Scenario>, String), CliError> {
    if !opts.scenario_files.is_empty() {
        let scenarios = opts
            .scenario_files
            .iter()
            .map(|path| suite::load_scenario_file(path))
            .collect::<Result<Vec<_>, _>>()?;
        let n = scenarios.len();
        return Ok((scenarios, format!("{n} scenario file(s)")));
    }
    let loaded = super::scenarios::load(opts.source)?;
    let against = match &opts.source.suite_dir {
        Some(dir) => format!("the suite in {}", dir.display()),
        None => "the built-in suite".to_owned(),
    };
    Ok((loaded.scenarios, against))
}

fn read(path: &Path) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|source| {
        CliError::Policy(PolicyError::Read {
            path: path.to_owned(),
            source,
        })
    })
}

/// The readable report: the counts of both layers, then one table per kind of
/// disagreement.
fn render(file: &str, against: &str, scenarios: usize, report: &PolicyTestReport) -> String {
    let read = &report.read;
    let mut out = format!(
        "policy test: {file} against the built-in oracle on {against}\n\
         {scenarios} scenarios, {} questions: {} scored flows, {} legitimate flows, {} reads\n\n\
         flows (the scored actions, and each legitimate task's read and answer, at their turns)\n\
         false allows (would leak):                  {} of {} scored flows\n\
         false denies (would block legitimate work): {} of {} legitimate flows ({})\n\
         legitimate tasks lost:                      {} of {} tasks that need protected data{}\n\n\
         read (input layer: every protected object entering every turn's context)\n\
         false allows (model sees what it may not pass on): {} of {} reads the oracle denies\n\
         false denies (withheld from legitimate work):      {} of {} reads the oracle permits ({})\n",
        report.total + read.questions,
        report.scored_flows,
        report.legit_flows,
        read.questions,
        report.false_allow,
        report.scored_flows,
        report.false_deny,
        report.legit_flows,
        percent(report.false_deny, report.legit_flows),
        report.legit_tasks_denied,
        report.legit_tasks,
        match report.unguarded_legit_flows {
            0 => String::new(),
            n => format!(
                "\n  ({n} more legitimate flows move unprotected data, which the guard never decides)"
            ),
        },
        read.false_allow,
        read.questions - read.permitted,
        read.false_deny,
        read.permitted,
        percent(read.false_deny, read.permitted),
    );
    for (kind, title) in [
        (Mismatch::FalseAllow, "flow false allows"),
        (Mismatch::FalseDeny, "flow false denies"),
    ] {
        let cases: Vec<&PolicyCase> = report
            .mismatches()
            .filter(|c| c.mismatch == Some(kind))
            .collect();
        if cases.is_empty() {
            continue;
        }
        let ids = distinct(cases.iter().map(|c| c.scenario.as_str()));
        out.push_str(&format!(
            "\n{title} ({} in {ids} scenarios):\n",
            cases.len()
        ));
        out.push_str(&table(&cases));
    }
    for (kind, title) in [
        (Mismatch::FalseAllow, "read false allows"),
        (Mismatch::FalseDeny, "read false denies"),
    ] {
        let cases: Vec<&ReadCase> = read
            .mismatches()
            .filter(|c| c.mismatch == Some(kind))
            .collect();
        if cases.is_empty() {
            continue;
        }
        let ids = distinct(cases.iter().map(|c| c.scenario.as_str()));
        out.push_str(&format!(
            "\n{title} ({} in {ids} scenarios):\n",
            cases.len()
        ));
        out.push_str(&read_table(&cases[..cases.len().min(READ_ROWS)]));
        if cases.len() > READ_ROWS {
            out.push_str(&format!(
                "  ... and {} more (--json lists every one)\n",
                cases.len() - READ_ROWS
            ));
        }
    }
    out
}

/// How many distinct scenario ids.
fn distinct<'a>(ids: impl Iterator<Item = &'a str>) -> usize {
    let mut ids: Vec<&str> = ids.collect();
    ids.sort_unstable();
    ids.dedup();
    ids.len()
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
        "TURN",
        "REQUESTER",
        "ACTION",
        "OBJECT",
        "DESTINATION",
        "DEFENSE SAYS",
    ];
    let rows: Vec<[String; 7]> = cases
        .iter()
        .map(|c| {
            [
                c.scenario.clone(),
                c.turn.to_string(),
                c.requester.clone(),
                c.action.to_string(),
                c.object.clone(),
                c.destination.clone(),
                // The first reason is the requester's (on allow) or the first refusal.
                c.defense_reasons.first().cloned().unwrap_or_default(),
            ]
        })
        .collect();
    columns(header, &rows)
}

fn read_table(cases: &[&ReadCase]) -> String {
    let header = [
        "SCENARIO",
        "TURN",
        "REQUESTER",
        "OBJECT",
        "DESTINATION",
        "DEFENSE SAYS",
    ];
    let rows: Vec<[String; 6]> = cases
        .iter()
        .map(|c| {
            [
                c.scenario.clone(),
                c.turn.to_string(),
                c.requester.clone(),
                c.object.clone(),
                c.destination.clone(),
                c.defense_reasons.first().cloned().unwrap_or_default(),
            ]
        })
        .collect();
    columns(header, &rows)
}

/// Left-aligned columns, the last one unpadded.
fn columns<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let mut widths = header.map(str::len);
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; N]| {
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
    for row in rows {
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
            turn: 5,
            mismatch,
            defense_reasons: vec!["requester `felix`: allowed by my-rule".to_owned()],
        }
    }

    fn read_case(turn: u8, mismatch: Option<Mismatch>) -> ReadCase {
        ReadCase {
            scenario: "dy-join-b".to_owned(),
            turn,
            requester: "felix".to_owned(),
            object: "rosa-checkin".to_owned(),
            destination: "community:secondwind".to_owned(),
            oracle: Verdict::Allow,
            defense: Verdict::Deny,
            mismatch,
            defense_reasons: Vec::new(),
        }
    }

    fn report(reads: Vec<ReadCase>) -> PolicyTestReport {
        let mut read = cosec_policies::evaluate::ReadReport::default();
        for c in reads {
            read.questions += 1;
            read.permitted += usize::from(c.oracle == Verdict::Allow);
            read.false_deny += usize::from(c.mismatch == Some(Mismatch::FalseDeny));
            read.cases.push(c);
        }
        PolicyTestReport {
            false_allow: 2,
            false_deny: 0,
            scored_flows: 3,
            legit_flows: 4,
            unguarded_legit_flows: 0,
            legit_tasks: 2,
            legit_tasks_denied: 0,
            total: 7,
            cases: vec![
                case("dy-join-a", Some(Mismatch::FalseAllow)),
                case("dy-join-a", Some(Mismatch::FalseAllow)),
                case("st-agree", None),
            ],
            read,
        }
    }

    #[test]
    fn the_table_names_every_disagreeing_scenario_and_no_agreeing_one() {
        let report = report(vec![read_case(1, None)]);
        let text = render("mine.cedar", "the built-in suite", 2, &report);
        assert!(text.contains("false allows (would leak):                  2 of 3"));
        assert!(text.contains("0 of 4 legitimate flows (0.0%)"));
        assert!(
            text.contains("0 of 2 tasks that need protected data"),
            "{text}"
        );
        assert!(
            text.contains("flow false allows (2 in 1 scenarios)"),
            "{text}"
        );
        assert!(text.contains("dy-join-a"));
        assert!(text.contains("allowed by my-rule"));
        assert!(!text.contains("st-agree"));
        assert!(
            text.contains("0 of 1 reads the oracle permits (0.0%)"),
            "{text}"
        );
        // No table for false denies of either layer, since there are none.
        assert_eq!(text.matches("scenarios):").count(), 1, "{text}");
    }

    #[test]
    fn read_false_denies_get_their_own_table_cut_short_with_a_pointer_to_json() {
        let reads = (1..=30)
            .map(|t| read_case(t, Some(Mismatch::FalseDeny)))
            .collect();
        let text = render("no-read.cedar", "the built-in suite", 1, &report(reads));
        assert!(
            text.contains("30 of 30 reads the oracle permits (100.0%)"),
            "{text}"
        );
        assert!(
            text.contains("read false denies (30 in 1 scenarios)"),
            "{text}"
        );
        assert!(
            text.contains("... and 10 more (--json lists every one)"),
            "{text}"
        );
        assert_eq!(text.matches("dy-join-b").count(), READ_ROWS, "{text}");
    }
}
