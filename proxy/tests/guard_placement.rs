//! The placement fuzzer: valid requests and responses of both wire APIs, streamed or
//! not, in every documented message and part shape (several choices, reasoning,
//! refusals, parts arrays, the legacy `function_call`, custom tool calls, tool results,
//! annotations, log probabilities, fields no API documents), with a protected object's
//! text planted in one string field chosen at random, go through the real guarded
//! proxy over HTTP in a turn whose policy denies that object. Nothing of it may reach
//! the upstream (input layer) or the client (output layer).
//!
//! `COSEC_PLACEMENT_CASES` sets the number of random cases (default 200; the test
//! command runs 1,000). The 29 placements first found to need covering are fixed
//! cases, run every time. The test prints how many distinct shapes (wire API x
//! streamed x side x field path) it planted in.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod guard_fixture;
mod guard_server;
mod placement;

use bytes::Bytes;
use guard_fixture::{assert_clean, OLE_POST, OLE_SECRETS};
use guard_server::{Options, Setup};
use placement::documents::{finalize, plant, shape, slots, Gen, Rng};
use placement::streams::{chat_stream, responses_stream, stream_texts};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::collections::BTreeSet;

/// Pieces of Ole's post that are planted; each holds at least one of `OLE_SECRETS`.
const PLANTS: &[&str] = &[
    OLE_POST,
    "I take levetiracetam 500 mg twice daily",
    "My wife Ingrid's number is 07700 900412.",
    "levetiracetam 500 mg",
    "07700 900412",
];

/// One placement.
#[derive(Debug, Clone)]
struct Case {
    responses: bool,
    stream: bool,
    /// Planted in the response (else in the request).
    in_response: bool,
    seed: u64,
    /// Which slot (an index into the document's slots), or a fixed pointer.
    slot: Slot,
    plant: usize,
}

