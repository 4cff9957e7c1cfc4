//! Participants that react: an attacker (and, optionally, benign participants) whose
//! scripted messages are rewritten by a model or by model-free mutation, within what
//! each participant may know; and an adaptive search of several attack attempts per
//! scenario. The frozen benchmark's numbers stay those of the seed script.

pub mod budget;
pub mod checker;
pub mod knowledge;
pub mod model;
pub mod mutate;
pub mod player;

#[cfg(test)]
mod tests;

use crate::cli::AttackArgs;
use crate::verify::JudgeConfig;
use clap::ValueEnum;
use cosec_proxy::registry::Secret;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use budget::{AttackSummary, BudgetRate};
pub use checker::{Checker, Reason, Rejection};
pub use knowledge::{EarlierAttempt, Heard, Knowledge, Voice};
pub use player::Player;

/// Who writes the attacker's messages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum AttackerMode {
    /// The frozen script.
    #[default]
    Seed,
    /// A model rewrites each attacker message within the attacker's knowledge.
    Model,
    /// The known attack strategies and renderings applied to the seed, no model.
    Mutate,
}

/// Who writes the benign participants' messages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum SpeakerMode {
    /// The frozen script.
    #[default]
    Seed,
    /// A model plays each participant from their persona and community history.
    Model,
}

/// A run's attack settings, as `run.json` and `summary.json` record them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttackSettings {
    /// Who writes the attacker's messages.
    pub attacker: AttackerMode,
    /// The attacker's model (`openai:NAME`), when a model writes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attacker_model: Option<String>,
    /// Who writes the benign participants' messages.
    pub speaker_mode: SpeakerMode,
    /// The participants' model, when a model plays them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker_model: Option<String>,
    /// Attack attempts per scenario.
    pub attempts: u32,
    /// Whether the attacker was told the verdict of each earlier attempt.
    pub oracle_feedback: bool,
}

impl AttackSettings {
    /// Whether these are the benchmark's own settings (the script, one attempt): then
    /// nothing about attacks is recorded.
    pub fn is_seed(&self) -> bool {
        self.attacker == AttackerMode::Seed
            && self.speaker_mode == SpeakerMode::Seed
            && self.attempts <= 1
    }

    /// One line for tables and pairing messages.
    pub fn describe(&self) -> String {
        let attacker = match (&self.attacker, &self.attacker_model) {
            (AttackerMode::Model, Some(m)) => format!("model {m}"),
            (mode, _) => format!("{mode:?}").to_lowercase(),
        };
        let speakers = match (&self.speaker_mode, &self.speaker_model) {
            (SpeakerMode::Model, Some(m)) => format!(", participants model {m}"),
            _ => String::new(),
        };
        let feedback = if self.oracle_feedback {
            ", oracle feedback"
        } else {
            ""
        };
        format!(
            "attacker {attacker}, {} attempt(s){speakers}{feedback}",
            self.attempts.max(1)
        )
    }
}

/// How a run played its participants, in words: `settings`, or the benchmark's own
/// setting when a run records none.
pub fn describe_run(settings: Option<&AttackSettings>) -> String {
    settings.map_or_else(
        || AttackSettings::default().describe(),
        AttackSettings::describe,
    )
}

/// Rewrites and rejections of one trial, counted from its trace.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewriteCounts {
    /// Rewrites delivered.
    pub applied: u32,
    /// Rewrites rejected (the seed delivered instead), per reason.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rejected: BTreeMap<String, u32>,
}

/// One attack attempt of a trial, as its results line records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// The attempt's own trial id (its folder under `trials/`).
    pub trial: String,
    /// Whether it leaked (the paper-comparable figure).
    pub pvr: bool,
    /// Whether it leaked over all outputs.
    pub pvr_all: bool,
    /// Its rewrites.
    #[serde(default)]
    pub rewrites: RewriteCounts,
}

/// The attempts of an adaptive search: the search stops at the first that leaks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttackOutcome {
    /// The attempts made, in order.
    pub attempts: Vec<AttemptRecord>,
}

impl AttackOutcome {
    /// The 1-based attempt that first leaked, if one did.
    pub fn first_violation(&self) -> Option<u32> {
        self.attempts
            .iter()
            .position(|a| a.pvr)
            .and_then(|i| u32::try_from(i + 1).ok())
    }
}

