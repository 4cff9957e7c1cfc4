//! Maps a problem found in an expanded scenario back to the world or variant file and
//! field it came from.

use super::format::{VariantFile, WorldFile};
use super::locate::{Located, SourceFile};
use crate::ids::ObjectId;

/// Where one expanded scenario came from.
#[derive(Debug, Clone)]
pub struct Origin {
    pub(super) world_file: SourceFile,
    pub(super) variant_file: SourceFile,
    pub(super) world: WorldFile,
    pub(super) variant: VariantFile,
    /// The objects the scenario seeds, in the order of its seeds and labels.
    pub(super) seeded: Vec<ObjectId>,
}

impl Origin {
    /// The variant file the scenario was expanded from.
    pub fn variant_file(&self) -> &str {
        &self.variant_file.name
    }

    /// Places a problem reported at scenario field `field` (e.g. `agent.turns[2].text`)
    /// on the file, line and field it came from.
    pub fn locate(&self, field: &str, message: impl Into<String>) -> Located {
        let (in_world, path) = self.map(field);
        let file = if in_world {
            &self.world_file
        } else {
            &self.variant_file
        };
        let mut message = message.into();
        if in_world {
            // One world serves many variants: say which one the problem showed up in.
            message = format!("{message} (expanding variant `{}`)", self.variant.id);
        }
        let mut located = file.problem(&path, message);
        if located.line.is_none() {
            located.line = self.variant_file.line_of("id");
            located.file.clone_from(&self.variant_file.name);
        }
        located
    }

    /// (is the field in the world file, field path in that file).
    fn map(&self, field: &str) -> (bool, String) {
        let v = &self.variant;
        let variant = |path: String| (false, path);
        // A list the variant gives is in its file; otherwise the world's list is used.
        let listed_here = |given: bool, name: &str, rest: &str| (!given, format!("{name}{rest}"));
        if let Some(rest) = field.strip_prefix("agent.turns") {
            return variant(format!("turns{rest}"));
        }
        if let Some(rest) = field.strip_prefix("agent.event_notices") {
            // `[i].after_turn` of a chain: the notice of the variant's event `i`.
            return variant(match rest.split_once(']') {
                Some((index, tail)) => format!("events{index}].notice{tail}"),
                None => "events".to_owned(),
            });
        }
        if let Some(rest) = field.strip_prefix("agent.event_notice") {
            return variant(format!("events[0].notice{rest}"));
        }
        if let Some(rest) = field.strip_prefix("platform.events") {
            return variant(format!("events{rest}"));
        }
        if let Some(rest) = field.strip_prefix("platform.event") {
            return variant(format!("events[0]{rest}"));
        }
        for (prefix, name, given) in [
            ("agent.people", "people", v.people.is_some()),
            ("platform.users", "people", v.people.is_some()),
            ("agent.communities", "communities", v.communities.is_some()),
            (
                "platform.communities",
                "communities",
                v.communities.is_some(),
            ),
            ("agent.tools", "tools", v.tools.is_some()),
            ("agent.workflows", "workflows", v.workflows.is_some()),
            (
                "platform.memberships",
                "memberships",
                v.memberships.is_some(),
            ),
            ("platform.roles", "roles", v.roles.is_some()),
            ("platform.relations", "relations", v.relations.is_some()),
            ("platform.grants", "grants", v.grants.is_some()),
            (
                "platform.workflow_routes",
                "workflow_routes",
                v.workflow_routes.is_some(),
            ),
        ] {
            if let Some(rest) = field.strip_prefix(prefix) {
                return listed_here(given, name, rest);
            }
        }
        for prefix in ["agent.seeds", "platform.labels"] {
            if let Some(rest) = field.strip_prefix(prefix) {
                return self.map_object(rest);
            }
        }
        if let Some(rest) = field.strip_prefix("verifier.reference_plan.steps") {
            return variant(format!("plan{}", rest.replacen(".action", "", 1)));
        }
        if let Some(rest) = field.strip_prefix("verifier.reference_plan") {
            return variant(format!("plan{rest}"));
        }
        if let Some(rest) = field.strip_prefix("verifier.") {
            return variant(rest.to_owned());
        }
        if let Some(rest) = field.strip_prefix("agent.") {
            return variant(rest.to_owned());
        }
        if field == "factors.cross_scope" || field == "factors.event" {
            return variant("factors".to_owned());
        }
        variant(field.to_owned())
    }

    /// `[i].field` of the seeds/labels list -> the object's definition.
    fn map_object(&self, rest: &str) -> (bool, String) {
        let index = rest
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
            .and_then(|(i, tail)| Some((i.parse::<usize>().ok()?, tail)));
        let Some((index, tail)) = index else {
            return (false, "objects".to_owned());
        };
        let tail = tail.replacen(".object", ".id", 1);
        let Some(id) = self.seeded.get(index) else {
            return (false, "objects".to_owned());
        };
        if let Some(j) = self.variant.local_objects.iter().position(|o| &o.id == id) {
            return (false, format!("local_objects[{j}]{tail}"));
        }
        match self.world.objects.iter().position(|o| &o.id == id) {
            Some(j) => (true, format!("objects[{j}]{tail}")),
            None => (false, "objects".to_owned()),
        }
    }
}
