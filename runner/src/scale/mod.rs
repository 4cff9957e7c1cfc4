//! Running at scale: a run cut into shards (`cosec run --shard K/N`) and merged back
//! (`cosec merge`), and matrices of runs (`cosec matrix`).

pub mod matrix;
pub mod merge;
pub mod shard;

use crate::error::CliError;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `cosec merge SHARD_DIR... --out DIR`: merges, writes, prints the metrics table.
pub fn merge_command(dirs: &[PathBuf], out: &Path) -> Result<ExitCode, CliError> {
    let merged = merge::merge_shards(dirs)?;
    merge::write_merged(&merged, out)?;
    eprintln!(
        "cosec merge: {} shard(s), {} trials -> {}",
        dirs.len(),
        merged.verdicts.len(),
        out.display()
    );
    outln!("{}", crate::metrics::render_table(&merged.summary));
    outln!("results: {}", out.join("results.jsonl").display());
    Ok(ExitCode::SUCCESS)
}
