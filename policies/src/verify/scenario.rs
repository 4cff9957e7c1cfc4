//! Turning a counterexample into a world and variant (placeholder until written).

use super::{Counterexample, VerifyError};
use std::path::{Path, PathBuf};

/// What `--scenario-out` wrote.
#[derive(Debug, Clone)]
pub struct ScenarioExport {
    /// The world folder.
    pub world: PathBuf,
    /// The variant's id.
    pub variant: String,
}

/// Writes `cex` as a world and variant under `dir`.
pub fn export_scenario(
    _cex: &Counterexample,
    _defense: &str,
    _dir: &Path,
) -> Result<ScenarioExport, VerifyError> {
    Err(VerifyError::Export("not yet".into()))
}
