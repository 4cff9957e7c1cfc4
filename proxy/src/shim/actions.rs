//! Community actions: post to a community, send to a person, share a file, submit a
//! workflow. Each one that takes place is recorded as an [`Effect`].

use super::files::{read_text, resolve, write_text};
use super::{Call, Outcome};
use crate::layout::COMMUNITIES_DIR;
use crate::trace::Effect;
use cosec_scenarios::{Action, CommunityId, CommunityState, Destination};

/// Folder inside a community workspace that receives shared files.
pub const SHARED_FILES_DIR: &str = "shared-files";

/// Refuses a community the target user is not a member of at the current turn.
fn require_member(call: &Call<'_>, community: &CommunityId) -> Result<(), String> {
    let state = CommunityState::at(&call.trial.platform, call.turn.time)
        .map_err(|e| format!("the community state is unavailable: {e}"))?;
    let user = &call.trial.agent.target_user;
    if state.is_member(user, community) {
        return Ok(());
    }
    let current: Vec<String> = call
        .trial
        .agent
        .communities
        .iter()
        .filter(|c| state.is_member(user, &c.id))
        .map(|c| format!("{} ({})", c.id, c.name))
        .collect();
    Err(format!(
        "{} is not a member of `{community}` now; communities available now: {}",
        call.trial.agent.person_name(user),
        if current.is_empty() {
            "none".to_owned()
        } else {
            current.join(", ")
        }
    ))
}

/// `post_message(community, text)`.
pub(crate) fn post_message(call: &Call<'_>, out: &mut Outcome) -> Result<String, String> {
    let wanted = call.arg("community")?;
    let text = call.arg("text")?;
    let community = call.index.community(&wanted)?;
    require_member(call, &community)?;
    let name = call.trial.agent.community_name(&community).to_owned();
    let destination = Destination::Community {
        community: community.clone(),
    };
    call.guard_turn_labels(Action::Disclose, &destination)?;
    let text = call.guard_text(text, Action::Disclose, &destination);
    out.effect(Effect::Post { community, text });
    Ok(format!("Posted to {name}."))
}

/// `send_message(person, text)`.
pub(crate) fn send_message(call: &Call<'_>, out: &mut Outcome) -> Result<String, String> {
    let wanted = call.arg("person")?;
    let text = call.arg("text")?;
    let person = call.index.person(&wanted)?;
    let name = call.trial.agent.person_name(&person).to_owned();
    let destination = Destination::Person {
        user: person.clone(),
    };
    call.guard_turn_labels(Action::Send, &destination)?;
    let text = call.guard_text(text, Action::Send, &destination);
    out.effect(Effect::Send { person, text });
    Ok(format!("Sent a direct message to {name}."))
}

/// `share_file(path, community)`: records the file's content at share time and copies it
/// into `communities/<c>/shared-files/<name>`.
pub(crate) fn share_file(call: &Call<'_>, out: &mut Outcome) -> Result<String, String> {
    let path = call.arg("path")?;
    let wanted = call.arg("community")?;
    let source = resolve(call, &path)?;
    let community = call.index.community(&wanted)?;
    require_member(call, &community)?;
    call.guard_transfer(
        &source.key,
        Action::Share,
        &Destination::Community {
            community: community.clone(),
        },
    )?;
    let content = read_text(call, &source, &path)?;
    let file_name = source
        .full
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("`{path}` is not a file"))?;
    let dest_path = format!("{COMMUNITIES_DIR}/{community}/{SHARED_FILES_DIR}/{file_name}");
    let dest = resolve(call, &dest_path)?;
    if dest.full != source.full {
        write_text(&dest, &content, &dest_path)?;
    }
    let name = call.trial.agent.community_name(&community).to_owned();
    out.effect(Effect::Share {
        namespace: source.namespace,
        path: source.inner,
        community,
        content,
    });
    Ok(format!(
        "Shared `{}` with {name} (now at `{dest_path}`).",
        source.key
    ))
}

/// `submit_workflow(name, payload)`: the workflow must be declared to the agent and routed
/// by the platform; the payload is recorded, the route stays a platform fact.
pub(crate) fn submit_workflow(call: &Call<'_>, out: &mut Outcome) -> Result<String, String> {
    let wanted = call.arg("name")?;
    let payload = call.arg("payload")?;
    let workflows = &call.trial.agent.workflows;
    let declared = crate::names::workflow_named(&call.trial.agent, &wanted)
        .and_then(|name| workflows.iter().find(|x| x.name == name))
        .ok_or_else(|| {
            let names: Vec<&str> = workflows.iter().map(|x| x.name.as_str()).collect();
            format!(
                "unknown workflow `{wanted}`; valid workflows: {}",
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            )
        })?;
    if call.trial.platform.workflow_route(&declared.name).is_none() {
        return Err(format!(
            "workflow `{}` is not available right now",
            declared.name
        ));
    }
    let name = declared.name.clone();
    let destination = Destination::Workflow { name: name.clone() };
    call.guard_turn_labels(Action::Send, &destination)?;
    let payload = call.guard_text(payload, Action::Send, &destination);
    out.effect(Effect::Workflow {
        name: name.clone(),
        payload,
    });
    Ok(format!("Submitted to workflow `{name}`."))
}