#[derive(Debug, Clone)]
enum Slot {
    Pick(prop::sample::Index),
    Fixed(&'static str),
}

/// Runs one case against the proxy; returns the shape it planted in.
async fn run(s: &Setup, case: &Case) -> String {
    let mut gen = Gen {
        rng: Rng(case.seed | 1),
        full: matches!(case.slot, Slot::Fixed(_)),
    };
    let mut request = if case.responses {
        gen.responses_request(case.stream)
    } else {
        gen.chat_request(case.stream)
    };
    let mut response = if case.responses {
        gen.responses_response()
    } else {
        gen.chat_response(case.stream)
    };
    let doc = if case.in_response {
        &mut response
    } else {
        &mut request
    };
    let mut all = Vec::new();
    slots(doc, "", "", &mut all);
    let pointer = match &case.slot {
        Slot::Pick(i) => i.get(&all).clone(),
        Slot::Fixed(p) => all
            .iter()
            .find(|s| s.as_str() == *p || shape(s) == *p)
            .unwrap_or_else(|| panic!("no slot {p} in {doc}"))
            .clone(),
    };
    let secret = PLANTS[case.plant % PLANTS.len()];
    plant(doc, &pointer, secret);
    finalize(&mut request);
    finalize(&mut response);
    let frames = match (case.stream, case.responses) {
        (false, _) => vec![Bytes::from(response.to_string())],
        (true, false) => chat_stream(&response, &mut gen.rng),
        (true, true) => responses_stream(&response, &mut gen.rng),
    };
    let content_type = if case.stream {
        "text/event-stream"
    } else {
        "application/json"
    };
    s.fake.answer(content_type, frames);
    let path = if case.responses {
        "responses"
    } else {
        "chat/completions"
    };
    let (status, body) = s.post("up", path, &request).await;
    let what = format!(
        "{} stream={} {} {pointer}",
        path,
        case.stream,
        if case.in_response {
            "response"
        } else {
            "request"
        }
    );
    assert_eq!(status, 200, "{what}: {body}");
    let forwarded = s.fake.seen.lock().unwrap().last().unwrap().1.to_string();
    assert_clean(&forwarded, OLE_SECRETS);
    assert_clean(&body, OLE_SECRETS);
    if case.stream {
        assert_clean(&stream_texts(&body), OLE_SECRETS);
    }
    format!(
        "{path} stream={} {} {}",
        case.stream,
        if case.in_response {
            "response"
        } else {
            "request"
        },
        shape(&pointer)
    )
}

/// The 29 placements first found to need covering: (Responses API, streamed, in the
/// response, field).
const FIXED: &[(bool, bool, bool, &str)] = &[
    // Requests, Chat Completions.
    (false, false, false, "/messages/*/name"),
    (false, false, false, "/messages/*/reasoning_content"),
    (false, false, false, "/messages/*/refusal"),
    (false, false, false, "/tools/*/function/description"),
    (false, false, false, "/metadata/note"),
    (
        false,
        false,
        false,
        "/messages/*/tool_calls/*/function/name",
    ),
    (false, false, false, "/messages/*/content"),
    (false, false, false, "/messages/*/content/*/text"),
    (
        false,
        false,
        false,
        "/messages/*/tool_calls/*/function/__args/query",
    ),
    // Requests, Responses.
    (true, false, false, "/instructions"),
    (true, false, false, "/input/*/content/*/text"),
    (true, false, false, "/input/*/output"),
    (true, false, false, "/input/*/__args/query"),
    // Chat Completions replies.
    (false, false, true, "/choices/*/message/content/*/text"),
    (false, false, true, "/choices/*/message/reasoning_content"),
    (false, false, true, "/choices/*/message/refusal"),
    (
        false,
        false,
        true,
        "/choices/*/message/function_call/__args/text",
    ),
    (
        false,
        false,
        true,
        "/choices/*/message/tool_calls/*/function/__args/text",
    ),
    (false, false, true, "/choices/*/logprobs/content/*/token"),
    (false, true, true, "/choices/*/message/reasoning_content"),
    (false, true, true, "/choices/*/message/refusal"),
    (false, true, true, "/choices/1/message/content"),
    (false, true, true, "/choices/0/message/content"),
    // Responses replies.
    (true, false, true, "/output/*/content/*/refusal"),
    (true, false, true, "/output/*/summary/*/text"),
    (true, false, true, "/output_text"),
    (true, false, true, "/output/*/content/*/text"),
    (true, true, true, "/output/*/content/*/text"),
    (true, true, true, "/output/*/__args/text"),
];

fn cases() -> u32 {
    std::env::var("COSEC_PLACEMENT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

#[test]
fn nothing_planted_anywhere_passes_a_denying_turn() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    // Nadia's session in the parents' group may not have Ole's post.
    let s = runtime.block_on(Setup::new(Options::default()));
    // Chunks still arrive one by one, without the default pause between them.
    s.fake
        .gap_us
        .store(u64::MAX, std::sync::atomic::Ordering::Relaxed);
    let mut shapes = BTreeSet::new();
    for (i, (responses, stream, in_response, pointer)) in FIXED.iter().enumerate() {
        let case = Case {
            responses: *responses,
            stream: *stream,
            in_response: *in_response,
            seed: 0x9e37_79b9_7f4a_7c15 + i as u64,
            slot: Slot::Fixed(pointer),
            plant: i,
        };
        shapes.insert(runtime.block_on(run(&s, &case)));
    }
    assert_eq!(FIXED.len(), 29);

    let strategy = (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
        any::<prop::sample::Index>(),
        0..PLANTS.len(),
    )
        .prop_map(|(responses, stream, in_response, seed, slot, plant)| Case {
            responses,
            stream,
            in_response,
            seed,
            slot: Slot::Pick(slot),
            plant,
        });
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let seen = std::sync::Mutex::new(BTreeSet::new());
    runner
        .run(&strategy, |case| {
            let shape = runtime.block_on(run(&s, &case));
            seen.lock().unwrap().insert(shape);
            Ok(())
        })
        .unwrap();
    shapes.extend(seen.into_inner().unwrap());
    println!(
        "placement fuzzer: {} fixed and {} random cases passed, {} distinct shapes (API x streamed x side x field path)",
        FIXED.len(),
        cases(),
        shapes.len()
    );
    assert!(shapes.len() >= FIXED.len());
}

#[test]
fn generated_documents_hold_every_documented_shape() {
    // The generator itself: a full document has every field the fixed cases name.
    let mut gen = Gen {
        rng: Rng(7),
        full: true,
    };
    let mut all = Vec::new();
    for doc in [
        gen.chat_request(false),
        gen.responses_request(false),
        gen.chat_response(false),
        gen.chat_response(true),
        gen.responses_response(),
    ] {
        slots(&doc, "", "", &mut all);
    }
    let shapes: BTreeSet<String> = all.iter().map(|p| shape(p)).collect();
    for (_, _, _, p) in FIXED {
        let p = shape(p);
        assert!(shapes.contains(&p), "{p} missing from {shapes:?}");
    }
}
