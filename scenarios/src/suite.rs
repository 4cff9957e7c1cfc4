//! The frozen suite on disk: one JSON file per scenario plus `MANIFEST.json` with a
//! sha256 digest per file and a digest of the whole suite.
//!
//! The copy in `scenarios/suite/` is embedded in the binary, so `cosec` runs the frozen
//! suite from anywhere; a suite folder on disk can be loaded too. Either way the
//! manifest is checked, and a modified suite is refused unless explicitly allowed.

use crate::scenario::Scenario;
use crate::validate::{validate_scenario, Problem};
use include_dir::{include_dir, Dir};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The suite folder as built into this binary.
static EMBEDDED: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/suite");

/// File name of the manifest inside a suite folder.
pub const MANIFEST_FILE: &str = "MANIFEST.json";

/// Version of the manifest format.
pub const MANIFEST_VERSION: u32 = 1;

/// Version of the suite's content, raised whenever regenerated scenarios change what a
/// trial plays or scores (results of different suite versions are not comparable).
/// Version 2: every reference plan fetches what it discloses in the session that
/// discloses it. Version 3: every scenario's legitimate task also needs an authorized
/// use of its protected object (someone entitled asks for it in one turn, and the goal
/// checks the value at the destination the oracle allows), so a defense that withholds
/// or refuses everything loses the task (docs/scenarios.md, "Suite versions").
pub const SUITE_VERSION: u32 = 3;

/// The suite version of a manifest written before suite versions were recorded.
fn first_suite_version() -> u32 {
    1
}

/// Errors while reading, checking or writing a suite or a scenario file.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A file is not valid JSON for its type.
    #[error("{path}:{line}:{column}: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What serde reported (names the field).
        #[source]
        source: serde_json::Error,
    },
    /// A scenario failed structural validation.
    #[error("{path}: invalid scenario `{id}`:\n{}", render_problems(.problems))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The scenario id.
        id: String,
        /// Everything wrong with it.
        problems: Vec<Problem>,
    },
    /// Files differ from the manifest.
    #[error("the frozen suite in {location} was modified: {}\nrestore it with `git checkout scenarios/suite` (or `cosec scenarios generate`), or pass --allow-modified to run it anyway as a modified suite", render_changes(.changed, .missing, .extra))]
    Modified {
        /// Where the suite was loaded from.
        location: String,
        /// Files whose digest differs.
        changed: Vec<String>,
        /// Files listed in the manifest but absent.
        missing: Vec<String>,
        /// Files present but not listed.
        extra: Vec<String>,
    },
    /// The manifest itself is missing.
    #[error(
        "{location}: no {MANIFEST_FILE}; regenerate the suite with `cosec scenarios generate`"
    )]
    NoManifest {
        /// Where the suite was loaded from.
        location: String,
    },
    /// A file's name does not match the id inside it.
    #[error("{path}: file holds scenario `{id}`; its name must be `{id}.json`")]
    MisnamedFile {
        /// The file.
        path: PathBuf,
        /// The id inside.
        id: String,
    },
    /// Two files hold the same scenario id.
    #[error("scenario id `{0}` appears in more than one file")]
    DuplicateId(String),
    /// A scenario file is larger than any scenario could be.
    #[error("{path}: larger than the {limit}-byte limit of a scenario file ({} MiB); is it the intended file?", .limit / (1024 * 1024))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
    },
    /// A folder to generate into holds files that a generation did not write.
    #[error("{dir}: not empty and not a generated suite folder (it has no {MANIFEST_FILE}); generating would overwrite or delete files in it: choose a new or empty folder")]
    NotGenerated {
        /// The folder.
        dir: PathBuf,
    },
}

fn render_problems(problems: &[Problem]) -> String {
    let mut s = String::new();
    for p in problems {
        let _ = writeln!(s, "  - {p}");
    }
    s.trim_end().to_owned()
}

fn render_changes(changed: &[String], missing: &[String], extra: &[String]) -> String {
    let mut parts = Vec::new();
    if !changed.is_empty() {
        parts.push(format!("changed: {}", changed.join(", ")));
    }
    if !missing.is_empty() {
        parts.push(format!("missing: {}", missing.join(", ")));
    }
    if !extra.is_empty() {
        parts.push(format!("not in the manifest: {}", extra.join(", ")));
    }
    parts.join("; ")
}

/// The manifest of a suite folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Manifest format version.
    pub schema_version: u32,
    /// Version of the suite's content ([`SUITE_VERSION`] when generated by this build).
    #[serde(default = "first_suite_version")]
    pub suite_version: u32,
    /// sha256 over every `file<TAB>digest` line in file order.
    pub suite_digest: String,
    /// Number of scenario files.
    pub scenarios: usize,
    /// One entry per scenario file, sorted by file name.
    pub files: Vec<ManifestEntry>,
}

/// One file of the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestEntry {
    /// File name inside the suite folder.
    pub file: String,
    /// Lower-case hex sha256 of the file's bytes.
    pub sha256: String,
}

