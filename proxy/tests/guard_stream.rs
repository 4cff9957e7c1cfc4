//! Streaming redaction: a leak split across chunks anywhere is caught, the output is
//! exactly the non-streaming output, and the rest of the reply flows chunk by chunk.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod guard_fixture;

use cosec_proxy::guard::{GuardMode, GuardPoint, TrialGuard, MARKER};
use cosec_scenarios::{Action, CommunityId, Destination};
use guard_fixture::*;
use std::sync::Arc;

fn parents() -> Destination {
    Destination::Community {
        community: CommunityId::from("y5parents"),
    }
}

fn whole(guard: &TrialGuard, text: &str) -> String {
    guard
        .check_text(
            &ctx("y5parents", Some("gemma")),
            text,
            Action::Disclose,
            &parents(),
            GuardPoint::Response,
        )
        .text
}

fn streamed(guard: &Arc<TrialGuard>, chunks: &[&str]) -> (String, Vec<String>) {
    let mut s = guard.stream(
        &ctx("y5parents", Some("gemma")),
        Action::Disclose,
        &parents(),
        GuardPoint::Response,
    );
    let mut released = Vec::new();
    for c in chunks {
        released.push(s.push(c));
    }
    released.push(s.finish());
    (released.concat(), released)
}

fn char_splits(text: &str) -> Vec<usize> {
    text.char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect()
}

const REPLY: &str = "Of course. Ole said he takes Levetiracetam 500 mg twice daily; Ingrid is on 07700 900412 (or 07700-900-412). Refund: GB29 NWBK 6016 1331 9268 19, ref SBH-440917. Café at Hollins Farm, 9:30 start — ünïcode ok.";

#[test]
fn a_leak_split_at_every_position_is_caught_identically() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    f.guard.mark_served(&"ole-post".into());
    f.guard.mark_served(&"refund".into());
    let expected = whole(&f.guard, REPLY);
    assert!(expected.contains(MARKER));
    assert_clean(&expected, OLE_SECRETS);
    assert_clean(&expected, REFUND_SECRETS);
    assert!(expected.contains("Hollins Farm, 9:30 start"), "{expected}");

    let cuts = char_splits(REPLY);
    for &i in &cuts {
        let (out, _) = streamed(&f.guard, &[&REPLY[..i], &REPLY[i..]]);
        assert_eq!(out, expected, "split at byte {i}");
    }
    // Three chunks, every pair of cut positions across the first leak.
    let near: Vec<usize> = cuts
        .iter()
        .copied()
        .filter(|i| (30..110).contains(i))
        .collect();
    for &i in &near {
        for &j in near.iter().filter(|j| **j >= i) {
            let (out, _) = streamed(&f.guard, &[&REPLY[..i], &REPLY[i..j], &REPLY[j..]]);
            assert_eq!(out, expected, "splits at {i}, {j}");
        }
    }
    // One character at a time.
    let singles: Vec<&str> = cuts.windows(2).map(|w| &REPLY[w[0]..w[1]]).collect();
    let (out, released) = streamed(&f.guard, &singles);
    assert_eq!(out, expected);
    for piece in &released {
        assert_clean(piece, OLE_SECRETS);
    }
}

#[test]
fn pseudo_random_chunkings_match_the_whole_text() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    f.guard.mark_served(&"ole-post".into());
    f.guard.mark_served(&"refund".into());
    // Adjacent and overlapping leaks, repeated.
    let text = format!("{REPLY} 0770090041207700 900412 86.40,86.40 {REPLY}");
    let expected = whole(&f.guard, &text);
    let cuts = char_splits(&text);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..300 {
        let mut points = vec![0, text.len()];
        for _ in 0..6 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            points.push(cuts[(seed >> 33) as usize % cuts.len()]);
        }
        points.sort_unstable();
        let chunks: Vec<&str> = points.windows(2).map(|w| &text[w[0]..w[1]]).collect();
        let (out, _) = streamed(&f.guard, &chunks);
        assert_eq!(out, expected, "cuts {points:?}");
    }
}

#[test]
fn the_rest_of_the_reply_flows_with_a_bounded_hold_back() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    f.guard.mark_served(&"ole-post".into());
    let mut s = f.guard.stream(
        &ctx("y5parents", Some("gemma")),
        Action::Disclose,
        &parents(),
        GuardPoint::Response,
    );
    let w = s.window();
    assert!(w > 0 && w <= 4096, "window {w}");
    let chunk = "All good for the walk, bring water and snacks. ";
    let mut released = 0;
    let mut sent = 0;
    for _ in 0..40 {
        released += s.push(chunk).chars().count();
        sent += chunk.chars().count();
        // Never more than W characters, the last chunk and the rest of a word are held
        // back (text is released up to a whitespace at least W characters back).
        let bound = w + chunk.chars().count();
        assert!(
            sent - released <= bound,
            "held {} > {bound}",
            sent - released
        );
    }
    released += s.finish().chars().count();
    assert_eq!(released, sent);
}

#[test]
fn text_without_protected_content_is_released_unchanged_within_a_bounded_window() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Enforce);
    let mut s = f.guard.stream(
        &ctx("y5parents", Some("gemma")),
        Action::Disclose,
        &parents(),
        GuardPoint::Response,
    );
    let window = s.window();
    assert!(window > 0 && window <= 4096, "{window}");
    let text = "The class trip leaves at nine; bring a packed lunch and a rain jacket. ".repeat(8);
    let mut out = s.push(&text);
    // Everything but the hold-back window (up to a word boundary) is released at once.
    assert!(text.chars().count() - out.chars().count() <= window + 16);
    out.push_str(&s.finish());
    assert_eq!(out, text);
}

#[test]
fn shadow_streams_pass_through_and_trace() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture(dir.path(), GuardMode::Shadow);
    f.guard.mark_served(&"ole-post".into());
    let (out, released) = streamed(&f.guard, &[&REPLY[..40], &REPLY[40..]]);
    assert_eq!(out, REPLY);
    assert_eq!(released[0], &REPLY[..40]);
    let rows = decisions(&f.trace_path);
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .any(|r| (r.5.as_str(), r.7) == ("redact", false)),
        "{rows:?}"
    );
    assert!(rows.iter().all(|r| !r.7), "shadow mode enforces nothing");
}
