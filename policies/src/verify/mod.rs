//! Proofs about defense policies with Cedar's symbolic compiler (`cedar-policy-symcc`)
//! and the cvc5 SMT solver: a defense never errors, never allows what the oracle
//! denies (for every entity store the schema allows under the domain assumptions of
//! `policies/assumptions.cedar`), how it relates to another defense, and a researcher's
//! own property. A failed check comes with a counterexample, replayed through Cedar's
//! concrete authorizer, described in plain words, and exportable as a scenario.
//!
//! What a proof covers and what it does not is in docs/verify.md.

mod counterexample;
mod prove;
mod scenario;
mod sets;
mod solver;

pub use counterexample::{Counterexample, Replay};
pub use prove::{find_exportable, verify};
pub use scenario::{export_scenario, ScenarioExport};
pub use sets::{assumptions_source, with_read_as_egress, ASSUMPTIONS_SOURCE};
pub use solver::{find_cvc5, INSTALL_HINT};

use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;

/// Why verification could not run (a check that fails is a [`Verdict`], not an error).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// A policy file, the oracle or the schema could not be loaded.
    #[error(transparent)]
    Policy(#[from] crate::PolicyError),
    /// cvc5 is not installed or not where `CVC5` points.
    #[error("the cvc5 SMT solver was not found (looked for {looked}); {INSTALL_HINT}")]
    SolverMissing {
        /// Where it was looked for.
        looked: String,
    },
    /// cvc5 was found but could not be started.
    #[error("cannot start cvc5 at `{path}`: {message}; {INSTALL_HINT}")]
    SolverStart {
        /// The executable.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The symbolic compiler refused a policy set or failed to talk to the solver.
    #[error("symbolic check `{check}` of {environment} failed to run: {message}")]
    Symbolic {
        /// The check.
        check: String,
        /// The request environment.
        environment: String,
        /// The compiler's or solver's explanation.
        message: String,
    },
    /// A counterexample did not replay to the disagreement the solver claimed: a bug in
    /// the encoding or the solver, so no verdict can be trusted.
    #[error("counterexample of `{check}` at {environment} does not replay: {message}")]
    Replay {
        /// The check.
        check: String,
        /// The request environment.
        environment: String,
        /// What the concrete authorizer said instead.
        message: String,
    },
    /// The async runtime the solver needs could not be built.
    #[error("cannot start the runtime that drives cvc5: {0}")]
    Runtime(String),
    /// A counterexample could not be turned into a scenario.
    #[error("cannot export the counterexample as a scenario: {0}")]
    Export(String),
    /// Writing the scenario failed.
    #[error("cannot write `{path}`: {source}")]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// A policy file's text and the name diagnostics give it.
#[derive(Debug, Clone)]
pub struct PolicyText {
    /// The path or name shown in messages.
    pub name: String,
    /// The Cedar source.
    pub text: String,
}

/// What to verify beside never-errors and soundness against the oracle.
#[derive(Debug, Clone)]
pub struct VerifyRequest {
    /// The defense policy.
    pub defense: PolicyText,
    /// `--against`: a second defense to relate the first to (implies, implied by,
    /// equivalent, disjoint). The relations describe; they are not verdicts.
    pub against: Option<PolicyText>,
    /// `--property`: a policy set the defense must imply (a verdict).
    pub property: Option<PolicyText>,
    /// Per-query solver time limit.
    pub timeout: Duration,
}

/// Whether a check is a pass/fail verdict or a description of a relation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Failing it fails `cosec policy verify`.
    Verdict,
    /// Reported with counterexamples; the exit code does not depend on it.
    Relation,
}

/// The result of one check in one request environment.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// Proved.
    Holds,
    /// Refuted, with a replayed counterexample.
    Fails {
        /// The counterexample.
        counterexample: Box<Counterexample>,
    },
    /// The solver gave no answer within the time limit: not a proof.
    Unknown {
        /// Why.
        reason: String,
    },
}

/// One check in one request environment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnvResult {
    /// `principal type, action, resource type`.
    pub environment: String,
    /// For never-errors, the policy checked (its `@id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// The outcome.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Compilation plus solving, in milliseconds.
    pub millis: f64,
}

/// One check over every environment it applies to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckResult {
    /// Short name (`never-errors`, `implies-oracle`, ...).
    pub name: String,
    /// What it proves, in words.
    pub statement: String,
    /// Verdict or relation.
    pub role: Role,
    /// Each environment's outcome.
    pub results: Vec<EnvResult>,
}

impl CheckResult {
    /// Whether every environment was proved.
    pub fn holds(&self) -> bool {
        self.results.iter().all(|r| r.verdict == Verdict::Holds)
    }

    /// The counterexamples found, environment by environment.
    pub fn counterexamples(&self) -> impl Iterator<Item = &Counterexample> {
        self.results.iter().filter_map(|r| match &r.verdict {
            Verdict::Fails { counterexample } => Some(counterexample.as_ref()),
            _ => None,
        })
    }
}

/// Everything `cosec policy verify` found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerifyReport {
    /// The defense file.
    pub defense: String,
    /// The solver used.
    pub solver: String,
    /// Every check, in the order run.
    pub checks: Vec<CheckResult>,
}

impl VerifyReport {
    /// Whether every verdict check holds (relations do not count).
    pub fn proved(&self) -> bool {
        self.checks
            .iter()
            .filter(|c| c.role == Role::Verdict)
            .all(CheckResult::holds)
    }

    /// The first counterexample of a failed oracle-soundness check: egress actions
    /// before `receive`, `read` last (the one a scenario reproduces most directly).
    pub fn oracle_counterexample(&self) -> Option<&Counterexample> {
        let oracle = ["implies-oracle", "read-implies-oracle"];
        let mut found: Vec<&Counterexample> = self
            .checks
            .iter()
            .filter(|c| oracle.contains(&c.name.as_str()))
            .flat_map(CheckResult::counterexamples)
            .collect();
        found.sort_by_key(|c| match c.action.as_str() {
            "receive" => 1,
            "read" => 2,
            _ => 0,
        });
        found.into_iter().next()
    }
}
