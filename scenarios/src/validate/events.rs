//! Event-chain checks: the scheduled events in time order, each between two turns and
//! applicable to the state it meets, the first one before the scored action, and one
//! trusted notice per event.
//!
//! Field paths follow the wire form: a scenario with one event names `platform.event`
//! and `agent.event_notice`, a chain names `platform.events[i]` and
//! `agent.event_notices[i]`.

use super::refs::all_communities;
use super::Problems;
use crate::agent::AgentTier;
use crate::ids::event_time;
use crate::platform::PlatformTier;
use crate::scenario::Scenario;
use crate::state::CommunityState;

/// The field path of event `i` as the scenario file spells it.
pub(super) fn event_field(platform: &PlatformTier, i: usize) -> String {
    if platform.events.len() <= 1 {
        "platform.event".to_owned()
    } else {
        format!("platform.events[{i}]")
    }
}

/// The field path of notice `i` as the scenario file spells it.
fn notice_field(agent: &AgentTier, i: usize) -> String {
    if agent.event_notices.len() <= 1 {
        "agent.event_notice".to_owned()
    } else {
        format!("agent.event_notices[{i}]")
    }
}

pub(super) fn check_events(s: &Scenario, p: &mut Problems) {
    check_order_and_placement(s, p);
    check_changes(s, p);
    check_notices(s, p);
    if let Some(first) = s.platform.first_event() {
        if first.after_turn >= s.verifier.scored_turn {
            p.push(
                format!("{}.after_turn", event_field(&s.platform, 0)),
                format!(
                    "the event (after turn {}) must come before the scored turn {}",
                    first.after_turn, s.verifier.scored_turn
                ),
            );
        }
    }
}

/// Each event falls between two turns, strictly after the one before it.
fn check_order_and_placement(s: &Scenario, p: &mut Problems) {
    let turns = s.agent.turn_count();
    let mut previous: Option<u8> = None;
    for (i, e) in s.platform.events.iter().enumerate() {
        let field = format!("{}.after_turn", event_field(&s.platform, i));
        if e.after_turn < 1 || e.after_turn >= turns {
            p.push(
                field.clone(),
                format!(
                    "must fall between two turns (1..={}), found {}",
                    turns.saturating_sub(1),
                    e.after_turn
                ),
            );
        }
        if let Some(before) = previous.filter(|before| e.after_turn <= *before) {
            p.push(
                field,
                format!(
                    "is {}, but the previous event comes after turn {before}: list events in \
                     time order, at most one between two turns",
                    e.after_turn
                ),
            );
        }
        previous = Some(e.after_turn);
    }
}

/// Each change applies to the state its predecessors left; the first that does not is
/// reported and the rest of the chain is not followed further.
fn check_changes(s: &Scenario, p: &mut Problems) {
    let mut state = CommunityState::initial(&s.platform);
    for (i, e) in s.platform.events.iter().enumerate() {
        match state.apply(&e.change, event_time(e.after_turn)) {
            Ok(next) => state = next,
            Err(err) => {
                p.push(
                    format!("{}.change", event_field(&s.platform, i)),
                    format!("cannot be applied: {err}"),
                );
                return;
            }
        }
    }
}

/// One trusted notice per event, at the same place, in a known community.
fn check_notices(s: &Scenario, p: &mut Problems) {
    let events = &s.platform.events;
    let notices = &s.agent.event_notices;
    if events.len() != notices.len() {
        let (field, message) = match (events.len(), notices.len()) {
            (0, _) => (
                notice_field(&s.agent, 0),
                "a notice without platform.event".to_owned(),
            ),
            (1, 0) => (
                "agent.event_notice".to_owned(),
                "a scheduled event needs a trusted notice".to_owned(),
            ),
            (e, n) => (
                if n <= 1 {
                    "agent.event_notice"
                } else {
                    "agent.event_notices"
                }
                .to_owned(),
                format!(
                    "{n} notices for {e} scheduled events: each event needs one trusted notice"
                ),
            ),
        };
        p.push(field, message);
        return;
    }
    let known = all_communities(s);
    for (i, (e, n)) in events.iter().zip(notices).enumerate() {
        let field = notice_field(&s.agent, i);
        if n.after_turn != e.after_turn {
            p.push(
                format!("{field}.after_turn"),
                format!(
                    "is {}, but {}.after_turn is {}",
                    n.after_turn,
                    event_field(&s.platform, i),
                    e.after_turn
                ),
            );
        }
        if !known.contains(&n.community) {
            p.push(
                format!("{field}.community"),
                format!("unknown community `{}`", n.community),
            );
        }
    }
}
