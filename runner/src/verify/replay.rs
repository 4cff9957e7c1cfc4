//! A scenario's reference plan played as the trace lines an agent taking those steps
//! would leave, with the files it leaves behind, so that the verifier scores a plan
//! exactly as it scores a run: the calibration tests do so for every frozen scenario,
//! and `cosec scenarios validate` refuses an ideal plan the verifier would flag.

use super::extract::{agent_outputs, violations, Violation};
use cosec_proxy::trace::{Effect, TraceEvent, TraceLine};
use cosec_scenarios::agent::Surface;
use cosec_scenarios::verifier::{PlanAction, PlanStep};
use cosec_scenarios::{Namespace, Scenario};
use std::collections::BTreeMap;

/// Files by namespace and path, as a plan leaves them.
pub type Files = BTreeMap<(Namespace, String), String>;

/// The seeded files of `s`.
fn seeded(s: &Scenario) -> Files {
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

fn line(event: TraceEvent) -> TraceLine {
    TraceLine { ms: 0, event }
}

/// The trace lines of `steps` (every turn delivered and answered, an empty reply where
/// the plan has none) and the files they leave, seeded files included.
pub fn replay<'a>(
    s: &Scenario,
    steps: impl Iterator<Item = &'a PlanStep>,
) -> (Vec<TraceLine>, Files) {
    let mut files = seeded(s);
    let mut by_turn: BTreeMap<u8, Vec<&PlanStep>> = BTreeMap::new();
    for st in steps {
        by_turn.entry(st.turn).or_default().push(st);
    }
    let mut lines = Vec::new();
    for t in &s.agent.turns {
        lines.push(line(TraceEvent::Delivery {
            turn: t.index,
            community: t.community.clone(),
            speaker: Some(t.speaker.clone()),
            event_notice: false,
            text: t.text.clone(),
        }));
        let reply = |text: &str| {
            line(TraceEvent::Reply {
                turn: t.index,
                community: t.community.clone(),
                text: text.to_owned(),
            })
        };
        let effect = |effect: Effect| {
            line(TraceEvent::Effect {
                turn: t.index,
                community: t.community.clone(),
                effect,
            })
        };
        let write = |files: &mut Files, namespace: &Namespace, path: &str, content: String| {
            let previous = files.insert((namespace.clone(), path.to_owned()), content.clone());
            effect(Effect::FileWrite {
                namespace: namespace.clone(),
                path: path.to_owned(),
                content,
                previous,
            })
        };
        let mut replied = false;
        for st in by_turn.get(&t.index).into_iter().flatten() {
            let content_of = |files: &Files, namespace: &Namespace, path: &str| {
                files
                    .get(&(namespace.clone(), path.to_owned()))
                    .cloned()
                    .unwrap_or_default()
            };
            let l = match &st.action {
                PlanAction::Reply { text } => {
                    replied = true;
                    reply(text)
                }
                PlanAction::WriteFile {
                    namespace,
                    path,
                    content,
                } => write(&mut files, namespace, path, content.clone()),
                PlanAction::CopyFile {
                    from_namespace,
                    from_path,
                    to_namespace,
                    to_path,
                } => {
                    let content = content_of(&files, from_namespace, from_path);
                    write(&mut files, to_namespace, to_path, content)
                }
                PlanAction::Remember { text } => write(
                    &mut files,
                    &Namespace::Memory,
                    cosec_scenarios::agent::MEMORY_NOTES_FILE,
                    text.clone(),
                ),
                PlanAction::PostMessage { community, text } => effect(Effect::Post {
                    community: community.clone(),
                    text: text.clone(),
                }),
                PlanAction::SendMessage { person, text } => effect(Effect::Send {
                    person: person.clone(),
                    text: text.clone(),
                }),
                PlanAction::ShareFile {
                    namespace,
                    path,
                    community,
                } => effect(Effect::Share {
                    namespace: namespace.clone(),
                    path: path.clone(),
                    community: community.clone(),
                    content: content_of(&files, namespace, path),
                }),
                PlanAction::SubmitWorkflow { name, payload } => effect(Effect::Workflow {
                    name: name.clone(),
                    payload: payload.clone(),
                }),
                PlanAction::ReadFile { .. }
                | PlanAction::Search { .. }
                | PlanAction::CallTool { .. } => continue,
            };
            lines.push(l);
        }
        if !replied {
            lines.push(reply(""));
        }
    }
    (lines, files)
}

/// The violations the verifier finds in the ideal plan of `s`: each is a step a safe
/// agent would take that the oracle denies where and when it goes.
pub fn ideal_plan_violations(s: &Scenario) -> Vec<Violation> {
    let (lines, _) = replay(s, s.verifier.reference_plan.ideal());
    violations(s, &agent_outputs(&lines, &s.platform))
}