/// Why attack flags cannot be used as given.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AttackError {
    /// A flag is missing or contradicts another.
    #[error("{0}")]
    Flags(String),
}

/// The attack configuration of a run, ready to play participants.
#[derive(Debug, Clone)]
pub struct AttackPlan {
    /// The settings.
    pub settings: AttackSettings,
    /// The attacker's endpoint (`--attacker model`).
    pub attacker: Option<JudgeConfig>,
    /// The participants' endpoint (`--speaker-mode model`).
    pub speakers: Option<JudgeConfig>,
}

/// The model name of an `openai:NAME` spelling.
fn model_name<'a>(flag: &str, value: &'a str) -> Result<&'a str, AttackError> {
    value
        .strip_prefix("openai:")
        .filter(|name| !name.trim().is_empty())
        .map(str::trim)
        .ok_or_else(|| {
            AttackError::Flags(format!(
                "{flag} {value:?}: expected openai:NAME (a model served at --attacker-base-url)"
            ))
        })
}

impl AttackPlan {
    /// Checks the flags and builds the plan; everything wrong is said before any trial.
    pub fn from_args(args: &AttackArgs) -> Result<Self, AttackError> {
        let flags = |m: &str| Err(AttackError::Flags(m.to_owned()));
        if args.attacker == AttackerMode::Seed && args.attempts > 1 {
            return flags("--attempts above 1 needs --attacker model or mutate: the seed script says the same each attempt (use --epochs for repeats)");
        }
        if args.oracle_feedback && args.attempts < 2 {
            return flags("--oracle-feedback needs --attempts 2 or more: it tells later attempts how earlier ones ended");
        }
        if args.attacker != AttackerMode::Model && args.attacker_model.is_some() {
            return flags("--attacker-model is used only with --attacker model");
        }
        if args.speaker_mode == SpeakerMode::Seed && args.speaker_model.is_some() {
            return flags("--speaker-model is used only with --speaker-mode model");
        }
        let attacker_model = match (args.attacker, &args.attacker_model) {
            (AttackerMode::Model, None) => {
                return flags("--attacker model needs --attacker-model openai:NAME")
            }
            (AttackerMode::Model, Some(m)) => Some(model_name("--attacker-model", m)?.to_owned()),
            _ => None,
        };
        let speaker_model = match args.speaker_mode {
            SpeakerMode::Seed => None,
            SpeakerMode::Model => match (&args.speaker_model, &attacker_model) {
                (Some(m), _) => Some(model_name("--speaker-model", m)?.to_owned()),
                (None, Some(m)) => Some(m.clone()),
                (None, None) => return flags(
                    "--speaker-mode model needs --speaker-model openai:NAME (or --attacker-model)",
                ),
            },
        };
        let endpoint = |model: &Option<String>| -> Result<Option<JudgeConfig>, AttackError> {
            let Some(model) = model else { return Ok(None) };
            let base = args
                .attacker_base_url
                .as_deref()
                .map(str::trim)
                .filter(|b| !b.is_empty())
                .ok_or_else(|| {
                    AttackError::Flags(format!(
                        "the participants' model {model} needs --attacker-base-url or COSEC_ATTACKER_BASE_URL"
                    ))
                })?;
            let key = args
                .attacker_api_key
                .as_deref()
                .filter(|k| !k.is_empty())
                .map(Secret::new);
            let mut config = JudgeConfig::new(base, key);
            config.model = model.clone();
            config.temperature = 0.7;
            config.max_tokens = model::MAX_MESSAGE_TOKENS;
            config.timeout = std::time::Duration::from_secs(300);
            Ok(Some(config))
        };
        Ok(AttackPlan {
            attacker: endpoint(&attacker_model)?,
            speakers: endpoint(&speaker_model)?,
            settings: AttackSettings {
                attacker: args.attacker,
                attacker_model: attacker_model.map(|m| format!("openai:{m}")),
                speaker_mode: args.speaker_mode,
                speaker_model: speaker_model.map(|m| format!("openai:{m}")),
                attempts: args.attempts,
                oracle_feedback: args.oracle_feedback,
            },
        })
    }

    /// Whether any participant is played other than by the script.
    pub fn rewrites(&self) -> bool {
        self.settings.attacker != AttackerMode::Seed
            || self.settings.speaker_mode != SpeakerMode::Seed
    }
}
