//! The one reading of a reference plan: which steps each simulated agent takes in which
//! turn, what each step brings into its session (a read, search or lookup), which file
//! it writes, and what it puts out where. The simulated models, scenario validation,
//! the verifier's calibration and the guard's suite tests all play plans through it,
//! so they agree on every step.
//!
//! Files start as the seeded files plus the private memory file. A `remember` step
//! writes its own note, `memory/note-turn<T>-<P>.md` (`P` is the step's place among
//! the agent's steps of that turn), as a simulated model does; copies and shares move a
//! file's content as it is when the step runs.

use crate::agent::{Namespace, Surface, Turn, MEMORY_NOTES_FILE};
use crate::platform::Destination;
use crate::scenario::Scenario;
use crate::search;
use crate::verifier::{Action, PlanAction, PlanStep, ReferencePlan, StepTaker};
use std::collections::BTreeMap;

/// Files by namespace and path.
pub type Files = BTreeMap<(Namespace, String), String>;

/// Which simulated agent's steps are played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlanKind {
    /// The fully compliant agent: every step but the ideal agent's alternatives.
    Compliant,
    /// The ideal agent: every step but the attack-induced ones.
    Ideal,
}

impl PlanKind {
    /// How messages name this agent's plan.
    pub fn name(self) -> &'static str {
        match self {
            PlanKind::Compliant => "compliant",
            PlanKind::Ideal => "ideal",
        }
    }

    /// Whether this agent takes a step of `taker`.
    pub fn takes(self, taker: StepTaker) -> bool {
        match self {
            PlanKind::Compliant => taker != StepTaker::IdealOnly,
            PlanKind::Ideal => taker != StepTaker::CompliantOnly,
        }
    }
}

impl ReferencePlan {
    /// The steps `kind` takes, in plan order.
    pub fn steps_of(&self, kind: PlanKind) -> impl Iterator<Item = &PlanStep> {
        self.steps.iter().filter(move |s| kind.takes(s.taker))
    }

    /// The steps `kind` takes in `turn`, in plan order.
    pub fn steps_in(&self, kind: PlanKind, turn: u8) -> impl Iterator<Item = &PlanStep> {
        self.steps_of(kind).filter(move |s| s.turn == turn)
    }
}

/// The memory note a `remember` step writes: its path inside the memory namespace.
pub fn memory_note_path(turn: u8, position: usize) -> String {
    format!("note-turn{turn}-{position}.md")
}

/// The seeded files and documents of a scenario.
pub fn seeded_files(s: &Scenario) -> Files {
    let mut files = Files::new();
    for seed in &s.agent.seeds {
        if let Surface::File { namespace, path }
        | Surface::Document {
            namespace, path, ..
        } = &seed.surface
        {
            files.insert((namespace.clone(), path.clone()), seed.content.clone());
        }
    }
    files
}

/// The private memory file as seeded (entries separated by a blank line), if any.
pub fn memory_notes(s: &Scenario) -> Option<String> {
    let entries: Vec<&str> = s
        .agent
        .seeds
        .iter()
        .filter(|seed| matches!(seed.surface, Surface::PrivateMemory))
        .map(|seed| seed.content.trim_end())
        .collect();
    (!entries.is_empty()).then(|| format!("{}\n", entries.join("\n\n")))
}

/// The files before any step: seeded files and the private memory file.
pub fn starting_files(s: &Scenario) -> Files {
    let mut files = seeded_files(s);
    if let Some(notes) = memory_notes(s) {
        files.insert((Namespace::Memory, MEMORY_NOTES_FILE.to_owned()), notes);
    }
    files
}

/// What seeded lookup `tool` returns for `argument`: each observation it triggers, one
/// per line, or nothing.
pub fn lookup(s: &Scenario, tool: &str, argument: &str) -> String {
    let mut text = String::new();
    for seed in &s.agent.seeds {
        if let Surface::ToolObservation { tool: t, trigger } = &seed.surface {
            if t == tool && search::triggers(trigger, argument) {
                text.push_str(&seed.content);
                text.push('\n');
            }
        }
    }
    text
}

/// The snippets `search(query)` shows over `files`, best first, one per line.
pub fn search_files(files: &Files, query: &str) -> String {
    let mut ordered: Vec<(String, &str)> = files
        .iter()
        .map(|((namespace, path), content)| (namespace.tool_path(path), content.as_str()))
        .collect();
    ordered.sort_unstable();
    let texts: Vec<&str> = ordered.iter().map(|(_, text)| *text).collect();
    search::ranked(&texts, &search::query_words(query))
        .into_iter()
        .take(search::MAX_HITS)
        .map(|hit| search::snippet(hit.paragraph) + "\n")
        .collect()
}

/// What a step puts out: the action the oracle is asked about, where it goes, and
/// what arrives there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outbound {
    /// The flow's action.
    pub action: Action,
    /// Where it goes (the turn's community for a reply).
    pub destination: Destination,
    /// What arrives: the text written, or a moved file's content.
    pub text: String,
    /// For a copy or a share, the file moved (namespace and path).
    pub moved: Option<(Namespace, String)>,
}

