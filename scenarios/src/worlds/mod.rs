//! Scenarios as data: world folders (a `world.toml` and one `<id>.toml` per variant)
//! expanded into scenario files. The frozen suite is expanded from `scenarios/worlds/`.

mod build;
pub mod format;
mod locate;
mod origin;
mod resolve;
mod scaffold;
pub mod schema;
mod source;

pub use format::{VariantFile, WorldFile, WORLD_FILE};
pub use locate::{Located, SourceFile};
pub use origin::Origin;
pub use scaffold::{scaffold, ScaffoldError, ScaffoldFiles};
pub use source::{frozen_world_folders, read_world_folders, WorldError, WorldFolder};

use crate::ids::ScenarioId;
use crate::scenario::Scenario;
use std::collections::{BTreeMap, BTreeSet};

/// Scenarios expanded from world folders, with where each came from.
#[derive(Debug, Clone)]
pub struct Expansion {
    /// The scenarios, sorted by id.
    pub scenarios: Vec<Scenario>,
    origins: BTreeMap<ScenarioId, Origin>,
}

impl Expansion {
    /// Where scenario `id` came from.
    pub fn origin(&self, id: &ScenarioId) -> Option<&Origin> {
        self.origins.get(id)
    }
}

/// Expands the frozen suite's worlds (built into the crate).
pub fn expand_frozen() -> Result<Expansion, WorldError> {
    expand(&frozen_world_folders())
}

/// Expands world folders into scenarios and validates each scenario's structure
/// (everything but the oracle, which lives in `cosec-policies`). Every problem names its
/// file, line and field.
pub fn expand(folders: &[WorldFolder]) -> Result<Expansion, WorldError> {
    let mut problems = Vec::new();
    let mut scenarios = Vec::new();
    let mut origins = BTreeMap::new();
    for folder in folders {
        let world: WorldFile = match toml::from_str(&folder.world.text) {
            Ok(world) => world,
            Err(e) => {
                problems.push(folder.world.parse_error(&e));
                continue;
            }
        };
        check_world(&folder.world, &world, &mut problems);
        if folder.variants.is_empty() {
            problems.push(folder.world.problem(
                "",
                "the world has no variant files: add one `<id>.toml` next to world.toml",
            ));
        }
        for file in &folder.variants {
            let variant: VariantFile = match toml::from_str(&file.text) {
                Ok(variant) => variant,
                Err(e) => {
                    problems.push(file.parse_error(&e));
                    continue;
                }
            };
            let stem = std::path::Path::new(&file.name)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned());
            if stem.as_deref() != Some(variant.id.as_str()) {
                problems.push(file.problem(
                    "id",
                    format!(
                        "is `{}` but the file is named `{}.toml`; rename one so they match",
                        variant.id,
                        stem.unwrap_or_default()
                    ),
                ));
                continue;
            }
            if origins.contains_key(&variant.id) {
                problems.push(file.problem(
                    "id",
                    format!("`{}` is already used by another variant", variant.id),
                ));
                continue;
            }
            let before = problems.len();
            let selection = resolve::select(file, &world, &variant, &mut problems);
            if problems.len() > before {
                continue;
            }
            let Some(scenario) = build::build(file, &world, &variant, selection, &mut problems)
            else {
                continue;
            };
            let origin = Origin {
                world_file: folder.world.clone(),
                variant_file: file.clone(),
                world: world.clone(),
                variant,
                seeded: scenario
                    .agent
                    .seeds
                    .iter()
                    .map(|x| x.object.clone())
                    .collect(),
            };
            for p in crate::validate::validate_scenario(&scenario) {
                problems.push(origin.locate(&p.field, p.message));
            }
            origins.insert(scenario.id.clone(), origin);
            scenarios.push(scenario);
        }
    }
    if !problems.is_empty() {
        return Err(WorldError::Invalid(problems));
    }
    scenarios.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Expansion { scenarios, origins })
}

/// Duplicate ids and references inside a world file.
fn check_world(file: &SourceFile, world: &WorldFile, problems: &mut Vec<Located>) {
    duplicates(
        file,
        "people",
        world.people.iter().map(|p| p.id.as_str()),
        problems,
    );
    duplicates(
        file,
        "communities",
        world.communities.iter().map(|c| c.id.as_str()),
        problems,
    );
    duplicates(
        file,
        "objects",
        world.objects.iter().map(|o| o.id.as_str()),
        problems,
    );
    duplicates(
        file,
        "tools",
        world.tools.iter().map(|t| t.name.as_str()),
        problems,
    );
    duplicates(
        file,
        "workflows",
        world.workflows.iter().map(|w| w.name.as_str()),
        problems,
    );
    let people: BTreeSet<&str> = world.people.iter().map(|p| p.id.as_str()).collect();
    let places: BTreeSet<&str> = world.communities.iter().map(|c| c.id.as_str()).collect();
    let mut refer = |field: String, id: &str, set: &BTreeSet<&str>, noun: &str| {
        if !set.contains(id) {
            problems.push(file.problem(
                &field,
                format!(
                    "unknown {noun} `{id}`: the world defines {}",
                    resolve::known(set.iter().copied())
                ),
            ));
        }
    };
    for (i, m) in world.memberships.iter().enumerate() {
        refer(
            format!("memberships[{i}].user"),
            m.user.as_str(),
            &people,
            "person",
        );
        refer(
            format!("memberships[{i}].community"),
            m.community.as_str(),
            &places,
            "community",
        );
    }
    for (i, r) in world.roles.iter().enumerate() {
        refer(
            format!("roles[{i}].user"),
            r.user.as_str(),
            &people,
            "person",
        );
        refer(
            format!("roles[{i}].community"),
            r.community.as_str(),
            &places,
            "community",
        );
    }
    for (i, o) in world.objects.iter().enumerate() {
        refer(
            format!("objects[{i}].owner"),
            o.owner.as_str(),
            &people,
            "person",
        );
        refer(
            format!("objects[{i}].source"),
            o.source.as_str(),
            &places,
            "community",
        );
    }
}

fn duplicates<'a>(
    file: &SourceFile,
    field: &str,
    ids: impl Iterator<Item = &'a str>,
    problems: &mut Vec<Located>,
) {
    let mut seen = BTreeSet::new();
    for (i, id) in ids.enumerate() {
        if !seen.insert(id) {
            problems.push(file.problem(
                &format!("{field}[{i}]"),
                format!("`{id}` is defined twice; ids must be unique in the world"),
            ));
        }
    }
}
