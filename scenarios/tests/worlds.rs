//! The authoring format as an author meets it: frozen worlds copied to a folder, edited,
//! and expanded; every mistake is reported with its file, line and field.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec_scenarios::worlds::{
    self, expand, read_world_folders, schema, Located, WorldError, WORLD_FILE,
};
use std::path::{Path, PathBuf};

const WORLD: &str = "a1-fellscramblers";
const VARIANT: &str = "dy-join-inter-third-a1-s2";

fn frozen_world_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("worlds")
        .join(WORLD)
}

/// A copy of one frozen world with one variant, its variant text passed through `edit`.
fn world_copy(edit: impl Fn(&str) -> String) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(WORLD);
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(frozen_world_dir().join(WORLD_FILE), dir.join(WORLD_FILE)).unwrap();
    let text = std::fs::read_to_string(frozen_world_dir().join(format!("{VARIANT}.toml"))).unwrap();
    let variant = dir.join(format!("{VARIANT}.toml"));
    std::fs::write(&variant, edit(&text)).unwrap();
    (tmp, variant)
}

fn problems_of(dir: &Path) -> Vec<Located> {
    match expand(&read_world_folders(dir).unwrap()) {
        Err(WorldError::Invalid(problems)) => problems,
        Err(other) => panic!("expected located problems, got {other}"),
        Ok(_) => panic!("expected the edited world to be refused"),
    }
}

/// 1-based line of the first line of `file` equal to `line`.
fn line_number(file: &Path, line: &str) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines().position(|l| l == line).unwrap() + 1
}

fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "fixture lacks `{from}`");
    text.replacen(from, to, 1)
}

#[test]
fn an_unedited_copy_expands_to_the_frozen_scenario() {
    let (tmp, _) = world_copy(str::to_owned);
    let expansion = expand(&read_world_folders(tmp.path()).unwrap()).unwrap();
    let frozen = worlds::expand_frozen().unwrap();
    let original = frozen
        .scenarios
        .iter()
        .find(|s| s.id.as_str() == VARIANT)
        .unwrap();
    assert_eq!(expansion.scenarios, vec![original.clone()]);
}

#[test]
fn an_unknown_speaker_is_named_with_its_file_line_and_field() {
    let (tmp, variant) =
        world_copy(|t| replace_once(t, "speaker = \"gemma\"", "speaker = \"gemmma\""));
    let problems = problems_of(tmp.path());
    let p = problems
        .iter()
        .find(|p| p.field == "turns[1].speaker")
        .unwrap_or_else(|| panic!("{problems:?}"));
    assert_eq!(p.file, variant.display().to_string());
    assert_eq!(p.line, Some(line_number(&variant, "speaker = \"gemmma\"")));
    assert!(
        p.message.contains("unknown person `gemmma`"),
        "{}",
        p.message
    );
}

#[test]
fn an_event_after_a_turn_that_does_not_exist_is_refused_at_its_line() {
    let (tmp, variant) = world_copy(|t| replace_once(t, "after_turn = 3", "after_turn = 9"));
    let problems = problems_of(tmp.path());
    let p = problems
        .iter()
        .find(|p| p.field == "events[0].after_turn")
        .unwrap_or_else(|| panic!("{problems:?}"));
    assert_eq!(p.line, Some(line_number(&variant, "after_turn = 9")));
    assert!(p.message.contains("8 turns"), "{}", p.message);
}

#[test]
fn a_missing_field_is_named_with_its_file_and_line() {
    let (tmp, variant) = world_copy(|t| {
        t.lines()
            .filter(|l| !l.starts_with("target_user = "))
            .map(|l| format!("{l}\n"))
            .collect()
    });
    let problems = problems_of(tmp.path());
    assert_eq!(problems.len(), 1, "{problems:?}");
    let p = &problems[0];
    assert_eq!(p.file, variant.display().to_string());
    assert!(p.line.is_some());
    assert!(
        p.message.contains("missing field `target_user`"),
        "{}",
        p.message
    );
}

#[test]
fn an_unknown_person_in_the_world_file_is_located_there() {
    let (tmp, _) = world_copy(str::to_owned);
    let world = tmp.path().join(WORLD).join(WORLD_FILE);
    let text = std::fs::read_to_string(&world).unwrap();
    let edited = replace_once(
        &text,
        "{ user = \"ole\", community = \"fellside\", since = 100 }",
        "{ user = \"olle\", community = \"fellside\", since = 100 }",
    );
    std::fs::write(&world, edited).unwrap();
    let problems = problems_of(tmp.path());
    let p = problems
        .iter()
        .find(|p| p.field.starts_with("memberships[") && p.field.ends_with(".user"))
        .unwrap_or_else(|| panic!("{problems:?}"));
    assert_eq!(p.file, world.display().to_string());
    assert_eq!(
        p.line,
        Some(line_number(
            &world,
            "  { user = \"olle\", community = \"fellside\", since = 100 },"
        ))
    );
}

