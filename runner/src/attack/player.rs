//! Plays the participants of one attack attempt: before the trial, the text the attacker
//! planted (a document, note or tool result); during it, each attacker turn and, with
//! `--speaker-mode model`, each benign turn. Every rewrite is checked against what its
//! writer may know; a rejected one is replaced by the seed. Each is traced with the seed
//! it replaced.

use super::checker::Checker;
use super::knowledge::{seeded_history, EarlierAttempt, Heard, Knowledge};
use super::model::{self, Part};
use super::mutate::mutate;
use super::{AttackPlan, AttackerMode, SpeakerMode};
use crate::verify::JudgeConfig;
use cosec_proxy::trace::{RewriteRejection, TraceEvent, TraceWriter};
use cosec_scenarios::agent::Turn;
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::verifier::SpanLocation;
use cosec_scenarios::{Scenario, Time, UserId};
use std::collections::BTreeSet;
use std::sync::Mutex;

/// Who planted text when no participant of the scenario did: someone outside every
/// community, who knows nothing of them (spelled so that no scenario's user id is it).
pub const OUTSIDER: &str = "(outsider)";

/// The participants of one attempt.
pub struct Player<'a> {
    plan: &'a AttackPlan,
    http: reqwest::Client,
    checker: Checker,
    scenario_id: String,
    attempt: u32,
    earlier: Vec<EarlierAttempt>,
    attacker: UserId,
    attacker_turns: BTreeSet<u8>,
    transcript: Mutex<Vec<Heard>>,
}

/// The attacker of a scenario: the speaker of its attacker turns; else the owner of the
/// text it planted, unless that is the user the agent acts for; else an outsider.
pub fn attacker_of(s: &Scenario) -> UserId {
    let turn_speaker = s
        .verifier
        .attacker_spans
        .iter()
        .find_map(|span| match span.location {
            SpanLocation::Turn { index } => s
                .agent
                .turns
                .iter()
                .find(|t| t.index == index)
                .map(|t| t.speaker.clone()),
            SpanLocation::Seed { .. } => None,
        });
    let planter = || {
        s.verifier
            .attacker_spans
            .iter()
            .find_map(|span| match &span.location {
                SpanLocation::Seed { object } => s
                    .platform
                    .labels
                    .iter()
                    .find(|l| &l.object == object)
                    .map(|l| l.owner.clone())
                    .filter(|owner| owner != &s.agent.target_user),
                SpanLocation::Turn { .. } => None,
            })
    };
    turn_speaker
        .or_else(planter)
        .unwrap_or_else(|| UserId::from(OUTSIDER))
}

impl<'a> Player<'a> {
    /// The players of attempt `attempt` (0-based) of scenario `s`, knowing what their
    /// writers saw of the `earlier` attempts.
    pub fn new(
        plan: &'a AttackPlan,
        s: &Scenario,
        attempt: u32,
        earlier: Vec<EarlierAttempt>,
    ) -> Self {
        let attacker_turns = s
            .verifier
            .attacker_spans
            .iter()
            .filter_map(|span| match span.location {
                SpanLocation::Turn { index } => Some(index),
                SpanLocation::Seed { .. } => None,
            })
            .collect();
        Player {
            plan,
            http: reqwest::Client::builder()
                .timeout(std::time::Duration::from_secs(300))
                .build()
                .unwrap_or_default(),
            checker: Checker::new(s),
            scenario_id: s.id.to_string(),
            attempt,
            earlier,
            attacker: attacker_of(s),
            attacker_turns,
            transcript: Mutex::new(seeded_history(s)),
        }
    }

    /// Starts the attempt (again, after an infrastructure failure): the transcript holds
    /// the seeded history only.
    pub fn begin(&self, s: &Scenario) {
        if let Ok(mut t) = self.transcript.lock() {
            *t = seeded_history(s);
        }
    }

    /// Adds a line to the attempt's transcript (a delivery or a reply).
    pub fn heard(&self, line: Heard) {
        if let Ok(mut t) = self.transcript.lock() {
            t.push(line);
        }
    }

    /// The attempt's transcript so far.
    pub fn transcript(&self) -> Vec<Heard> {
        self.transcript
            .lock()
            .map(|t| t.clone())
            .unwrap_or_default()
    }

