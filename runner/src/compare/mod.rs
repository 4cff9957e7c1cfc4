//! Comparing runs: pairing trials by scenario id across run folders, the paired
//! statistics of every summary block (Newcombe interval, exact McNemar test), and the
//! cross-run matrix table.

pub mod load;
pub mod matrix;
pub mod paired;
pub mod render;
pub mod stats;

pub use load::{load_run, load_runs, LoadError, LoadedRun};
pub use matrix::{matrix_rows, render_matrix, MatrixRow};
pub use paired::{
    compare_all, compare_pair, BlockComparison, Changed, Comparison, MetricComparison,
};
pub use render::{render_changed, render_comparison};
pub use stats::{mcnemar_exact_p, newcombe_paired_ci, PairedTable};

#[cfg(test)]
mod tests;