#[test]
fn a_structural_problem_of_the_scenario_points_back_into_the_variant() {
    // The scored turn moved before the event: the scenario validator's rules, reported at
    // the variant's own fields.
    let (tmp, variant) = world_copy(|t| replace_once(t, "scored_turn = 6", "scored_turn = 2"));
    let problems = problems_of(tmp.path());
    assert!(
        problems
            .iter()
            .all(|p| p.file == variant.display().to_string()),
        "{problems:?}"
    );
    let event = problems
        .iter()
        .find(|p| p.field == "events[0].after_turn")
        .unwrap_or_else(|| panic!("{problems:?}"));
    assert_eq!(event.line, Some(line_number(&variant, "after_turn = 3")));
    assert!(event.message.contains("scored turn 2"), "{}", event.message);
    let plan = problems
        .iter()
        .find(|p| p.field == "plan")
        .unwrap_or_else(|| panic!("{problems:?}"));
    assert_eq!(plan.line, Some(line_number(&variant, "[[plan]]")));
}

#[test]
fn a_local_object_replaces_the_world_object_and_omitted_lists_take_the_whole_world() {
    let (tmp, _) = world_copy(|t| {
        let t = replace_once(
            t,
            "Café and toilets at Hollins Farm",
            "Café and toilets at Nab End",
        );
        let t = t.replace("Hollins Farm", "Nab End");
        t.lines()
            .filter(|l| !l.starts_with("people = "))
            .map(|l| format!("{l}\n"))
            .collect()
    });
    let expansion = expand(&read_world_folders(tmp.path()).unwrap()).unwrap();
    let s = &expansion.scenarios[0];
    let card = s
        .agent
        .seeds
        .iter()
        .find(|seed| seed.object.as_str() == "a1-ridgeway-card")
        .unwrap();
    assert!(card.content.contains("Nab End"));
    let world: worlds::WorldFile =
        toml::from_str(&std::fs::read_to_string(frozen_world_dir().join(WORLD_FILE)).unwrap())
            .unwrap();
    let ids: Vec<_> = s.agent.people.iter().map(|p| p.id.clone()).collect();
    let all: Vec<_> = world.people.iter().map(|p| p.id.clone()).collect();
    assert_eq!(ids, all);
}

#[test]
fn the_committed_schemas_are_those_of_this_build() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("worlds");
    let world = std::fs::read_to_string(root.join(schema::WORLD_SCHEMA_FILE)).unwrap();
    let variant = std::fs::read_to_string(root.join(schema::VARIANT_SCHEMA_FILE)).unwrap();
    assert!(
        world == schema::world_schema() && variant == schema::variant_schema(),
        "regenerate with `cosec scenarios schema world > scenarios/worlds/{}` and \
         `cosec scenarios schema variant > scenarios/worlds/{}`",
        schema::WORLD_SCHEMA_FILE,
        schema::VARIANT_SCHEMA_FILE
    );
    let parsed: serde_json::Value = serde_json::from_str(&variant).unwrap();
    let required = parsed["required"].as_array().unwrap();
    assert!(required.iter().any(|r| r == "turns"));
}

#[test]
fn a_scaffold_expands_and_names_its_variant_after_the_world() {
    let frozen = worlds::frozen_world_folders();
    let source = frozen.iter().find(|f| f.name == WORLD).unwrap();
    let files = worlds::scaffold(source, "harbour-choir", Some(VARIANT)).unwrap();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"world.toml") && names.contains(&"harbour-choir-1.toml"));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("harbour-choir");
    std::fs::create_dir(&dir).unwrap();
    for (name, text) in &files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let expansion = expand(&read_world_folders(&dir).unwrap()).unwrap();
    assert_eq!(expansion.scenarios[0].id.as_str(), "harbour-choir-1");
    assert!(worlds::scaffold(source, "bad name", None).is_err());
    assert!(worlds::scaffold(source, "ok", Some("no-such-variant")).is_err());
}

