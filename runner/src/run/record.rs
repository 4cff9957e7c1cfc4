//! The `run.json` record of a run folder: what makes `--resume`, `cosec merge` and
//! `cosec compare` safe, and the summary's configuration derived from it.

use crate::json_file::JsonFileError;
use crate::metrics::{Digests, RunConfig};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Version of `run.json`.
pub const RUN_RECORD_VERSION: u32 = 1;

/// What a run folder was started with; `--resume` must match it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Format version.
    pub schema_version: u32,
    /// Harness name.
    pub harness: String,
    /// Model spelling as given (`sim:comply`, `openai:NAME`).
    pub model: String,
    /// Defense condition.
    pub defense: String,
    /// Judge model or `none`.
    pub judge: String,
    /// Scenario ids in the run.
    pub scenarios: Vec<String>,
    /// Digest of the suite or of the custom scenario files.
    pub suite_digest: String,
    /// The suite version its manifest records (absent for custom scenario files and in
    /// run folders written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_version: Option<u32>,
    /// Custom scenarios or a modified suite.
    pub outside_frozen_suite: bool,
    /// sha256 of the defense policy (`--defense proxy`).
    #[serde(default)]
    pub policy_digest: Option<String>,
    /// `enforce` or `shadow` (`--defense proxy`).
    #[serde(default)]
    pub guard_mode: Option<String>,
    /// The guard's layers when not both (`input` or `output`; `--defense proxy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard_layers: Option<String>,
    /// sha256 of the guardrail paragraph (`--defense prompt`).
    #[serde(default)]
    pub guardrail_digest: Option<String>,
    /// Random-looking salt of trial ids, fixed for the run.
    pub nonce: String,
    /// The slice of `scenarios` this folder runs (`--shard K/N`); absent for a whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::scale::shard::Shard>,
    /// The run's name in reports (`--label`; default: the folder's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Where the defense policy came from (`--policy` path, or the built-in file's
    /// name); its text is kept beside as `policy.cedar`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_source: Option<String>,
    /// `--temperature`, sent with every model call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// `--seed`, sent with every model call (repeat `e` of `--epochs` is sent `seed + e`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Trials per scenario (`--epochs`); absent when 1.
    #[serde(
        default = "crate::metrics::one",
        skip_serializing_if = "crate::metrics::single"
    )]
    pub epochs: u32,
    /// Who played the participants and how many attack attempts each scenario had;
    /// absent for the benchmark's own setting (the script, one attempt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attack: Option<crate::attack::AttackSettings>,
}

/// Reads `DIR/run.json`.
pub fn read_record(dir: &Path) -> Result<RunRecord, JsonFileError> {
    let hint = format!(" (is {} a cosec run folder?)", dir.display());
    crate::json_file::read(&dir.join("run.json"), &hint)
}

/// The summary config of a run from its record (for `cosec report`).
pub fn config_from_record(r: &RunRecord) -> RunConfig {
    RunConfig {
        cosec_version: env!("CARGO_PKG_VERSION").to_owned(),
        git_commit: option_env!("COSEC_GIT_COMMIT").map(str::to_owned),
        harness: r.harness.clone(),
        harness_version: None,
        sandbox: None,
        model: r.model.clone(),
        simulated_model: r.model.starts_with("sim:"),
        defense: r.defense.clone(),
        judge: r.judge.clone(),
        outside_frozen_suite: r.outside_frozen_suite,
        digests: Digests {
            suite: r.suite_digest.clone(),
            policy: r.policy_digest.clone(),
            guardrail: r.guardrail_digest.clone(),
            judge_prompt: crate::metrics::judge_prompt_digest(),
            judge_prompt_version: crate::verify::judge::prompt_version().to_owned(),
        },
        epochs: r.epochs,
        attack: r.attack.clone(),
    }
}