/// A loaded suite.
#[derive(Debug, Clone)]
pub struct LoadedSuite {
    /// Scenarios sorted by id.
    pub scenarios: Vec<Scenario>,
    /// The digest of the suite as loaded (the manifest's when unmodified).
    pub suite_digest: String,
    /// The suite version its manifest records.
    pub suite_version: u32,
    /// Whether the suite differs from its manifest (only with `allow_modified`).
    pub modified: bool,
}

/// Lower-case hex sha256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The canonical file bytes of a scenario (pretty JSON and a final newline).
pub fn render_scenario(scenario: &Scenario) -> Result<String, serde_json::Error> {
    let mut s = serde_json::to_string_pretty(scenario)?;
    s.push('\n');
    Ok(s)
}

/// The file name of a scenario inside a suite folder.
pub fn file_name(scenario: &Scenario) -> String {
    format!("{}.json", scenario.id)
}

/// Builds the manifest of a set of `(file name, bytes)` pairs.
pub fn build_manifest(files: &BTreeMap<String, Vec<u8>>) -> Manifest {
    let entries: Vec<ManifestEntry> = files
        .iter()
        .map(|(file, bytes)| ManifestEntry {
            file: file.clone(),
            sha256: sha256_hex(bytes),
        })
        .collect();
    Manifest {
        schema_version: MANIFEST_VERSION,
        suite_version: SUITE_VERSION,
        suite_digest: digest_of_entries(&entries),
        scenarios: entries.len(),
        files: entries,
    }
}

fn digest_of_entries(entries: &[ManifestEntry]) -> String {
    let mut hasher = Sha256::new();
    for e in entries {
        hasher.update(e.file.as_bytes());
        hasher.update(b"\t");
        hasher.update(e.sha256.as_bytes());
        hasher.update(b"\n");
    }
    hex::encode(hasher.finalize())
}

/// Renders a whole suite: every scenario file plus the manifest, keyed by file name.
pub fn render_suite(
    scenarios: &[Scenario],
) -> Result<BTreeMap<String, Vec<u8>>, serde_json::Error> {
    let mut files = BTreeMap::new();
    for s in scenarios {
        files.insert(file_name(s), render_scenario(s)?.into_bytes());
    }
    let manifest = build_manifest(&files);
    let mut text = serde_json::to_string_pretty(&manifest)?;
    text.push('\n');
    files.insert(MANIFEST_FILE.to_owned(), text.into_bytes());
    Ok(files)
}

/// Parses one scenario file, reporting serde's message with line and column.
pub fn parse_scenario(path: &Path, bytes: &[u8]) -> Result<Scenario, SuiteError> {
    serde_json::from_slice(bytes).map_err(|e| SuiteError::Parse {
        path: path.to_owned(),
        line: e.line(),
        column: e.column(),
        source: e,
    })
}

/// Largest scenario file read, in bytes: the suite's largest is about 16 KiB and a
/// custom scenario has at most 64 turns, so anything bigger is the wrong file (or a
/// device such as `/dev/zero` that would be read until memory runs out).
pub const MAX_SCENARIO_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a scenario file, refusing one larger than [`MAX_SCENARIO_FILE_BYTES`]
/// without reading past the limit.
pub fn read_scenario_bytes(path: &Path) -> Result<Vec<u8>, SuiteError> {
    use std::io::Read as _;
    let io = |source| SuiteError::Io {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_SCENARIO_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_SCENARIO_FILE_BYTES {
        return Err(SuiteError::TooLarge {
            path: path.to_owned(),
            limit: MAX_SCENARIO_FILE_BYTES,
        });
    }
    Ok(bytes)
}

/// Reads, parses and structurally validates a scenario file outside the suite.
pub fn load_scenario_file(path: &Path) -> Result<Scenario, SuiteError> {
    let bytes = read_scenario_bytes(path)?;
    load_scenario_bytes(path, &bytes)
}

/// Parses and structurally validates the bytes of a scenario file read from `path`.
pub fn load_scenario_bytes(path: &Path, bytes: &[u8]) -> Result<Scenario, SuiteError> {
    let scenario = parse_scenario(path, bytes)?;
    let problems = validate_scenario(&scenario);
    if !problems.is_empty() {
        return Err(SuiteError::Invalid {
            path: path.to_owned(),
            id: scenario.id.to_string(),
            problems,
        });
    }
    Ok(scenario)
}

/// Loads the suite embedded in this binary.
pub fn load_embedded(allow_modified: bool) -> Result<LoadedSuite, SuiteError> {
    let files: BTreeMap<String, Vec<u8>> = EMBEDDED
        .files()
        .filter_map(|f| {
            let name = f.path().file_name()?.to_str()?.to_owned();
            Some((name, f.contents().to_vec()))
        })
        .collect();
    load_files(
        "the built-in suite (scenarios/suite)",
        Path::new("scenarios/suite"),
        files,
        allow_modified,
    )
}

/// Loads a suite folder from disk.
pub fn load_dir(dir: &Path, allow_modified: bool) -> Result<LoadedSuite, SuiteError> {
    let io = |source| SuiteError::Io {
        path: dir.to_owned(),
        source,
    };
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") {
            continue;
        }
        files.insert(name, read_scenario_bytes(&entry.path())?);
    }
    load_files(&dir.display().to_string(), dir, files, allow_modified)
}