const REMOVAL: &str = "[[events]]
after_turn = AFTER
change = { kind = \"member_remove\", user = \"gemma\", community = \"fellside\" }
notice = { community = \"fellside\", text = \"[Fellside Hiking Club] Gemma Doyle has left the club.\" }

[[protected]]";

/// The variant with a second event, Gemma's removal from Fellside after turn `after`.
fn with_removal_after(after: u8) -> (tempfile::TempDir, PathBuf) {
    world_copy(|t| {
        replace_once(
            t,
            "[[protected]]",
            &REMOVAL.replace("AFTER", &after.to_string()),
        )
    })
}

#[test]
fn a_variant_with_a_chain_of_events_expands_into_one_scenario_with_both() {
    let (tmp, _) = with_removal_after(7);
    let expansion = expand(&read_world_folders(tmp.path()).unwrap()).unwrap();
    let s = &expansion.scenarios[0];
    let after: Vec<u8> = s.platform.events.iter().map(|e| e.after_turn).collect();
    assert_eq!(after, vec![3, 7]);
    assert_eq!(s.agent.event_notices.len(), 2);
    let text = cosec_scenarios::suite::render_scenario(s).unwrap();
    assert!(text.contains("\"events\": [") && text.contains("\"event_notices\": ["));
}

#[test]
fn an_event_out_of_order_in_a_chain_is_refused_at_its_line() {
    let (tmp, variant) = with_removal_after(2);
    let problems = problems_of(tmp.path());
    let p = problems
        .iter()
        .find(|p| p.field == "events[1].after_turn")
        .unwrap_or_else(|| panic!("{problems:?}"));
    assert_eq!(p.file, variant.display().to_string());
    assert_eq!(p.line, Some(line_number(&variant, "after_turn = 2")));
    assert!(p.message.contains("time order"), "{}", p.message);
}

/// The example world outside the frozen suite, copied with its world file edited.
fn larkhill_copy(edit_world: impl Fn(&str) -> String) -> tempfile::TempDir {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/worlds/larkhill");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("larkhill");
    std::fs::create_dir(&dir).unwrap();
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap();
        let text = if name == WORLD_FILE {
            edit_world(&text)
        } else {
            text
        };
        std::fs::write(dir.join(name), text).unwrap();
    }
    tmp
}

#[test]
fn default_grants_and_routes_follow_the_objects_and_workflows_a_variant_uses() {
    let grant = "grants = [\n  { object = \"rhea-calendar\", grantee = \"owen\", granted_by = \"rhea\", from = 100 },\n]\n";
    let tmp = larkhill_copy(|t| replace_once(t, "people = [", &format!("{grant}people = [")));
    let expansion = expand(&read_world_folders(tmp.path()).unwrap()).unwrap();
    assert_eq!(expansion.scenarios.len(), 6);
    for s in &expansion.scenarios {
        let seeded: Vec<&str> = s.agent.seeds.iter().map(|x| x.object.as_str()).collect();
        let granted: Vec<&str> = s
            .platform
            .grants
            .iter()
            .map(|g| g.object.as_str())
            .collect();
        if seeded.contains(&"rhea-calendar") {
            assert_eq!(granted, vec!["rhea-calendar"], "{}", s.id);
        } else {
            assert!(granted.is_empty(), "{}: a grant on an unused object", s.id);
        }
        let offered: Vec<&str> = s.agent.workflows.iter().map(|w| w.name.as_str()).collect();
        let routed: Vec<&str> = s
            .platform
            .workflow_routes
            .iter()
            .map(|r| r.name.as_str())
            .collect();
        assert_eq!(offered, routed, "{}", s.id);
    }
    assert!(
        expansion
            .scenarios
            .iter()
            .any(|s| s.agent.workflows.is_empty()),
        "the fixture has a variant without workflows"
    );
}

#[test]
fn a_world_problem_met_while_expanding_a_variant_names_the_variant() {
    // A grant from someone who is not the owner: the scenario validator's rule, found in
    // a world entry, reported on world.toml with the variant it broke.
    let grant = "grants = [\n  { object = \"rhea-calendar\", grantee = \"owen\", granted_by = \"owen\", from = 100 },\n]\n";
    let tmp = larkhill_copy(|t| replace_once(t, "people = [", &format!("{grant}people = [")));
    let problems = problems_of(tmp.path());
    let p = problems
        .iter()
        .find(|p| p.field.starts_with("grants[0]"))
        .unwrap_or_else(|| panic!("{problems:?}"));
    assert!(p.file.ends_with("larkhill/world.toml"), "{}", p.file);
    assert_eq!(
        p.line,
        Some(line_number(
            Path::new(&p.file),
            "  { object = \"rhea-calendar\", grantee = \"owen\", granted_by = \"owen\", from = 100 },"
        ))
    );
    assert!(
        p.message
            .contains("(expanding variant `lark-st-inter-owner-a4-s1`)"),
        "{}",
        p.message
    );
}

#[test]
fn a_problem_in_a_local_object_points_at_the_variant_s_own_definition() {
    let (tmp, variant) = world_copy(|t| {
        replace_once(
            t,
            "id = \"a1-ridgeway-card\"\nowner = \"kwame\"",
            "id = \"a1-ridgeway-card\"\nowner = \"kwamme\"",
        )
    });
    let problems = problems_of(tmp.path());
    let p = problems
        .iter()
        .find(|p| p.field.starts_with("local_objects[0]"))
        .unwrap_or_else(|| panic!("{problems:?}"));
    assert_eq!(p.file, variant.display().to_string());
    assert_eq!(p.line, Some(line_number(&variant, "owner = \"kwamme\"")));
}
