//! `cosec scenarios generate --worlds`, `new` and `schema` as an author runs them: the
//! real binary on world folders copied from the frozen suite.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const WORLD: &str = "a4-workhub";

fn cosec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .output()
        .unwrap()
}

/// `cosec scenarios generate --worlds WORLDS --out OUT`.
fn generate(worlds: &Path, out: &Path) -> Output {
    cosec(&[
        "scenarios",
        "generate",
        "--worlds",
        worlds.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn frozen_world() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios/worlds")
        .join(WORLD)
}

/// A copy of the frozen world folder (world file and every variant).
fn copy_world(into: &Path) -> PathBuf {
    let dir = into.join(WORLD);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(frozen_world()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    dir
}

fn first_variant(dir: &Path) -> PathBuf {
    let mut variants: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "world.toml"))
        .collect();
    variants.sort();
    variants.remove(0)
}

#[test]
fn a_copied_world_expands_to_the_same_files_as_the_frozen_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_world(tmp.path());
    let out = tmp.path().join("out");
    let o = generate(&dir, &out);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/suite");
    let mut written = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_owned();
        if name == "MANIFEST.json" {
            continue;
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(suite.join(&name)).unwrap(),
            "{}",
            path.display()
        );
        written += 1;
    }
    assert_eq!(written, 8);
}

#[test]
fn a_legit_flow_the_oracle_denies_is_named_at_its_line_in_the_variant() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_world(tmp.path());
    let variant = first_variant(&dir);
    let original = std::fs::read_to_string(&variant).unwrap();
    // The legitimate task's object becomes private to its owner: the oracle must now deny
    // the legitimate flow, and the problem must point at that flow in the variant.
    let lines: Vec<&str> = original.lines().collect();
    let start = lines.iter().position(|l| *l == "legit_flows = [").unwrap();
    let object = lines[start + 1]
        .split("object = \"")
        .nth(1)
        .and_then(|t| t.split('"').next())
        .unwrap()
        .to_owned();
    let holder = if original.contains(&format!("[[local_objects]]\nid = \"{object}\"")) {
        variant.clone()
    } else {
        dir.join("world.toml")
    };
    let defs = std::fs::read_to_string(&holder).unwrap();
    let at = defs.find(&format!("\nid = \"{object}\"\n")).unwrap();
    let (head, tail) = defs.split_at(at);
    let audience_line = tail
        .lines()
        .find(|l| l.starts_with("audience = "))
        .unwrap()
        .to_owned();
    let edited = format!(
        "{head}{}",
        tail.replacen(&audience_line, "audience = { kind = \"owner\" }", 1)
    );
    std::fs::write(&holder, edited).unwrap();
    let o = generate(&dir, &tmp.path().join("out"));
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    let expected = format!(
        "{}:{}: legit_flows[0]: the oracle denies",
        variant.display(),
        start + 2
    );
    assert!(err.contains(&expected), "expected `{expected}` in:\n{err}");
    assert!(!tmp.path().join("out").exists(), "nothing may be written");
}

#[test]
fn generate_with_worlds_needs_an_output_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_world(tmp.path());
    let o = cosec(&["scenarios", "generate", "--worlds", dir.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--out"), "{}", text(&o.stderr));
}

#[test]
fn new_scaffolds_a_world_that_expands_and_refuses_to_overwrite() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("allotments");
    let o = cosec(&["scenarios", "new", dir.to_str().unwrap(), "--from", WORLD]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for file in [
        "world.toml",
        "allotments-1.toml",
        "world.schema.json",
        "variant.schema.json",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }
    assert!(
        !tmp.path().join("allotments.partial").exists(),
        "the staging folder is moved into place"
    );
    let world = std::fs::read_to_string(dir.join("world.toml")).unwrap();
    assert!(world.starts_with("#:schema ./world.schema.json\n"));
    let out = tmp.path().join("out");
    let o = generate(&dir, &out);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(out.join("allotments-1.json").is_file());

    let again = cosec(&["scenarios", "new", dir.to_str().unwrap(), "--from", WORLD]);
    assert!(!again.status.success());
    assert!(
        text(&again.stderr).contains("not empty"),
        "{}",
        text(&again.stderr)
    );
    let unknown = cosec(&[
        "scenarios",
        "new",
        tmp.path().join("x").to_str().unwrap(),
        "--from",
        "no-such-world",
    ]);
    assert!(!unknown.status.success());
    assert!(
        text(&unknown.stderr).contains(WORLD),
        "lists the frozen worlds"
    );
}

#[test]
fn schema_prints_the_committed_schemas() {
    for kind in ["world", "variant"] {
        let o = cosec(&["scenarios", "schema", kind]);
        assert!(o.status.success());
        let committed = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../scenarios/worlds")
                .join(format!("{kind}.schema.json")),
        )
        .unwrap();
        assert_eq!(text(&o.stdout), committed);
    }
}
