//! The matrix file (`matrix.toml`) and the cells it spans.

use crate::cli::RunArgs;
use clap::Parser;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Errors of a matrix file.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The matrix file.
        path: PathBuf,
        /// Cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML of a matrix.
    #[error("{path}: {}", source.to_string().trim())]
    Toml {
        /// The matrix file.
        path: PathBuf,
        /// Cause.
        #[source]
        source: toml::de::Error,
    },
    /// A cell's `cosec run` flags (`run_args` and the axes) do not parse.
    #[error("{path}: cell {cell}: {}", source.to_string().trim())]
    Flags {
        /// The matrix file.
        path: PathBuf,
        /// The cell's name.
        cell: String,
        /// clap's message.
        #[source]
        source: clap::Error,
    },
    /// A field is missing, empty or wrong.
    #[error("{path}: {message}")]
    Invalid {
        /// The matrix file.
        path: PathBuf,
        /// What is wrong and how to fix it.
        message: String,
    },
}

/// `matrix.toml`: the axes of the matrix and what every cell's run shares.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatrixSpec {
    /// The matrix folder (relative to the working directory), unless `--out` is given.
    #[serde(default)]
    pub out: Option<PathBuf>,
    /// Harnesses (`builtin`, `codex`, `openclaw`, `hermes`).
    #[serde(default = "default_harnesses")]
    pub harnesses: Vec<String>,
    /// Models as `cosec run --model` spells them.
    pub models: Vec<String>,
    /// Defenses (`none`, `prompt`, `proxy`).
    pub defenses: Vec<String>,
    /// Defense policies of the `proxy` cells: `default` (the built-in one) or `.cedar`
    /// files (relative to the matrix file).
    #[serde(default = "default_policies")]
    pub policies: Vec<String>,
    /// Suites (`all`, `static112`, `dyn96`).
    #[serde(default = "default_suites")]
    pub suites: Vec<String>,
    /// Further `cosec run` flags given to every cell (e.g. `["--judge", "none"]`).
    #[serde(default)]
    pub run_args: Vec<String>,
}

fn default_harnesses() -> Vec<String> {
    vec!["builtin".to_owned()]
}

fn default_policies() -> Vec<String> {
    vec![DEFAULT_POLICY.to_owned()]
}

fn default_suites() -> Vec<String> {
    vec!["all".to_owned()]
}

/// The policy label meaning the built-in defense policy.
pub const DEFAULT_POLICY: &str = "default";

/// One configuration of the matrix: one run folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// Folder name of the cell inside the matrix folder.
    pub name: String,
    /// Harness.
    pub harness: String,
    /// Model.
    pub model: String,
    /// Defense.
    pub defense: String,
    /// Policy label (file stem, or `default`) of a `proxy` cell.
    pub policy: Option<String>,
    /// Suite.
    pub suite: String,
}

/// A cell and the `cosec run` flags that run it.
#[derive(Debug, Clone)]
pub struct PlannedCell {
    /// The cell.
    pub cell: Cell,
    /// `cosec run` flags (no `--out` or `--resume`).
    pub flags: Vec<String>,
}

/// `cosec run`'s flags alone, to parse a cell's flags exactly as the command would
/// (defaults and environment included).
#[derive(Debug, Parser)]
#[command(name = "cosec run", no_binary_name = true)]
struct CellRun {
    #[command(flatten)]
    args: RunArgs,
}

/// Parses a cell's `cosec run` flags.
pub fn parse_run_args(flags: &[String]) -> Result<RunArgs, clap::Error> {
    CellRun::try_parse_from(flags).map(|c| c.args)
}

