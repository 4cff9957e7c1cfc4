//! `cosec policy replay`: a recorded run re-decided under a new defense policy, printed
//! as a readable report or as JSON.

use crate::cli::SuiteSource;
use crate::error::CliError;
use crate::replay::{replay_run, Answer, Baseline, Policies, ReplayReport};
use cosec_policies::EmptyPolicy;
use cosec_proxy::guard::GuardPolicy;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// The flags of `cosec policy replay` beside the run folder.
pub struct Options<'a> {
    /// The new policy.
    pub policy: &'a Path,
    /// The baseline policy, if any.
    pub against: Option<&'a Path>,
    /// Print JSON.
    pub json: bool,
    /// Also write the JSON report here.
    pub out: Option<&'a Path>,
    /// Rows per table in the readable report.
    pub rows: usize,
    /// The suite the run used.
    pub source: &'a SuiteSource,
    /// Whether a policy file holding no policy is accepted.
    pub empty: EmptyPolicy,
}

/// `cosec policy replay RUN --policy NEW.cedar [--against OLD.cedar] [--json] [--out
/// FILE]`: exit code 0 once the replay ran; a policy that fails validation, a run
/// folder that cannot be read or a scenario the suite lacks is an error (exit code 2).
pub fn replay(run: &Path, opts: &Options<'_>) -> Result<ExitCode, CliError> {
    let load = |flag: &str, path: &Path| {
        GuardPolicy::from_file(path, opts.empty)
            .map(Arc::new)
            .map_err(|source| CliError::GuardPolicy {
                origin: format!("{flag} {}", path.display()),
                source,
            })
    };
    let policies = Policies {
        new: load("--policy", opts.policy)?,
        against: opts.against.map(|p| load("--against", p)).transpose()?,
    };
    let suite = super::scenarios::load(opts.source)?;
    let report = replay_run(run, &suite.scenarios, &policies)?;
    let json = serde_json::to_string_pretty(&report)?;
    if let Some(out) = opts.out {
        std::fs::write(out, format!("{json}\n")).map_err(CliError::io(out))?;
    }
    if opts.json {
        outln!("{json}");
    } else {
        out!("{}", render(&report, opts.rows));
    }
    Ok(ExitCode::SUCCESS)
}

fn of(part: usize, whole: usize) -> String {
    format!("{part} of {whole}")
}

/// The readable report: totals, then the changed decisions and the violations left.
pub fn render(r: &ReplayReport, rows: usize) -> String {
    let t = &r.totals;
    let baseline = match (r.baseline, &r.against) {
        (Baseline::Against, Some(file)) => format!("{file} on the same points"),
        _ => format!("the decisions recorded ({})", r.recorded_defense),
    };
    let mut out = String::new();
    let _ = writeln!(out, "policy replay: {} under {}", r.run, r.policy);
    let _ = writeln!(out, "changes counted from {baseline}");
    let _ = writeln!(
        out,
        "{} trials ({} not valid in the run, skipped); {} exact throughout, the others exact up to their first divergence and estimated after it\n",
        t.trials, t.skipped, t.exact_trials
    );
    let _ = writeln!(
        out,
        "decision points re-decided:   {} ({} denied)",
        t.points, t.denied
    );
    let _ = writeln!(
        out,
        "decisions changed:            {} (allow -> deny {}, deny -> allow {})",
        t.changed, t.allow_to_deny, t.deny_to_allow
    );
    let _ = writeln!(
        out,
        "recorded violations stopped:  {} (scored action: {}); {} answers are estimates",
        of(t.violations_stopped, t.violations),
        of(t.scored_violations_stopped, t.scored_violations),
        t.estimated_violations
    );
    let _ = writeln!(
        out,
        "trials still violating:       PVR {} -> {}, PVR-all {} -> {} (recorded trajectories)",
        t.pvr_trials, t.pvr_trials_left, t.pvr_all_trials, t.pvr_all_trials_left
    );
    let _ = writeln!(out, "{}", t.price.line());
    let changes: Vec<_> = r
        .trials
        .iter()
        .flat_map(|tr| tr.changes.iter().map(move |c| (tr, c)))
        .collect();
    if !changes.is_empty() {
        let _ = writeln!(
            out,
            "\nchanged decisions (first {} of {}):",
            rows.min(changes.len()),
            changes.len()
        );
        let _ = writeln!(
            out,
            "  {:<28} {:>4} {:>6}  {:<12} {:<9} {:<24} {:<26} policies",
            "scenario", "turn", "line", "change", "action", "object", "destination"
        );
        for (tr, c) in changes.iter().take(rows) {
            let change = match c.to {
                Answer::Deny => "allow->deny",
                Answer::Allow => "deny->allow",
            };
            let mut policies = c.policies.join(", ");
            if !c.errors.is_empty() {
                policies = format!("error: {}", c.errors.join("; "));
            }
            let _ = writeln!(
                out,
                "  {:<28} {:>4} {:>6}  {:<12} {:<9} {:<24} {:<26} {}{}",
                tr.scenario,
                c.turn,
                c.line,
                change,
                c.action.to_string(),
                c.object,
                c.destination,
                policies,
                if c.exact { "" } else { " (estimate)" }
            );
        }
    }
    let left: Vec<_> = r
        .trials
        .iter()
        .flat_map(|tr| {
            tr.violations
                .iter()
                .filter(|v| !v.stopped)
                .map(move |v| (tr, v))
        })
        .collect();
    if !left.is_empty() {
        let _ = writeln!(
            out,
            "\nrecorded violations not stopped (first {} of {}):",
            rows.min(left.len()),
            left.len()
        );
        for (tr, v) in left.iter().take(rows) {
            let _ = writeln!(
                out,
                "  {:<28} turn {:>2}  {:<24} -> {}{}{}",
                tr.scenario,
                v.turn,
                v.object,
                v.destination,
                if v.scored { " (scored)" } else { "" },
                if v.exact { "" } else { " (estimate)" }
            );
        }
    }
    out
}