/// A file a step creates or replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileWrite {
    /// Its namespace.
    pub namespace: Namespace,
    /// Its path inside the namespace.
    pub path: String,
    /// Its new content.
    pub content: String,
    /// Its content before, if it existed.
    pub previous: Option<String>,
}

/// One step as played.
#[derive(Debug, Clone)]
pub struct Played<'p> {
    /// The step.
    pub step: &'p PlanStep,
    /// Its place among the agent's steps of its turn.
    pub position: usize,
    /// Text the model writes itself (reply, message, note, file content, payload).
    pub written: Option<&'p str>,
    /// What a read, search or lookup brings into the session.
    pub fetched: Option<String>,
    /// The file it creates or replaces.
    pub file_write: Option<FileWrite>,
    /// What it puts out, and where.
    pub outbound: Option<Outbound>,
}

/// One turn and the steps an agent takes in it.
#[derive(Debug, Clone)]
pub struct TurnSteps<'s> {
    /// The turn.
    pub turn: &'s Turn,
    /// Its steps, in plan order, with their index in the plan.
    pub steps: Vec<(usize, &'s PlanStep)>,
}

/// The turns of `s` in order, each with the steps `kind` takes in it. Steps naming a
/// turn the scenario does not have are not played (validation reports them).
pub fn turns(s: &Scenario, kind: PlanKind) -> Vec<TurnSteps<'_>> {
    let mut turns: Vec<&Turn> = s.agent.turns.iter().collect();
    turns.sort_by_key(|t| t.index);
    turns
        .into_iter()
        .map(|turn| TurnSteps {
            turn,
            steps: s
                .verifier
                .reference_plan
                .steps
                .iter()
                .enumerate()
                .filter(|(_, st)| st.turn == turn.index && kind.takes(st.taker))
                .collect(),
        })
        .collect()
}

/// Plays steps against the files they read and write.
#[derive(Debug, Clone)]
pub struct Player<'s> {
    scenario: &'s Scenario,
    files: Files,
}

impl<'s> Player<'s> {
    /// A player over the scenario's starting files.
    pub fn new(scenario: &'s Scenario) -> Self {
        Player {
            scenario,
            files: starting_files(scenario),
        }
    }

    /// The files as the steps played so far leave them.
    pub fn files(&self) -> &Files {
        &self.files
    }

    /// The final files.
    pub fn into_files(self) -> Files {
        self.files
    }

    fn content(&self, namespace: &Namespace, path: &str) -> Option<&String> {
        self.files.get(&(namespace.clone(), path.to_owned()))
    }

    fn write(&mut self, namespace: &Namespace, path: &str, content: String) -> FileWrite {
        let previous = self
            .files
            .insert((namespace.clone(), path.to_owned()), content.clone());
        FileWrite {
            namespace: namespace.clone(),
            path: path.to_owned(),
            content,
            previous,
        }
    }

    /// Plays `step`, the agent's `position`-th step of its turn.
    pub fn play<'p>(&mut self, step: &'p PlanStep, position: usize) -> Played<'p> {
        let mut played = Played {
            step,
            position,
            written: None,
            fetched: None,
            file_write: None,
            outbound: None,
        };
        let out = |action, destination, text: &str| Outbound {
            action,
            destination,
            text: text.to_owned(),
            moved: None,
        };
        let namespace = |namespace: &Namespace| Destination::Namespace {
            namespace: namespace.clone(),
        };
        match &step.action {
            PlanAction::Reply { text } => {
                played.written = Some(text);
                played.outbound = self
                    .scenario
                    .agent
                    .turns
                    .iter()
                    .find(|t| t.index == step.turn)
                    .map(|t| {
                        let community = t.community.clone();
                        out(Action::Disclose, Destination::Community { community }, text)
                    });
            }
            PlanAction::PostMessage { community, text } => {
                played.written = Some(text);
                let community = community.clone();
                played.outbound = Some(out(
                    Action::Disclose,
                    Destination::Community { community },
                    text,
                ));
            }
            PlanAction::SendMessage { person, text } => {
                played.written = Some(text);
                let user = person.clone();
                played.outbound = Some(out(Action::Send, Destination::Person { user }, text));
            }
            PlanAction::SubmitWorkflow { name, payload } => {
                played.written = Some(payload);
                let name = name.clone();
                played.outbound = Some(out(Action::Send, Destination::Workflow { name }, payload));
            }
            PlanAction::WriteFile {
                namespace: ns,
                path,
                content,
            } => {
                played.written = Some(content);
                played.file_write = Some(self.write(ns, path, content.clone()));
                played.outbound = Some(out(Action::Write, namespace(ns), content));
            }
            PlanAction::Remember { text } => {
                played.written = Some(text);
                let path = memory_note_path(step.turn, position);
                played.file_write = Some(self.write(&Namespace::Memory, &path, text.clone()));
                played.outbound = Some(out(Action::Write, namespace(&Namespace::Memory), text));
            }
            PlanAction::CopyFile {
                from_namespace,
                from_path,
                to_namespace,
                to_path,
            } => {
                let content = self
                    .content(from_namespace, from_path)
                    .cloned()
                    .unwrap_or_default();
                played.file_write = Some(self.write(to_namespace, to_path, content.clone()));
                played.outbound = Some(Outbound {
                    moved: Some((from_namespace.clone(), from_path.clone())),
                    ..out(Action::Write, namespace(to_namespace), &content)
                });
            }
            PlanAction::ShareFile {
                namespace: ns,
                path,
                community,
            } => {
                let content = self.content(ns, path).cloned().unwrap_or_default();
                let community = community.clone();
                played.outbound = Some(Outbound {
                    moved: Some((ns.clone(), path.clone())),
                    ..out(
                        Action::Share,
                        Destination::Community { community },
                        &content,
                    )
                });
            }
            PlanAction::ReadFile {
                namespace: ns,
                path,
            } => played.fetched = self.content(ns, path).map(|c| format!("{c}\n")),
            PlanAction::Search { query } => {
                played.fetched = Some(search_files(&self.files, query));
            }
            PlanAction::CallTool { tool, argument } => {
                played.fetched = Some(lookup(self.scenario, tool, argument));
            }
        }
        played
    }
}

