//! Resolves a variant's selections against its world: local definitions replace world
//! ones of the same id, unknown ids become located problems.

use super::format::{ObjectDef, VariantFile, WorldFile};
use super::locate::{Located, SourceFile};
use crate::agent::{CommunityInfo, Person, SeededTool, WorkflowInfo};

/// The things one variant uses, in the order the scenario lists them.
#[derive(Debug, Default)]
pub(super) struct Selection {
    pub people: Vec<Person>,
    pub communities: Vec<CommunityInfo>,
    pub objects: Vec<ObjectDef>,
    pub tools: Vec<SeededTool>,
    pub workflows: Vec<WorkflowInfo>,
}

/// Resolves every selection of `variant`, pushing a problem per unknown id.
pub(super) fn select(
    file: &SourceFile,
    world: &WorldFile,
    variant: &VariantFile,
    problems: &mut Vec<Located>,
) -> Selection {
    let people = pick(
        file,
        "people",
        "person",
        &merged(&world.people, &[], |p| p.id.as_str()),
        names(variant.people.as_deref(), |i| i.as_str()),
        |p| p.id.as_str(),
        problems,
    );
    let communities = pick(
        file,
        "communities",
        "community",
        &merged(&world.communities, &variant.local_communities, |c| {
            c.id.as_str()
        }),
        names(variant.communities.as_deref(), |i| i.as_str()),
        |c| c.id.as_str(),
        problems,
    );
    let objects = pick(
        file,
        "objects",
        "object",
        &merged(&world.objects, &variant.local_objects, |o| o.id.as_str()),
        names(variant.objects.as_deref(), |i| i.as_str()),
        |o| o.id.as_str(),
        problems,
    );
    let tools = pick(
        file,
        "tools",
        "tool",
        &merged(&world.tools, &variant.local_tools, |t| t.name.as_str()),
        variant.tools.clone(),
        |t| t.name.as_str(),
        problems,
    );
    let workflows = pick(
        file,
        "workflows",
        "workflow",
        &merged(&world.workflows, &variant.local_workflows, |w| {
            w.name.as_str()
        }),
        variant.workflows.clone(),
        |w| w.name.as_str(),
        problems,
    );
    Selection {
        people,
        communities,
        objects,
        tools,
        workflows,
    }
}

/// A variant's selection list as plain names.
fn names<T>(ids: Option<&[T]>, name: impl Fn(&T) -> &str) -> Option<Vec<String>> {
    ids.map(|ids| ids.iter().map(|i| name(i).to_owned()).collect())
}

/// The world's items with local ones replacing those of the same id; new local items
/// follow in their own order.
fn merged<T: Clone>(world: &[T], local: &[T], id: impl Fn(&T) -> &str) -> Vec<T> {
    let mut out: Vec<T> = world
        .iter()
        .map(|w| local.iter().find(|l| id(l) == id(w)).unwrap_or(w).clone())
        .collect();
    for l in local {
        if !world.iter().any(|w| id(w) == id(l)) {
            out.push(l.clone());
        }
    }
    out
}

/// The items named by `wanted` (all of `available` when the variant names none).
fn pick<T: Clone>(
    file: &SourceFile,
    field: &str,
    noun: &str,
    available: &[T],
    wanted: Option<Vec<String>>,
    id: impl Fn(&T) -> &str,
    problems: &mut Vec<Located>,
) -> Vec<T> {
    let Some(wanted) = wanted else {
        return available.to_vec();
    };
    let mut out = Vec::new();
    for (i, name) in wanted.iter().enumerate() {
        match available.iter().find(|item| id(item) == name.as_str()) {
            Some(item) => out.push(item.clone()),
            None => problems.push(file.problem(
                &format!("{field}[{i}]"),
                format!(
                    "unknown {noun} `{name}`: the world defines {}",
                    known(available.iter().map(&id))
                ),
            )),
        }
    }
    out
}

/// A readable list of ids for messages.
pub(super) fn known<'a>(ids: impl Iterator<Item = &'a str>) -> String {
    let all: Vec<String> = ids.map(|i| format!("`{i}`")).collect();
    if all.is_empty() {
        "none".to_owned()
    } else {
        all.join(", ")
    }
}
