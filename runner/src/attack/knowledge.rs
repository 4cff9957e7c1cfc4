//! What a participant may know at a moment of a trial: the messages of the communities
//! they belonged to when each was said (seeded session history, participants' turns,
//! the agent's replies, the platform's event notices), and, in an adaptive search, what
//! they saw of their earlier attempts. Built from the agent and platform tiers and the
//! trial's own transcript; the verifier tier never enters it.

use cosec_scenarios::agent::Surface;
use cosec_scenarios::ids::FIRST_TURN_TIME;
use cosec_scenarios::{CommunityId, CommunityState, Scenario, Time, UserId};

/// Who said a line of a community's conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Voice {
    /// A participant.
    Person(UserId),
    /// The agent (a reply in the community's session).
    Agent,
    /// The platform (an event notice).
    Platform,
}

/// One line said in a community at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heard {
    /// The community it was said in.
    pub community: CommunityId,
    /// When.
    pub time: Time,
    /// Who said it.
    pub voice: Voice,
    /// What was said.
    pub text: String,
}

/// What a participant saw of one earlier attempt of an adaptive search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EarlierAttempt {
    /// The lines of that attempt the participant saw (their turns and the agent's replies).
    pub heard: Vec<Heard>,
    /// Whether the attempt leaked, shown only with `--oracle-feedback`.
    pub leaked: Option<bool>,
}

/// Everything a participant may know when writing their next message.
#[derive(Debug, Clone)]
pub struct Knowledge {
    /// The participant.
    pub participant: UserId,
    /// Their display name.
    pub name: String,
    /// The moment of the message.
    pub time: Time,
    /// Communities they belong to at that moment: id, name and description.
    pub communities: Vec<(CommunityId, String, String)>,
    /// Lines they saw, in order.
    pub heard: Vec<Heard>,
    /// What they saw of earlier attempts (adaptive search only).
    pub earlier: Vec<EarlierAttempt>,
}

/// The seeded session history of a scenario, each message at its label's creation time
/// (before the first turn when the label is missing).
pub fn seeded_history(s: &Scenario) -> Vec<Heard> {
    let mut lines: Vec<Heard> = s
        .agent
        .seeds
        .iter()
        .filter_map(|seed| match &seed.surface {
            Surface::SessionHistory { community, speaker } => Some(Heard {
                community: community.clone(),
                time: s
                    .platform
                    .labels
                    .iter()
                    .find(|l| l.object == seed.object)
                    .map_or(Time(FIRST_TURN_TIME.0.saturating_sub(1)), |l| l.created_at),
                voice: Voice::Person(speaker.clone()),
                text: seed.content.clone(),
            }),
            _ => None,
        })
        .collect();
    lines.sort_by_key(|h| h.time);
    lines
}

impl Knowledge {
    /// What `participant` may know at `time`, from the trial's `transcript` so far (the
    /// seeded history first, then what was delivered and answered) and the earlier
    /// attempts' lines. A line counts when the participant was a member of its
    /// community when it was said; an earlier attempt's lines by the same rule.
    pub fn at(
        s: &Scenario,
        participant: &UserId,
        time: Time,
        transcript: &[Heard],
        earlier: &[EarlierAttempt],
    ) -> Result<Self, cosec_scenarios::StateError> {
        let state = CommunityState::at(&s.platform, time)?;
        // Membership over the whole scenario: an earlier attempt's lines run to its end.
        let history = CommunityState::at(&s.platform, Time(u32::MAX))?;
        let was_there = |h: &Heard| history.was_member(participant, &h.community, h.time);
        let saw = |h: &Heard| h.time <= time && was_there(h);
        let communities = state
            .current_communities(participant)
            .into_iter()
            .map(|c| {
                let info = s.agent.communities.iter().find(|i| i.id == c);
                (
                    c.clone(),
                    info.map_or_else(|| c.to_string(), |i| i.name.clone()),
                    info.map_or_else(String::new, |i| i.description.clone()),
                )
            })
            .collect();
        let earlier = earlier
            .iter()
            .map(|a| EarlierAttempt {
                heard: a.heard.iter().filter(|h| was_there(h)).cloned().collect(),
                leaked: a.leaked,
            })
            .collect();
        Ok(Knowledge {
            participant: participant.clone(),
            name: s.agent.person_name(participant).to_owned(),
            time,
            communities,
            heard: transcript.iter().filter(|h| saw(h)).cloned().collect(),
            earlier,
        })
    }

    /// Every text the participant saw, one per line: what a rewrite may repeat.
    pub fn known_text(&self) -> String {
        let mut text = String::new();
        for h in self
            .heard
            .iter()
            .chain(self.earlier.iter().flat_map(|a| a.heard.iter()))
        {
            text.push_str(&h.text);
            text.push('\n');
        }
        text
    }
}
