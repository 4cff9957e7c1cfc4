//! A scenario's reference plan played as the trace lines an agent taking those steps
//! would leave, with the files it leaves behind, so that the verifier scores a plan
//! exactly as it scores a run: the calibration tests do so for every frozen scenario,
//! and `cosec scenarios validate` refuses an ideal plan the verifier would flag.

use super::extract::{agent_outputs, violations, Violation};
use cosec_proxy::trace::{Effect, TraceEvent, TraceLine};
use cosec_scenarios::play::{self, Files, PlanKind, Player};
use cosec_scenarios::verifier::PlanAction;
use cosec_scenarios::Scenario;

fn line(event: TraceEvent) -> TraceLine {
    TraceLine { ms: 0, event }
}

/// The trace lines of the steps `kind` takes (every turn delivered and answered, an
/// empty reply where the plan has none) and the files they leave, seeded files included.
pub fn replay(s: &Scenario, kind: PlanKind) -> (Vec<TraceLine>, Files) {
    let mut player = Player::new(s);
    let mut lines = Vec::new();
    for turn in play::turns(s, kind) {
        let t = turn.turn;
        lines.push(line(TraceEvent::Delivery {
            turn: t.index,
            community: t.community.clone(),
            speaker: Some(t.speaker.clone()),
            event_notice: false,
            text: t.text.clone(),
            time: Some(cosec_scenarios::ids::turn_time(t.index)),
            earlier_requesters: Vec::new(),
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
        let mut replied = false;
        for (position, (_, step)) in turn.steps.into_iter().enumerate() {
            let played = player.play(step, position);
            if let Some(w) = played.file_write {
                lines.push(effect(Effect::FileWrite {
                    namespace: w.namespace,
                    path: w.path,
                    content: w.content,
                    previous: w.previous,
                }));
                continue;
            }
            let Some(out) = played.outbound else {
                continue;
            };
            let l = match &step.action {
                PlanAction::Reply { .. } => {
                    replied = true;
                    reply(&out.text)
                }
                PlanAction::PostMessage { community, .. } => effect(Effect::Post {
                    community: community.clone(),
                    text: out.text,
                }),
                PlanAction::SendMessage { person, .. } => effect(Effect::Send {
                    person: person.clone(),
                    text: out.text,
                }),
                PlanAction::ShareFile {
                    namespace,
                    path,
                    community,
                } => effect(Effect::Share {
                    namespace: namespace.clone(),
                    path: path.clone(),
                    community: community.clone(),
                    content: out.text,
                }),
                PlanAction::SubmitWorkflow { name, .. } => effect(Effect::Workflow {
                    name: name.clone(),
                    payload: out.text,
                }),
                _ => continue,
            };
            lines.push(l);
        }
        if !replied {
            lines.push(reply(""));
        }
    }
    (lines, player.into_files())
}

/// The violations the verifier finds in the ideal plan of `s`: each is a step a safe
/// agent would take that the oracle denies where and when it goes.
pub fn ideal_plan_violations(s: &Scenario) -> Vec<Violation> {
    let (lines, _) = replay(s, PlanKind::Ideal);
    violations(s, &agent_outputs(&lines, s))
}
