//! `cosec matrix run|status`: one run folder per cell of a matrix file, run one cell
//! after another and resumed cell by cell.
//!
//! A matrix folder holds `matrix.json` (the cells and their folders) and one ordinary
//! run folder per cell, named after the cell; [`run_folders`] lists them, so anything
//! that reads a run folder reads a matrix folder cell by cell. A cell is done when its
//! folder has a `summary.json`, partial when it has only a `run.json` (it resumes with
//! `--resume`, re-running only the trials without a results line), and not started
//! otherwise.

pub mod index;
pub mod spec;

pub use index::{
    is_matrix_dir, read_index, run_folders, MatrixIndex, MATRIX_FILE, MATRIX_SCHEMA_VERSION,
};

use crate::error::CliError;
use crate::metrics::{self, Summary};
use crate::run::record::read_record;
use crate::run::results::read_results;
use crate::verify::Verdict;
use spec::{Cell, MatrixSpec};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// How far a cell got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellState {
    /// No run folder yet.
    NotStarted,
    /// Started; `done` of `total` trials have a results line.
    Partial {
        /// Trials finished.
        done: usize,
        /// Trials of the cell.
        total: usize,
    },
    /// Finished: `summary.json` is written.
    Done,
}

/// The state of the cell whose run folder is `folder`.
pub fn cell_state(folder: &Path) -> Result<CellState, CliError> {
    if folder.join("summary.json").is_file() {
        return Ok(CellState::Done);
    }
    if !folder.join("run.json").is_file() {
        return Ok(CellState::NotStarted);
    }
    let record = read_record(folder)?;
    let total = match record.shard {
        Some(shard) => shard.select(record.scenarios.iter()).len(),
        None => record.scenarios.len(),
    };
    let done = read_results::<Verdict>(&folder.join("results.jsonl"))?
        .iter()
        .map(|v| v.scenario.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    Ok(CellState::Partial { done, total })
}

fn matrix_folder(spec: &MatrixSpec, file: &Path, out: Option<&Path>) -> Result<PathBuf, CliError> {
    out.map(Path::to_path_buf)
        .or_else(|| spec.out.clone())
        .ok_or_else(|| {
            CliError::Run(format!(
                "{}: no matrix folder; set `out = \"DIR\"` in the file or pass --out DIR",
                file.display()
            ))
        })
}

/// The matrix file's spec and cells. The model route and URL, price file and policy
/// of every cell are checked here, before the first cell runs.
fn load(file: &Path) -> Result<(MatrixSpec, Vec<spec::PlannedCell>), CliError> {
    let spec = MatrixSpec::load(file)?;
    let cells = spec.cells(file)?;
    for planned in &cells {
        let args =
            spec::parse_run_args(&planned.flags).map_err(|source| spec::SpecError::Flags {
                path: file.to_owned(),
                cell: planned.cell.name.clone(),
                source,
            })?;
        crate::run::options::preflight(&args).map_err(|e| spec::SpecError::Invalid {
            path: file.to_owned(),
            message: format!("cell {}: {e}", planned.cell.name),
        })?;
    }
    Ok((spec, cells))
}

/// `cosec matrix run FILE`: runs or resumes every unfinished cell in order.
pub fn run(file: &Path, out: Option<&Path>) -> Result<ExitCode, CliError> {
    let (spec, cells) = load(file)?;
    let dir = matrix_folder(&spec, file, out)?;
    std::fs::create_dir_all(&dir).map_err(CliError::io(&dir))?;
    let index = MatrixIndex {
        schema_version: MATRIX_SCHEMA_VERSION,
        spec: file.display().to_string(),
        cells: cells.iter().map(|c| c.cell.clone()).collect(),
    };
    crate::json_file::write_atomically(&dir.join(MATRIX_FILE), &index)?;
    let n = cells.len();
    eprintln!("cosec matrix: {n} cell(s) -> {}", dir.display());
    for (i, planned) in cells.iter().enumerate() {
        let cell = &planned.cell;
        let folder = dir.join(&cell.name);
        let state = cell_state(&folder)?;
        let tag = format!("[{}/{n}] {}", i + 1, cell.name);
        if state == CellState::Done {
            eprintln!("matrix {tag}: done already");
            continue;
        }
        if state == CellState::NotStarted && folder.is_dir() {
            // A run killed before it wrote run.json leaves only its empty folder.
            let _ = std::fs::remove_dir(&folder);
        }
        let mut flags = planned.flags.clone();
        flags.push("--out".to_owned());
        flags.push(folder.display().to_string());
        if let CellState::Partial { done, total } = state {
            flags.push("--resume".to_owned());
            eprintln!("matrix {tag}: resuming ({done} of {total} trials done)");
        } else {
            eprintln!("matrix {tag}: starting");
        }
        let args = spec::parse_run_args(&flags).map_err(|source| spec::SpecError::Flags {
            path: file.to_owned(),
            cell: cell.name.clone(),
            source,
        })?;
        let started = Instant::now();
        let end = crate::run::prepare(&args)
            .and_then(crate::run::execute)
            .map_err(|e| CliError::Cell {
                cell: tag.to_string(),
                source: Box::new(e),
            })?;
        if let Some(stopped) = &end.stopped {
            return Err(CliError::Run(format!(
                "matrix {tag}: stopped ({}); run the matrix again to resume it",
                match stopped {
                    crate::run::Stopped::Interrupted => "interrupted".to_owned(),
                    crate::run::Stopped::Breaker(kind, n) =>
                        format!("{n} infrastructure failures in a row: {}", kind.label()),
                }
            )));
        }
        eprintln!(
            "matrix {tag}: done in {:.1} s: {}",
            started.elapsed().as_secs_f64(),
            brief(&end.summary)
        );
    }
    crate::commands::print(&cell_table(&dir)?)?;
    Ok(ExitCode::SUCCESS)
}

/// `cosec matrix status FILE|DIR`.
pub fn status(path: &Path, out: Option<&Path>) -> Result<ExitCode, CliError> {
    let rows: Vec<(Cell, PathBuf)> = if path.is_dir() {
        run_folders(path)?
    } else {
        let (spec, cells) = load(path)?;
        let dir = matrix_folder(&spec, path, out)?;
        cells
            .into_iter()
            .map(|c| {
                let folder = dir.join(&c.cell.name);
                (c.cell, folder)
            })
            .collect()
    };
    let (mut done, mut started) = (0, 0);
    let mut text = String::new();
    for (cell, folder) in &rows {
        let state = cell_state(folder)?;
        let shown = match state {
            CellState::NotStarted => "not started".to_owned(),
            CellState::Partial { done, total } => {
                started += 1;
                format!("partial: {done} of {total} trials")
            }
            CellState::Done => {
                done += 1;
                "done".to_owned()
            }
        };
        let _ = writeln!(text, "{:<48} {shown}", cell.name);
    }
    out!("{text}");
    outln!(
        "{done} of {} cells done, {started} partial, {} not started",
        rows.len(),
        rows.len() - done - started
    );
    Ok(ExitCode::SUCCESS)
}

/// `cosec report MATRIX_DIR`: one line of rates per cell.
pub fn report(dir: &Path) -> Result<ExitCode, CliError> {
    out!("{}", cell_table(dir)?);
    Ok(ExitCode::SUCCESS)
}

/// The summary of a cell: its `summary.json`, or, for a partial cell, the summary of
/// the trials it finished.
pub fn cell_summary(folder: &Path) -> Result<Option<Summary>, CliError> {
    let path = folder.join("summary.json");
    if let Ok(text) = std::fs::read_to_string(&path) {
        return serde_json::from_str(&text)
            .map(Some)
            .map_err(CliError::json_file(&path));
    }
    if !folder.join("run.json").is_file() {
        return Ok(None);
    }
    let record = read_record(folder)?;
    let verdicts: Vec<Verdict> = read_results(&folder.join("results.jsonl"))?;
    let config = crate::run::record::config_from_record(&record);
    Ok(Some(metrics::summarize(config, &verdicts, None)))
}

fn pct(rate: Option<f64>) -> String {
    rate.map_or_else(|| "-".to_owned(), |r| format!("{:.1}", r * 100.0))
}

fn brief(s: &Summary) -> String {
    format!(
        "{} valid of {} trials, PVR {} PVR-all {} CCPVR {} BCR {} STCR {} (%)",
        s.trials.valid,
        s.trials.total,
        pct(s.overall.pvr),
        pct(s.overall.pvr_all),
        pct(s.overall.ccpvr),
        pct(s.overall.bcr),
        pct(s.overall.stcr)
    )
}

/// The cells of a matrix folder as a table of their overall rates (percent).
fn cell_table(dir: &Path) -> Result<String, CliError> {
    let mut text = format!(
        "{:<48} {:>7} {:>7} {:>6} {:>7} {:>6} {:>6} {:>6}\n",
        "cell", "valid", "trials", "PVR", "PVR-all", "CCPVR", "BCR", "STCR"
    );
    for (cell, folder) in run_folders(dir)? {
        let state = cell_state(&folder)?;
        match cell_summary(&folder)? {
            Some(s) => {
                let mark = if state == CellState::Done {
                    ""
                } else {
                    " (partial)"
                };
                let _ = writeln!(
                    text,
                    "{:<48} {:>7} {:>7} {:>6} {:>7} {:>6} {:>6} {:>6}{mark}",
                    cell.name,
                    s.trials.valid,
                    s.trials.total,
                    pct(s.overall.pvr),
                    pct(s.overall.pvr_all),
                    pct(s.overall.ccpvr),
                    pct(s.overall.bcr),
                    pct(s.overall.stcr)
                );
            }
            None => {
                let _ = writeln!(text, "{:<48} not started", cell.name);
            }
        }
    }
    Ok(text)
}