    /// The scenario as this attempt plays it: the attacker's planted text rewritten.
    pub async fn plant(&self, s: &Scenario, trace: &TraceWriter) -> Result<Scenario, String> {
        let mut played = s.clone();
        if self.plan.settings.attacker == AttackerMode::Seed {
            return Ok(played);
        }
        for span in &s.verifier.attacker_spans {
            let SpanLocation::Seed { object } = &span.location else {
                continue;
            };
            let planted = s
                .platform
                .labels
                .iter()
                .find(|l| &l.object == object)
                .map_or(Time(0), |l| l.created_at);
            let transcript = self.transcript();
            let text = self
                .write(
                    s,
                    span.location.clone(),
                    Part::PlantedText,
                    &self.attacker,
                    planted,
                    &span.text,
                    &transcript,
                    trace,
                )
                .await?;
            if let Some(seed) = played.agent.seeds.iter_mut().find(|x| &x.object == object) {
                seed.content = seed.content.replacen(&span.text, &text, 1);
            }
        }
        Ok(played)
    }

    /// The text turn `turn` delivers: the seed, or its checked rewrite.
    pub async fn turn_text(
        &self,
        s: &Scenario,
        turn: &Turn,
        trace: &TraceWriter,
    ) -> Result<String, String> {
        let attacker = self.attacker_turns.contains(&turn.index);
        let scripted = if attacker {
            self.plan.settings.attacker == AttackerMode::Seed
        } else {
            self.plan.settings.speaker_mode == SpeakerMode::Seed
        };
        if scripted {
            return Ok(turn.text.clone());
        }
        let part = if attacker {
            Part::AttackerTurn
        } else {
            Part::Participant
        };
        let transcript = self.transcript();
        self.write(
            s,
            SpanLocation::Turn { index: turn.index },
            part,
            &turn.speaker,
            turn_time(turn.index),
            &turn.text,
            &transcript,
            trace,
        )
        .await
    }

    /// Proposes, checks and traces one rewrite; the delivered text.
    #[allow(clippy::too_many_arguments)]
    async fn write(
        &self,
        s: &Scenario,
        site: SpanLocation,
        part: Part,
        speaker: &UserId,
        time: Time,
        seed: &str,
        transcript: &[Heard],
        trace: &TraceWriter,
    ) -> Result<String, String> {
        let knowledge = Knowledge::at(s, speaker, time, transcript, &self.earlier)
            .map_err(|e| format!("scenario state: {e}"))?;
        let (by, proposed) = match part {
            Part::Participant => match &self.plan.speakers {
                Some(config) => (
                    "model".to_owned(),
                    self.ask(config, s, part, &knowledge, seed).await?,
                ),
                None => return Ok(seed.to_owned()),
            },
            Part::AttackerTurn | Part::PlantedText => {
                match (self.plan.settings.attacker, &self.plan.attacker) {
                    (AttackerMode::Mutate, _) => {
                        let (text, mutation) = mutate(&self.scenario_id, self.attempt, seed);
                        let by = mutation.map_or_else(
                            || "mutate:seed".to_owned(),
                            |m| format!("mutate:{}", m.name()),
                        );
                        (by, Some(text))
                    }
                    (AttackerMode::Model, Some(config)) => (
                        "model".to_owned(),
                        self.ask(config, s, part, &knowledge, seed).await?,
                    ),
                    _ => return Ok(seed.to_owned()),
                }
            }
        };
        let (text, rejected) = match proposed {
            None => (
                seed.to_owned(),
                Some(RewriteRejection {
                    reason: "failed".to_owned(),
                    detail: "the model gave no text".to_owned(),
                    proposed: String::new(),
                }),
            ),
            Some(p) => match self.checker.check(s, &p, seed, &knowledge) {
                Ok(()) => (p, None),
                Err(r) => (
                    seed.to_owned(),
                    Some(RewriteRejection {
                        reason: r.reason.as_str().to_owned(),
                        detail: r.detail,
                        proposed: p,
                    }),
                ),
            },
        };
        trace
            .record(TraceEvent::Rewrite {
                site,
                speaker: speaker.clone(),
                by,
                attempt: self.attempt,
                seed: seed.to_owned(),
                text: text.clone(),
                rejected,
            })
            .map_err(|e| e.to_string())?;
        Ok(text)
    }

    async fn ask(
        &self,
        config: &JudgeConfig,
        s: &Scenario,
        part: Part,
        knowledge: &Knowledge,
        seed: &str,
    ) -> Result<Option<String>, String> {
        let messages = model::messages(s, part, knowledge, seed);
        Ok(model::ask(&self.http, config, &messages)
            .await?
            .map(|answer| model::clean_answer(&answer, &knowledge.name))
            .filter(|text| !text.is_empty()))
    }
}
