//! `cosec policy verify`: proofs about a defense policy with Cedar's symbolic compiler
//! and cvc5, counterexamples in plain words, and their export as scenarios.

use crate::error::CliError;
use cosec_policies::verify::{
    self, assumptions_source, export_scenario, CheckResult, PolicyText, Role, Verdict,
    VerifyReport, VerifyRequest,
};
use cosec_policies::PolicyError;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// The flags of `cosec policy verify` beside the policy file.
pub struct Options<'a> {
    /// `--against`: relate to this defense.
    pub against: Option<&'a Path>,
    /// `--property`: prove the defense implies this policy set.
    pub property: Option<&'a Path>,
    /// Per-query solver time limit.
    pub timeout: Duration,
    /// Print JSON.
    pub json: bool,
    /// Write the first oracle counterexample as a world here.
    pub scenario_out: Option<&'a Path>,
    /// Print the assumptions and stop.
    pub show_assumptions: bool,
}

/// `cosec policy verify FILE.cedar [...]`: exit code 0 when every verdict check is
/// proved, 1 when one is refuted or undecided; errors (exit 2) when it cannot run.
pub fn verify(file: &Path, opts: &Options<'_>) -> Result<ExitCode, CliError> {
    if opts.show_assumptions {
        out!("{}", assumptions_source());
        return Ok(ExitCode::SUCCESS);
    }
    let request = VerifyRequest {
        defense: text(file)?,
        against: opts.against.map(text).transpose()?,
        property: opts.property.map(text).transpose()?,
        timeout: opts.timeout,
    };
    let report = verify::verify(&request).inspect_err(list_diagnostics)?;
    if opts.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("{}", render(&report));
    }
    if let Some(dir) = opts.scenario_out {
        if report.oracle_counterexample().is_none() {
            eprintln!(
                "--scenario-out: nothing to export, {} never allows what the oracle denies",
                file.display()
            );
        } else {
            // The report's counterexample may sit where no static world reaches (a
            // partnership, a role audience); search again within what a world states.
            match verify::find_exportable(&request.defense, opts.timeout)? {
                Some(cex) => {
                    let written = export_scenario(&cex, &request.defense, dir)?;
                    eprintln!(
                        "wrote world {} with variant `{}` (counterexample in {}); expand it with `cosec scenarios generate --worlds {} --out DIR`",
                        written.world.display(),
                        written.variant,
                        written.counterexample.display(),
                        dir.display()
                    );
                }
                None => eprintln!(
                    "--scenario-out: no counterexample is a disclose into a community or a write into its workspace in a static world; nothing exported"
                ),
            }
        }
    }
    Ok(if report.proved() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn text(path: &Path) -> Result<PolicyText, CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| {
        CliError::Policy(PolicyError::Read {
            path: path.to_owned(),
            source,
        })
    })?;
    Ok(PolicyText {
        name: path.display().to_string(),
        text,
    })
}

/// The error names the first problem of an invalid file; list every one.
fn list_diagnostics(err: &verify::VerifyError) {
    if let verify::VerifyError::Policy(PolicyError::InvalidPolicies { diagnostics, .. }) = err {
        for d in diagnostics.iter().filter(|_| diagnostics.len() > 1) {
            eprintln!("{d}");
        }
    }
}

/// The readable report: one line per check, then each counterexample in words.
fn render(report: &VerifyReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} (solver {})", report.defense, report.solver);
    for check in &report.checks {
        render_check(&mut out, check);
    }
    let verdict = if report.proved() {
        "PROVED: every verdict check holds"
    } else {
        "NOT PROVED: a verdict check is refuted or undecided (exit code 1)"
    };
    let _ = writeln!(out, "\n{verdict}");
    out
}

fn render_check(out: &mut String, check: &CheckResult) {
    let total: f64 = check.results.iter().map(|r| r.millis).sum();
    let fails = check
        .results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Fails { .. }))
        .count();
    let unknown = check
        .results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Unknown { .. }))
        .count();
    let status = match (fails, unknown, check.role) {
        (0, 0, _) => "holds".to_owned(),
        (0, u, _) => format!("UNDECIDED in {u} environment(s)"),
        (f, _, Role::Verdict) => format!("FAILS in {f} of {} environment(s)", check.results.len()),
        (f, _, Role::Relation) => format!(
            "does not hold ({f} of {} environment(s))",
            check.results.len()
        ),
    };
    let _ = writeln!(
        out,
        "\n{:<20} {status}  [{} queries, {total:.0} ms]\n  {}",
        check.name,
        check.results.len(),
        check.statement
    );
    for r in &check.results {
        let at = match &r.policy {
            Some(p) => format!("{} (policy {p})", r.environment),
            None => r.environment.clone(),
        };
        match &r.verdict {
            Verdict::Holds => {}
            Verdict::Unknown { reason } => {
                let _ = writeln!(out, "  - {at}: undecided: {reason}");
            }
            Verdict::Fails { counterexample } => {
                let _ = writeln!(out, "  - counterexample at {at}:");
                for line in &counterexample.words {
                    let _ = writeln!(out, "      {line}");
                }
            }
        }
    }
}
