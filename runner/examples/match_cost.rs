//! Cost of the verifier's and guard's matcher per reply: every protected value of the
//! suite as one needle set, searched in every message and unprotected document of the
//! suite, read through the decoding views only and through views and rendering
//! families. Prints medians and the ratio, measured in the same run.
//!
//! `cargo run --release -p cosec --example match_cost`

use cosec_text::{Haystack, Needle, NeedleSet};
use std::time::Instant;

/// The `q` quantile (0 to 1) of `v`.
fn quantile(v: &[u128], q: f64) -> u128 {
    let mut v = v.to_vec();
    v.sort_unstable();
    let i = ((v.len().saturating_sub(1)) as f64 * q).round() as usize;
    v.get(i).copied().unwrap_or(0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let suite = cosec_scenarios::suite::load_embedded(false)?;
    let mut values: Vec<String> = suite
        .scenarios
        .iter()
        .flat_map(|s| s.verifier.protected.iter().flat_map(|p| p.canaries.clone()))
        .collect();
    values.sort();
    values.dedup();
    let mut texts: Vec<String> = suite
        .scenarios
        .iter()
        .flat_map(|s| {
            s.agent
                .turns
                .iter()
                .map(|t| t.text.clone())
                .chain(s.agent.seeds.iter().map(|x| x.content.clone()))
        })
        .collect();
    texts.sort();
    texts.dedup();
    let started = Instant::now();
    let set = NeedleSet::new(values.iter().filter_map(|v| Needle::new(v)).collect())?;
    let build = started.elapsed().as_micros();
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let mut hits = (0usize, 0usize);
    for _round in 0..3 {
        for t in &texts {
            let a = Instant::now();
            hits.0 += Haystack::views_only(t).find_set(&set).len();
            before.push(a.elapsed().as_nanos());
            let b = Instant::now();
            hits.1 += Haystack::new(t).find_set(&set).len();
            after.push(b.elapsed().as_nanos());
        }
    }
    let (mb, ma) = (quantile(&before, 0.5), quantile(&after, 0.5));
    let (pb, pa) = (quantile(&before, 0.99), quantile(&after, 0.99));
    println!(
        "values {} texts {} set build {build} us; per text, median (p99): views only {:.1} us ({:.1} us), views + families {:.1} us ({:.1} us), ratio of medians {:.2}; matches {} vs {}",
        values.len(),
        texts.len(),
        mb as f64 / 1000.0,
        pb as f64 / 1000.0,
        ma as f64 / 1000.0,
        pa as f64 / 1000.0,
        ma as f64 / mb.max(1) as f64,
        hits.0,
        hits.1
    );
    Ok(())
}
