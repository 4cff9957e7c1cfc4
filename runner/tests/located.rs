//! The located reading of a long text (`Haystack::find_set_located`, how the guard reads
//! request texts and files) finds what the full reading of the same text finds: long
//! texts of the suite's ordinary prose with protected values planted in random
//! renderings, compared value by value.
//!
//! `COSEC_LOCATED_CASES` (default 40) sets how many long texts are drawn.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod corpus;
use corpus::{ordinary_texts, suite_values};
use cosec_text::generate::{rendering, seeded_runner};
use cosec_text::{Haystack, Needle, NeedleSet, SetMatch};
use proptest::prelude::RngExt;
use proptest::strategy::{Strategy, ValueTree};

fn cases() -> u32 {
    std::env::var("COSEC_LOCATED_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
}

/// Whether `m`'s value is found in `other` where it overlaps `m`.
fn also_in(m: &SetMatch, other: &[SetMatch]) -> bool {
    other.iter().any(|o| {
        o.needle == m.needle
            && o.found.source.start < m.found.source.end
            && m.found.source.start < o.found.source.end
    })
}

/// Whether `m` was found in a reading through the CSV view and `other` finds its value
/// too: prose with a stray quote reads as a CSV cell that runs over many lines, whose
/// characters are placed no more precisely than the cell, so a full reading and a
/// window place one value differently.
fn coarse_and_found(m: &SetMatch, other: &[SetMatch]) -> bool {
    m.found.view.to_string().contains("csv") && other.iter().any(|o| o.needle == m.needle)
}

/// Whether `m` lies on a value planted at `plants` (value, where, rendered length).
fn on_plant(m: &SetMatch, plants: &[(usize, usize, usize)]) -> bool {
    plants.iter().any(|&(k, at, len)| {
        k == m.needle && at <= m.found.source.start && m.found.source.end <= at + len
    })
}

#[test]
fn the_located_reading_finds_what_the_full_reading_finds_in_long_texts() {
    let values = suite_values();
    let set = NeedleSet::new(values.iter().filter_map(|v| Needle::new(v)).collect()).unwrap();
    // Ordinary texts that hold no value as written, so what is found was planted.
    let prose: Vec<String> = ordinary_texts()
        .into_iter()
        .filter(|t| Haystack::plain(t).find_set(&set).is_empty())
        .collect();
    let mut runner = seeded_runner(cases());
    let strategy = rendering();
    let (mut planted, mut found_full, mut located_texts, mut chance) = (0u32, 0u32, 0u32, 0u32);
    let mut failures: Vec<String> = Vec::new();
    for case in 0..cases() {
        let size = runner.rng().random_range(3_000..12_000usize);
        let mut text = String::new();
        while text.len() < size {
            text.push_str(&prose[runner.rng().random_range(0..prose.len())]);
            text.push_str(if case % 2 == 0 { "\n\n" } else { " " });
        }
        // One to three values, each in a random rendering, at random word boundaries.
        let mut plants: Vec<(usize, usize, usize)> = Vec::new();
        for _ in 0..runner.rng().random_range(1..=3) {
            let k = runner.rng().random_range(0..values.len());
            let r = strategy.new_tree(&mut runner).unwrap().current();
            let mut at = runner.rng().random_range(0..text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let at = text[at..].find(' ').map_or(text.len(), |i| at + i);
            let rendered = format!(" {} ", r.apply(&values[k]));
            // Values planted earlier and after this one move along.
            for p in plants.iter_mut().filter(|p| p.1 >= at) {
                p.1 += rendered.len();
            }
            text.insert_str(at, &rendered);
            plants.push((k, at, rendered.len()));
            planted += 1;
        }
        located_texts += u32::from(set.located_windows(&text).is_some());
        let full = Haystack::new(&text).find_set(&set);
        let located = Haystack::find_set_located(&text, &set);
        found_full += u32::try_from(full.len()).unwrap_or(u32::MAX);
        for m in &full {
            // The full reading also finds values nobody planted: chance readings of
            // ordinary text (docs/verifier.md lists them), which windows read less of.
            if !plants.iter().any(|(k, _, _)| *k == m.needle) {
                chance += 1;
                continue;
            }
            if !also_in(m, &located) && !coarse_and_found(m, &located) {
                let near = |r: &std::ops::Range<usize>| {
                    let (mut a, mut b) = (r.start.saturating_sub(60), (r.end + 60).min(text.len()));
                    while !text.is_char_boundary(a) {
                        a -= 1;
                    }
                    while !text.is_char_boundary(b) {
                        b += 1;
                    }
                    text[a..b].to_owned()
                };
                let elsewhere: Vec<String> = located
                    .iter()
                    .filter(|o| o.needle == m.needle)
                    .map(|o| format!("{:?} {}", o.found.source, o.found.view))
                    .collect();
                failures.push(format!(
                    "case {case}: {:?} found by the full reading at {:?} ({}), not by the located one \
                     (located: {elsewhere:?}; windows {:?}; plants {plants:?})\n  near: {:?}",
                    values[m.needle],
                    m.found.source,
                    m.found.view,
                    set.located_windows(&text).unwrap_or_default().iter().filter(|w| w.start <= m.found.source.end + 400 && m.found.source.start <= w.end + 400).collect::<Vec<_>>(),
                    near(&m.found.source)
                ));
            }
        }
        // The located reading may also find a planted value the full reading misses
        // (a view of the whole text that joins it with unrelated numbers or tokens).
        for m in &located {
            if !also_in(m, &full) && !coarse_and_found(m, &full) && !on_plant(m, &plants) {
                failures.push(format!(
                    "case {case}: {:?} found by the located reading at {:?} ({}), not by the full one",
                    values[m.needle], m.found.source, m.found.view
                ));
            }
        }
    }
    println!(
        "{} long texts ({located_texts} read in windows), {planted} values planted, {found_full} matches of the full reading ({chance} of values not planted)",
        cases()
    );
    // The test has teeth only if most texts are read in windows and the full reading
    // finds most planted values.
    assert!(
        located_texts * 2 > cases(),
        "{located_texts} of {} texts located",
        cases()
    );
    assert!(
        found_full * 10 >= planted * 8,
        "{found_full} matches for {planted} planted"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
