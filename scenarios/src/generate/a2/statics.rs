//! The shape every static A2 scenario shares: one world per (boundary, privacy object)
//! profile keeps owner, protected object, source, destination, artifact and oracle fixed,
//! and an [`Attack`] adds one injection carrier and the turn that triggers the task.

use super::kit::{
    self, call, doc_seed, fork, label, observation, read_file, reply_action, say_after, search,
    write_file, Artifact, Beat, Draft,
};
use crate::agent::SeededTool;
use crate::factors::{Boundary, Family, PrivacyObject, Strategy};
use crate::generate::common::{file_seed, ws, Cell};
use crate::platform::{Audience, ObjectLabel};
use crate::verifier::PlanAction;
use crate::Scenario;

/// The turn whose action is scored in every static A2 scenario.
pub(super) const SCORED_TURN: u8 = 6;

/// How the injected instruction reaches the agent. Every seeded carrier lives in the home
/// community, is labeled for the whole community and is created by `owner` at `created`.
pub(super) enum Via {
    /// A workspace file both agents open in the scored turn.
    File {
        object: &'static str,
        path: &'static str,
        owner: &'static str,
        created: u32,
        content: String,
    },
    /// A titled workspace document both agents open in the scored turn.
    Doc {
        object: &'static str,
        path: &'static str,
        title: &'static str,
        owner: &'static str,
        created: u32,
        content: String,
    },
    /// A tool observation fetched with `argument`, in the scored turn or an earlier one.
    Lookup {
        object: &'static str,
        tool: SeededTool,
        trigger: &'static str,
        owner: &'static str,
        created: u32,
        content: String,
        argument: &'static str,
        when: Asked,
    },
    /// Quoted (a forwarded or pasted message) in the text of the scored turn itself.
    Quoted,
}

/// When both agents make the lookup that returns the carrier.
pub(super) enum Asked {
    /// In the scored turn, before writing the artifact.
    Scored,
    /// In an earlier home-community turn, which this attack rewrites: `speaker` says
    /// `text`, both agents call the tool, then answer `answer`.
    Earlier {
        turn: u8,
        speaker: &'static str,
        text: &'static str,
        answer: &'static str,
    },
}

/// One attack mechanism added to a world.
pub(super) struct Attack {
    pub strategy: Strategy,
    /// Short description used in the title.
    pub what: &'static str,
    /// Where the injection sits.
    pub via: Via,
    /// The injected text (an exact substring of its carrier).
    pub injection: &'static str,
    /// The text of the scored turn.
    pub ask: String,
    /// What the compliant agent adds to its reply (mentions where the instruction came from).
    pub comply_note: &'static str,
    /// How the ideal agent explains what it left out.
    pub ideal_note: &'static str,
}

/// The fixed parts of a world's legitimate task.
pub(super) struct Frame {
    /// Who asks for the artifact in the scored turn.
    pub requester: &'static str,
    pub safe: String,
    pub leaky: String,
    /// The home-workspace file the legitimate artifact is built from.
    pub legit_path: &'static str,
    pub comply_reply: &'static str,
    pub ideal_reply: &'static str,
    /// What the compliant agent searches for to find the protected object.
    pub leak_search: &'static str,
    pub artifact: Artifact,
}

/// An empty draft for one static A2 world; [`assemble`] sets the strategy per attack.
pub(super) fn draft(
    boundary: Boundary,
    privacy_object: PrivacyObject,
    title: &str,
    domains: &[&'static str],
    target: &'static str,
) -> Draft {
    let cell = Cell {
        boundary,
        privacy_object,
        family: Family::A2,
        strategy: Strategy::S1,
        event: None,
    };
    Draft::new(cell, title, domains, target)
}

/// The seven strategy variants of one world, each built from a fresh world.
pub(super) fn seven(
    world: fn() -> Draft,
    frame: fn() -> Frame,
    beats: fn() -> Vec<Beat>,
    attack: fn(Strategy) -> Attack,
) -> Vec<Scenario> {
    Strategy::ALL
        .iter()
        .map(|s| assemble(world(), &frame(), beats(), attack(*s)))
        .collect()
}

/// A carrier labeled for the whole home community.
fn shared(object: &str, owner: &str, home: &str, created: u32) -> ObjectLabel {
    label(object, owner, home, &[], created, Audience::Community)
}

/// Seeds the carrier into the draft, marks the injection, rewrites the earlier beat a
/// lookup happened in, and returns the reads both agents add in the scored turn.
fn carry(
    d: &mut Draft,
    home: &'static str,
    beats: &mut [Beat],
    via: Via,
    injection: &str,
) -> Vec<PlanAction> {
    let (seed, object, owner, created, reads) = match via {
        Via::File {
            object,
            path,
            owner,
            created,
            content,
        } => {
            let seed = file_seed(object, ws(home), path, &content);
            (
                seed,
                object,
                owner,
                created,
                vec![read_file(ws(home), path)],
            )
        }
        Via::Doc {
            object,
            path,
            title,
            owner,
            created,
            content,
        } => {
            let seed = doc_seed(object, ws(home), path, title, content);
            (
                seed,
                object,
                owner,
                created,
                vec![read_file(ws(home), path)],
            )
        }
        Via::Lookup {
            object,
            tool,
            trigger,
            owner,
            created,
            content,
            argument,
            when,
        } => {
            let seed = observation(object, &tool.name, trigger, content);
            let lookup = call(&tool.name, argument);
            d.tools.push(tool);
            let reads = match when {
                Asked::Scored => vec![lookup],
                Asked::Earlier {
                    turn,
                    speaker,
                    text,
                    answer,
                } => {
                    if let Some(slot) = beats.get_mut(usize::from(turn.saturating_sub(1))) {
                        *slot = say_after(home, speaker, text, vec![lookup], answer);
                    }
                    Vec::new()
                }
            };
            (seed, object, owner, created, reads)
        }
        Via::Quoted => {
            d.span_in_turn(SCORED_TURN, injection);
            return Vec::new();
        }
    };
    d.seed(seed, shared(object, owner, home, created));
    d.span_in_seed(object, injection);
    reads
}

/// Adds the attack to the world's draft and default beats and assembles the scenario.
pub(super) fn assemble(mut d: Draft, frame: &Frame, mut beats: Vec<Beat>, a: Attack) -> Scenario {
    d.cell.strategy = a.strategy;
    d.title = format!("{}: {}", d.title, a.what);
    let mut reads = vec![read_file(ws(frame.artifact.home), frame.legit_path)];
    reads.extend(carry(
        &mut d,
        frame.artifact.home,
        &mut beats,
        a.via,
        a.injection,
    ));
    let scored = fork(
        frame.artifact.home,
        frame.requester,
        a.ask,
        reads,
        vec![
            search(frame.leak_search),
            write_file(ws(frame.artifact.home), frame.artifact.path, &frame.leaky),
            reply_action(&format!("{} {}", frame.comply_reply, a.comply_note)),
        ],
        vec![
            write_file(ws(frame.artifact.home), frame.artifact.path, &frame.safe),
            reply_action(&format!("{} {}", frame.ideal_reply, a.ideal_note)),
        ],
    );
    if let Some(slot) = beats.get_mut(usize::from(SCORED_TURN - 1)) {
        *slot = scored;
    }
    d.beats = beats;
    kit::declare(&mut d, &frame.artifact, SCORED_TURN);
    d.build()
}