/// A folder-name spelling of a label: letters, digits, `-` and `.` kept.
fn slug(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl MatrixSpec {
    /// Reads and checks a matrix file.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        let text = std::fs::read_to_string(path).map_err(|source| SpecError::Read {
            path: path.to_owned(),
            source,
        })?;
        let spec: MatrixSpec = toml::from_str(&text).map_err(|source| SpecError::Toml {
            path: path.to_owned(),
            source,
        })?;
        let axes: [(&str, &Vec<String>); 5] = [
            ("harnesses", &spec.harnesses),
            ("models", &spec.models),
            ("defenses", &spec.defenses),
            ("policies", &spec.policies),
            ("suites", &spec.suites),
        ];
        for (field, values) in axes {
            if values.is_empty() {
                return Err(SpecError::Invalid {
                    path: path.to_owned(),
                    message: format!("`{field}` is empty; list at least one value"),
                });
            }
        }
        Ok(spec)
    }

    /// Every cell, in a fixed order, with its flags; each cell's flags are checked by
    /// `cosec run`'s own parser and what they name (model URL, policy, price file) is
    /// loaded, so a bad value fails before any cell runs.
    pub fn cells(&self, spec_path: &Path) -> Result<Vec<PlannedCell>, SpecError> {
        let invalid = |message: String| SpecError::Invalid {
            path: spec_path.to_owned(),
            message,
        };
        let base = spec_path.parent().unwrap_or(Path::new("."));
        let mut cells = Vec::new();
        let mut names = BTreeSet::new();
        for harness in &self.harnesses {
            for model in &self.models {
                for defense in &self.defenses {
                    // Policies vary only the runtime guard's cells.
                    let policies: Vec<Option<&String>> = if defense == "proxy" {
                        self.policies.iter().map(Some).collect()
                    } else {
                        vec![None]
                    };
                    for policy in policies {
                        for suite in &self.suites {
                            let mut flags: Vec<String> = [
                                "--harness",
                                harness,
                                "--model",
                                model,
                                "--defense",
                                defense,
                                "--suite",
                                suite,
                            ]
                            .iter()
                            .map(|s| (*s).to_owned())
                            .collect();
                            let label = match policy {
                                Some(p) if p == DEFAULT_POLICY => Some(p.clone()),
                                Some(p) => {
                                    flags.push("--policy".to_owned());
                                    flags.push(base.join(p).display().to_string());
                                    let stem = Path::new(p)
                                        .file_stem()
                                        .map(|s| s.to_string_lossy().into_owned())
                                        .unwrap_or_else(|| p.clone());
                                    Some(stem)
                                }
                                None => None,
                            };
                            flags.extend(self.run_args.iter().cloned());
                            let mut name = format!("{}-{}-{defense}", slug(harness), slug(model));
                            if let Some(l) = &label {
                                name.push('-');
                                name.push_str(&slug(l));
                            }
                            name.push('-');
                            name.push_str(&slug(suite));
                            if !names.insert(name.clone()) {
                                return Err(invalid(format!(
                                    "two cells would share the folder `{name}`; give the policy files distinct names and list each value once"
                                )));
                            }
                            let cell = Cell {
                                name,
                                harness: harness.clone(),
                                model: model.clone(),
                                defense: defense.clone(),
                                policy: label,
                                suite: suite.clone(),
                            };
                            let args =
                                parse_run_args(&flags).map_err(|source| SpecError::Flags {
                                    path: spec_path.to_owned(),
                                    cell: cell.name.clone(),
                                    source,
                                })?;
                            if args.out.is_some() || args.resume || args.shard.is_some() {
                                return Err(invalid(
                                    "`run_args` must not set --out, --resume or --shard: the matrix chooses each cell's folder and resumes it".to_owned(),
                                ));
                            }
                            cells.push(PlannedCell { cell, flags });
                        }
                    }
                }
            }
        }
        Ok(cells)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("matrix.toml");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn policies_multiply_only_the_guarded_cells() {
        let (_d, path) = spec(
            r#"
models = ["sim:comply", "sim:refuse"]
defenses = ["none", "prompt", "proxy"]
policies = ["default", "strict.cedar"]
run_args = ["--judge", "none"]
"#,
        );
        std::fs::write(
            path.with_file_name("strict.cedar"),
            cosec_policies::DEFAULT_DEFENSE_SOURCE,
        )
        .unwrap();
        let m = MatrixSpec::load(&path).unwrap();
        let cells = m.cells(&path).unwrap();
        let names: Vec<&str> = cells.iter().map(|c| c.cell.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "builtin-sim_comply-none-all",
                "builtin-sim_comply-prompt-all",
                "builtin-sim_comply-proxy-default-all",
                "builtin-sim_comply-proxy-strict-all",
                "builtin-sim_refuse-none-all",
                "builtin-sim_refuse-prompt-all",
                "builtin-sim_refuse-proxy-default-all",
                "builtin-sim_refuse-proxy-strict-all",
            ]
        );
        let strict = &cells[3].flags;
        let at = strict.iter().position(|f| f == "--policy").unwrap();
        assert_eq!(
            Path::new(&strict[at + 1]),
            path.parent().unwrap().join("strict.cedar")
        );
        assert!(!cells[2].flags.contains(&"--policy".to_owned()));
    }

    #[test]
    fn bad_values_are_refused_naming_the_cell_before_anything_runs() {
        let (_d, path) = spec("models = [\"sim:comply\"]\ndefenses = [\"sandbox\"]\n");
        let e = MatrixSpec::load(&path).unwrap().cells(&path).unwrap_err();
        assert!(
            e.to_string()
                .contains("cell builtin-sim_comply-sandbox-all"),
            "{e}"
        );
        let (_d, path) = spec("models = []\ndefenses = [\"none\"]\n");
        let e = MatrixSpec::load(&path).unwrap_err();
        assert!(e.to_string().contains("`models` is empty"), "{e}");
        let (_d, path) = spec(
            "models = [\"sim:comply\"]\ndefenses = [\"none\"]\nrun_args = [\"--out\", \"x\"]\n",
        );
        let e = MatrixSpec::load(&path).unwrap().cells(&path).unwrap_err();
        assert!(e.to_string().contains("must not set --out"), "{e}");
        let (_d, path) = spec("models = [\"sim:comply\"]\ndefenses = [\"none\"]\ncolour = 1\n");
        let e = MatrixSpec::load(&path).unwrap_err();
        assert!(e.to_string().contains("colour"), "{e}");
    }
}