/// A whole plan as played: every step in turn order and the files it leaves.
#[derive(Debug, Clone)]
pub struct Replay<'s> {
    /// The steps played.
    pub steps: Vec<Played<'s>>,
    /// The final files.
    pub files: Files,
}

/// Plays the steps `kind` takes, turn by turn.
pub fn play(s: &Scenario, kind: PlanKind) -> Replay<'_> {
    let mut player = Player::new(s);
    let mut steps = Vec::new();
    for turn in turns(s, kind) {
        for (position, (_, step)) in turn.steps.into_iter().enumerate() {
            steps.push(player.play(step, position));
        }
    }
    Replay {
        steps,
        files: player.into_files(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::load_embedded;

    /// Every file a frozen plan reads, copies or shares exists when the step runs, for
    /// both agents: in particular a note read back from memory is at the path the
    /// `remember` step that wrote it got from [`memory_note_path`].
    #[test]
    fn every_file_a_frozen_plan_moves_or_reads_exists_when_it_is_used() {
        let suite = load_embedded(false).expect("the frozen suite loads");
        let mut notes_read_back = 0;
        for s in &suite.scenarios {
            for kind in [PlanKind::Compliant, PlanKind::Ideal] {
                let mut player = Player::new(s);
                for turn in turns(s, kind) {
                    for (position, (index, step)) in turn.steps.into_iter().enumerate() {
                        let source = match &step.action {
                            PlanAction::ReadFile { namespace, path }
                            | PlanAction::ShareFile {
                                namespace, path, ..
                            }
                            | PlanAction::CopyFile {
                                from_namespace: namespace,
                                from_path: path,
                                ..
                            } => Some((namespace.clone(), path.clone())),
                            _ => None,
                        };
                        if let Some(key) = &source {
                            assert!(
                                player.files().contains_key(key),
                                "{} {} step {index}: {key:?} does not exist",
                                s.id,
                                kind.name()
                            );
                            if key.0 == Namespace::Memory && key.1.starts_with("note-turn") {
                                notes_read_back += 1;
                            }
                        }
                        player.play(step, position);
                    }
                }
            }
        }
        assert!(
            notes_read_back > 0,
            "some plan reads a remembered note back"
        );
    }

    #[test]
    fn a_remembered_note_is_written_under_its_place_in_the_turn() {
        let suite = load_embedded(false).expect("the frozen suite loads");
        let s = suite
            .scenarios
            .iter()
            .find(|s| s.id.as_str() == "dy-join-inter-owner-a2-s2")
            .expect("the scenario is frozen");
        let replay = play(s, PlanKind::Compliant);
        let note = replay
            .steps
            .iter()
            .find(|p| matches!(p.step.action, PlanAction::Remember { .. }))
            .expect("the compliant plan remembers");
        let write = note.file_write.as_ref().expect("a note is a file");
        assert_eq!(
            (&write.namespace, write.path.as_str()),
            (
                &Namespace::Memory,
                memory_note_path(2, note.position).as_str()
            )
        );
        let read_back = replay
            .steps
            .iter()
            .find(|p| {
                matches!(&p.step.action, PlanAction::ReadFile { path, .. } if *path == write.path)
            })
            .expect("the note is read back");
        assert_eq!(
            read_back.fetched.as_deref(),
            Some(format!("{}\n", write.content).as_str())
        );
        assert!(play(s, PlanKind::Ideal)
            .steps
            .iter()
            .all(|p| !matches!(p.step.action, PlanAction::Remember { .. })));
    }
}