fn load_files(
    location: &str,
    dir: &Path,
    mut files: BTreeMap<String, Vec<u8>>,
    allow_modified: bool,
) -> Result<LoadedSuite, SuiteError> {
    let manifest_bytes = files
        .remove(MANIFEST_FILE)
        .ok_or_else(|| SuiteError::NoManifest {
            location: location.to_owned(),
        })?;
    let manifest_path = dir.join(MANIFEST_FILE);
    let manifest: Manifest =
        serde_json::from_slice(&manifest_bytes).map_err(|e| SuiteError::Parse {
            path: manifest_path,
            line: e.line(),
            column: e.column(),
            source: e,
        })?;
    let actual = build_manifest(&files);
    let listed: BTreeMap<&str, &str> = manifest
        .files
        .iter()
        .map(|e| (e.file.as_str(), e.sha256.as_str()))
        .collect();
    let mut changed = Vec::new();
    let mut extra = Vec::new();
    for e in &actual.files {
        match listed.get(e.file.as_str()) {
            Some(sha) if *sha == e.sha256 => {}
            Some(_) => changed.push(e.file.clone()),
            None => extra.push(e.file.clone()),
        }
    }
    let missing: Vec<String> = manifest
        .files
        .iter()
        .filter(|e| !files.contains_key(&e.file))
        .map(|e| e.file.clone())
        .collect();
    let digest_ok = manifest.suite_digest == digest_of_entries(&manifest.files);
    if !digest_ok {
        changed.push(MANIFEST_FILE.to_owned());
    }
    let modified = !(changed.is_empty() && missing.is_empty() && extra.is_empty());
    if modified && !allow_modified {
        return Err(SuiteError::Modified {
            location: location.to_owned(),
            changed,
            missing,
            extra,
        });
    }
    let mut scenarios = Vec::with_capacity(files.len());
    let mut seen = std::collections::BTreeSet::new();
    for (name, bytes) in &files {
        let path = dir.join(name);
        let scenario = parse_scenario(&path, bytes)?;
        if file_name(&scenario) != *name {
            return Err(SuiteError::MisnamedFile {
                path,
                id: scenario.id.to_string(),
            });
        }
        if !seen.insert(scenario.id.clone()) {
            return Err(SuiteError::DuplicateId(scenario.id.to_string()));
        }
        let problems = validate_scenario(&scenario);
        if !problems.is_empty() {
            return Err(SuiteError::Invalid {
                path,
                id: scenario.id.to_string(),
                problems,
            });
        }
        scenarios.push(scenario);
    }
    scenarios.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(LoadedSuite {
        scenarios,
        suite_digest: if modified {
            actual.suite_digest
        } else {
            manifest.suite_digest
        },
        suite_version: manifest.suite_version,
        modified,
    })
}

/// Writes a rendered suite into `dir`: every file is written to a temporary name and
/// renamed into place, and scenario files no longer in the suite are removed, so an
/// interrupted write never leaves a half file behind.
///
/// `dir` must be new, empty, or a suite folder written before (it holds a
/// [`MANIFEST_FILE`]); only files that folder's manifest lists are ever removed, so
/// files someone else put there are never deleted.
pub fn write_suite(dir: &Path, files: &BTreeMap<String, Vec<u8>>) -> Result<(), SuiteError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| SuiteError::Io { path, source }
    };
    let previous = previous_generation(dir)?;
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    // The manifest goes last: a write cut short leaves files that disagree with the old
    // manifest, which loading reports as a modified suite instead of trusting it.
    let ordered = files
        .iter()
        .filter(|(name, _)| name.as_str() != MANIFEST_FILE)
        .chain(
            files
                .iter()
                .filter(|(name, _)| name.as_str() == MANIFEST_FILE),
        );
    for (name, bytes) in ordered {
        let target = dir.join(name);
        let tmp = dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &target).map_err(io(&target))?;
    }
    for name in previous {
        let path = dir.join(&name);
        if !files.contains_key(&name) && path.is_file() {
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    Ok(())
}

/// The scenario files an earlier generation wrote into `dir` (from its manifest), or
/// none for a missing or empty folder; any other folder is refused.
fn previous_generation(dir: &Path) -> Result<Vec<String>, SuiteError> {
    let mut entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(SuiteError::Io {
                path: dir.to_owned(),
                source,
            })
        }
    };
    if entries.next().is_none() {
        return Ok(Vec::new());
    }
    let manifest_path = dir.join(MANIFEST_FILE);
    let manifest = std::fs::read(&manifest_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Manifest>(&bytes).ok())
        .ok_or_else(|| SuiteError::NotGenerated {
            dir: dir.to_owned(),
        })?;
    // Only plain file names: a manifest cannot point the removal outside the folder.
    Ok(manifest
        .files
        .into_iter()
        .map(|f| f.file)
        .filter(|name| Path::new(name).file_name().and_then(|n| n.to_str()) == Some(name.as_str()))
        .collect())
}
