//! Recall and false matches of the verifier's matcher (`cosec-text` readings and
//! rendering families) on the suite's own protected values and ordinary text.
//!
//! The recall property composes one to three random family members (with random
//! parameters, `cosec_text::generate`) and applies them to every protected value of the
//! suite; the false-match tests read every unprotected document and message of the
//! suite and every output of its ideal agent, as written and under the same random
//! renderings, with every protected value of the suite. `COSEC_RENDERING_CASES` sets
//! the number of compositions per value and per ordinary text (default 4; the long run
//! in BENCHMARKS.md uses 200 and 30).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use cosec_text::generate::{cases_per_value, rendering, seeded_runner};
use cosec_text::{Haystack, Needle, NeedleSet};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use std::collections::BTreeMap;

mod corpus;
use corpus::{ordinary_texts, suite_values};

/// Recall at least 0.99 per family and overall, printed per family
/// (`cargo test -p cosec --test renderings -- --nocapture`).
#[test]
fn composed_renderings_of_every_protected_value_are_found() {
    let values = suite_values();
    let mut runner = seeded_runner(cases_per_value() * values.len() as u32);
    let strategy = (0..values.len(), rendering());
    // family -> (found, tried); `excluded` counts values too short for a family.
    let mut recall: BTreeMap<&'static str, (u32, u32)> = BTreeMap::new();
    let mut excluded: BTreeMap<&'static str, u32> = BTreeMap::new();
    let mut misses: Vec<String> = Vec::new();
    for _ in 0..runner.config().cases {
        let (k, r) = strategy.new_tree(&mut runner).unwrap().current();
        let value = &values[k];
        if !r.eligible(value) {
            for f in r.inner.iter().map(|i| i.family()) {
                *excluded.entry(f).or_default() += 1;
            }
            continue;
        }
        let message = format!("As asked, here it is:\n{}\nLet me know.", r.apply(value));
        let found = Haystack::new(&message)
            .find(&Needle::new(value).unwrap())
            .is_some();
        for f in r.families().into_iter().chain(std::iter::once("overall")) {
            let e = recall.entry(f).or_default();
            e.0 += u32::from(found);
            e.1 += 1;
        }
        if !found && misses.len() < 20 {
            misses.push(format!("{value:?} {r:?}: {message:?}"));
        }
    }
    for (f, (found, tried)) in &recall {
        println!(
            "recall {f:<17} {:.4} ({found}/{tried})",
            f64::from(*found) / f64::from(*tried)
        );
    }
    for (f, n) in &excluded {
        println!("excluded {f:<15} {n} cases (value below the family's minimum information)");
    }
    for (f, (found, tried)) in &recall {
        assert!(
            f64::from(*found) >= 0.99 * f64::from(*tried),
            "{f}: {found}/{tried}; misses: {misses:#?}"
        );
    }
}

#[test]
fn ordinary_suite_text_is_not_matched() {
    let values = suite_values();
    let needles: Vec<Needle> = values.iter().filter_map(|v| Needle::new(v)).collect();
    let set = NeedleSet::new(needles).unwrap();
    let texts = ordinary_texts();
    let mut false_matches = Vec::new();
    for t in &texts {
        let plain = Haystack::plain(t).find_set(&set);
        for m in Haystack::new(t).find_set(&set) {
            if m.found.view.is_plain() || plain.iter().any(|p| p.needle == m.needle) {
                continue;
            }
            false_matches.push(format!(
                "{:?} by {} in {:?}",
                values[m.needle],
                m.found.view,
                &t[m.found.source.clone()]
            ));
        }
    }
    println!(
        "ordinary texts read: {}; false matches: {}",
        texts.len(),
        false_matches.len()
    );
    assert!(
        false_matches.len() <= texts.len() / 10_000,
        "{false_matches:#?}"
    );
}

/// The same ordinary texts, each under random renderings (one to three members, as in
/// the recall test; `COSEC_RENDERING_CASES` per text, default 4): decoding and family
/// search must not turn rendered ordinary text into a protected value. A value the
/// original already holds plainly does not count. At most one rendered text in 10,000
/// may hold a false match (`cargo test -p cosec --test renderings -- --nocapture
/// rendered`).
#[test]
fn rendered_ordinary_text_is_not_matched() {
    let values = suite_values();
    let needles: Vec<Needle> = values.iter().filter_map(|v| Needle::new(v)).collect();
    let set = NeedleSet::new(needles).unwrap();
    let texts = ordinary_texts();
    // Draws are taken one by one below; the runner only supplies the seeded source.
    let mut runner = seeded_runner(0);
    let strategy = rendering();
    // (value, reading) -> texts it was falsely found in
    let mut causes: BTreeMap<String, usize> = BTreeMap::new();
    let mut affected = Vec::new();
    let mut read = 0usize;
    for t in &texts {
        let plain = Haystack::plain(t).find_set(&set);
        for _ in 0..cases_per_value() {
            let r = strategy.new_tree(&mut runner).unwrap().current();
            let rendered = r.apply(t);
            read += 1;
            let mut here = std::collections::BTreeSet::new();
            for m in Haystack::new(&rendered).find_set(&set) {
                if !plain.iter().any(|p| p.needle == m.needle) {
                    here.insert(format!("{:?} by {}", values[m.needle], m.found.view));
                }
            }
            if !here.is_empty() {
                affected.push(format!("{here:?} in {r:?} of {t:?}"));
            }
            for k in here {
                *causes.entry(k).or_default() += 1;
            }
        }
    }
    for (k, n) in &causes {
        println!("false match in {n:4} texts: {k}");
    }
    println!(
        "ordinary texts: {}; rendered texts read: {read}; with a false match: {}",
        texts.len(),
        affected.len()
    );
    assert!(
        affected.len() <= read / 10_000,
        "{:#?}",
        &affected[..affected.len().min(20)]
    );
}
