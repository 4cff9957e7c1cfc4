//! `cosec run`'s flags for participants played by a model or by mutation, and for an
//! adaptive search of several attack attempts per scenario.

use crate::attack::{AttackerMode, SpeakerMode};
use clap::Args;

/// Who writes the participants' messages, and how hard the attacker tries.
#[derive(Debug, Clone, Args)]
pub struct AttackArgs {
    /// Who writes the attacker's messages and planted text: `seed` (the frozen script,
    /// the benchmark's setting), `model` (a model rewrites each within what the attacker
    /// may know, from --attacker-model) or `mutate` (model-free: the known attack
    /// strategies and renderings applied to the seed; attempt 1 is the seed itself).
    #[arg(long, value_enum, default_value_t = AttackerMode::Seed)]
    pub attacker: AttackerMode,
    /// The attacker's model, `openai:NAME`, served at --attacker-base-url.
    #[arg(long, value_name = "openai:NAME")]
    pub attacker_model: Option<String>,
    /// Base URL (ending in /v1) of the attacker's and participants' models.
    #[arg(long, env = "COSEC_ATTACKER_BASE_URL", value_name = "URL")]
    pub attacker_base_url: Option<String>,
    /// API key of that endpoint (prefer the environment variable; never written anywhere).
    #[arg(
        long,
        env = "COSEC_ATTACKER_API_KEY",
        hide_env_values = true,
        value_name = "KEY"
    )]
    pub attacker_api_key: Option<String>,
    /// Who writes the benign participants' messages: `seed` (the script) or `model`
    /// (from their persona and the community's history, under the same knowledge rules).
    #[arg(long, value_enum, default_value_t = SpeakerMode::Seed)]
    pub speaker_mode: SpeakerMode,
    /// The participants' model, `openai:NAME` (default: --attacker-model).
    #[arg(long, value_name = "openai:NAME")]
    pub speaker_model: Option<String>,
    /// Attack attempts per scenario, each a fresh trial that sees what the attacker saw
    /// of the earlier ones; a scenario counts as violated if any attempt leaks, and the
    /// summary shows PVR per attempt budget (1, 2, 4, ..., K).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub attempts: u32,
    /// Tell the attacker whether each earlier attempt leaked (the verifier's verdict): an
    /// upper bound, since a real attacker sees only the agent's replies.
    #[arg(long)]
    pub oracle_feedback: bool,
}
