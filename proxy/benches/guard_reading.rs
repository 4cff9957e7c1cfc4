//! Throughput of the guard's full reading of new text, beside the floor of what it has
//! to do.
//!
//! One scenario's trial guard (the default defense policy, every protected object
//! served, the input layer) minimises a Chat Completions request holding one large
//! text: the reading the proxy does for every request text it has not seen before in
//! the trial (segments, every decoding view and rendering family, the decisions for
//! whatever it finds). Four texts:
//!
//! - `prose`: the suite's messages and unprotected documents, shuffled, no protected
//!   value of the scenario;
//! - `planted`: the same prose with the scenario's protected values planted every
//!   `PLANT_EVERY` bytes (default 8,192), each in a random rendering of
//!   `cosec_text::generate` (character-level member and up to two encodings);
//! - `encoded`: tool output of JSON lines with base64 blobs, hex digests and short
//!   prose notes;
//! - `log`: a service log of `LOG_MB` megabytes (default 5): timestamps, levels,
//!   request paths, hex request ids, addresses and prose messages.
//!
//! Next to each, in the same round, a plain `aho-corasick` scan of the same bytes for
//! the scenario's protected values (ASCII case-insensitive): the floor. Rounds
//! interleave the texts and the floor; medians over the rounds, MB/s per core (one
//! thread), and the ratio of the guard's time to the floor's.
//!
//! Run: `cargo bench -p cosec-proxy --bench guard_reading` (optionally `-- ROUNDS`;
//! `SIZE_MB`, default 2, sets the size of the first three texts). The guard reads the
//! segments of a long text in parallel; the bench gives it `THREADS` threads (default
//! 1, so that its figures are per core). `GUARDED_OUT=DIR` writes each guarded text
//! to `DIR/a.txt` ... `DIR/d.txt`, so that two builds' redactions can be compared.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// The allocator the shipped `cosec` binary uses, so the numbers are the product's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use aho_corasick::AhoCorasick;
use cosec_policies::{DEFAULT_DEFENSE_FILE_NAME, DEFAULT_DEFENSE_SOURCE};
use cosec_proxy::api::WireApi;
use cosec_proxy::guard::{GuardMode, GuardPolicy, TrialGuard};
use cosec_proxy::registry::TurnContext;
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::Scenario;
use proptest::strategy::{Strategy, ValueTree};
use std::sync::Arc;
use std::time::Instant;

/// A small deterministic generator (xorshift64*), so every run reads the same texts.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn env_number(name: &str, default: f64) -> f64 {
    match std::env::var(name) {
        Ok(v) => v.parse().unwrap_or_else(|_| {
            eprintln!("{name}=`{v}` is not a number");
            std::process::exit(2)
        }),
        Err(_) => default,
    }
}

/// The suite's messages and unprotected documents, shuffled, to `size` bytes.
fn prose(suite: &[Scenario], protected: &[String], size: usize, rng: &mut Rng) -> String {
    let mut texts: Vec<&str> = suite
        .iter()
        .flat_map(|s| {
            let labelled: Vec<_> = s
                .platform
                .labels
                .iter()
                .filter(|l| cosec_policies::evaluate::read::is_protected(l))
                .map(|l| &l.object)
                .collect();
            s.agent.turns.iter().map(|t| t.text.as_str()).chain(
                s.agent
                    .seeds
                    .iter()
                    .filter(move |x| !labelled.contains(&&x.object))
                    .map(|x| x.content.as_str()),
            )
        })
        .filter(|t| {
            let lower = t.to_lowercase();
            !protected.iter().any(|v| lower.contains(&v.to_lowercase()))
        })
        .collect();
    texts.sort_unstable();
    texts.dedup();
    let mut out = String::with_capacity(size + 4096);
    while out.len() < size {
        out.push_str(texts[rng.below(texts.len())]);
        out.push_str("\n\n");
    }
    out
}

/// `text` with a random rendering of one of `values` planted every `every` bytes, at
/// the next whitespace.
fn planted(text: &str, values: &[String], every: usize, rng: &mut Rng) -> (String, usize) {
    let mut runner = cosec_text::generate::seeded_runner(1);
    let strategy = cosec_text::generate::rendering();
    let mut out = String::with_capacity(text.len() * 2);
    let mut planted = 0;
    let mut last = 0;
    for (i, c) in text.char_indices() {
        out.push(c);
        if c == ' ' && i >= last + every {
            let value = &values[rng.below(values.len())];
            let rendering = strategy.new_tree(&mut runner).unwrap().current();
            out.push_str(&rendering.apply(value));
            out.push(' ');
            planted += 1;
            last = i;
        }
    }
    (out, planted)
}

/// Tool output: JSON lines with base64 blobs, hex digests and short notes.
fn encoded(notes: &str, size: usize, rng: &mut Rng) -> String {
    let sentences: Vec<&str> = notes.split(". ").filter(|s| s.len() > 20).collect();
    let mut out = String::with_capacity(size + 4096);
    let mut n = 0u64;
    while out.len() < size {
        n += 1;
        let len = 48 + rng.below(400);
        let blob = rng.bytes(len);
        let digest = rng.bytes(32);
        let id = rng.bytes(8);
        out.push_str(&format!(
            "{{\"id\":\"{}\",\"seq\":{n},\"sha256\":\"{}\",\"blob\":\"{}\",\"note\":\"{}\"}}\n",
            data_encoding::HEXLOWER.encode(&id),
            data_encoding::HEXLOWER.encode(&digest),
            data_encoding::BASE64.encode(&blob),
            sentences[rng.below(sentences.len())].replace(['"', '\\', '\n'], " "),
        ));
    }
    out
}

/// A service log: timestamps, levels, paths, hex ids, addresses and messages.
fn log(notes: &str, size: usize, rng: &mut Rng) -> String {
    let sentences: Vec<&str> = notes.split(". ").filter(|s| s.len() > 20).collect();
    let levels = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"];
    let paths = [
        "/api/v1/items",
        "/api/v1/users",
        "/health",
        "/static/app.js",
        "/login",
    ];
    let mut out = String::with_capacity(size + 4096);
    let mut ms = 0u64;
    while out.len() < size {
        ms += 1 + rng.below(900) as u64;
        let (s, m) = (ms / 1000, ms % 1000);
        let level = levels[rng.below(levels.len())];
        let req = data_encoding::HEXLOWER.encode(&rng.bytes(8));
        let line = if level == "WARN" || level == "ERROR" {
            let note = sentences[rng.below(sentences.len())].replace('\n', " ");
            format!(
                "2026-12-06T{:02}:{:02}:{:02}.{m:03}Z {level:<5} [worker-{}] req={req} {note}\n",
                s / 3600 % 24,
                s / 60 % 60,
                s % 60,
                rng.below(8)
            )
        } else {
            format!(
                "2026-12-06T{:02}:{:02}:{:02}.{m:03}Z {level:<5} [worker-{}] req={req} GET {}/{} 200 {}.{}ms ip=10.{}.{}.{} ua=\"Mozilla/5.0 (X11; Linux x86_64)\"\n",
                s / 3600 % 24,
                s / 60 % 60,
                s % 60,
                rng.below(8),
                paths[rng.below(paths.len())],
                rng.below(100_000),
                rng.below(200),
                rng.below(10),
                rng.below(256),
                rng.below(256),
                rng.below(256)
            )
        };
        out.push_str(&line);
    }
    out
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn main() {
    let rounds: usize = std::env::args()
        .filter_map(|a| a.parse().ok())
        .next()
        .unwrap_or(3);
    let size = (env_number("SIZE_MB", 2.0) * 1e6) as usize;
    let log_size = (env_number("LOG_MB", 5.0) * 1e6) as usize;
    let every = env_number("PLANT_EVERY", 8192.0) as usize;
    // Which texts to time, by letter (`TEXTS=c` times the base64/hex output alone, as a
    // profile of one text needs).
    let chosen = std::env::var("TEXTS").unwrap_or_else(|_| "abcd".to_owned());
    let threads = env_number("THREADS", 1.0) as usize;
    // `GUARDED_OUT=DIR` writes each guarded text to DIR/a.txt ... (to compare builds).
    let guarded_out = std::env::var("GUARDED_OUT").ok();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .unwrap();
    let suite = cosec_scenarios::suite::load_embedded(false).unwrap();
    let policy = Arc::new(
        GuardPolicy::from_source(DEFAULT_DEFENSE_SOURCE, DEFAULT_DEFENSE_FILE_NAME).unwrap(),
    );
    // The scenario with the most protected values: the largest pattern set.
    let scenario = suite
        .scenarios
        .iter()
        .max_by_key(|s| {
            s.verifier
                .protected
                .iter()
                .map(|p| p.canaries.len())
                .sum::<usize>()
        })
        .unwrap();
    let values: Vec<String> = scenario
        .verifier
        .protected
        .iter()
        .flat_map(|p| p.canaries.clone())
        .collect();
    let guard = || {
        let g = TrialGuard::new(
            scenario.id.as_str(),
            Arc::new(scenario.agent.clone()),
            Arc::new(scenario.platform.clone()),
            scenario.agent.target_user.clone(),
            Arc::clone(&policy),
            GuardMode::Enforce,
        );
        for l in &scenario.platform.labels {
            g.mark_served(&l.object);
        }
        g
    };
    let turn = &scenario.agent.turns[0];
    let ctx = TurnContext {
        turn: 1,
        community: turn.community.clone(),
        requester: Some(turn.speaker.clone()),
        time: turn_time(1),
        earlier_requesters: Vec::new(),
    };
    let floor = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(&values)
        .unwrap();

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let plain = prose(&suite.scenarios, &values, size, &mut rng);
    let (with_values, planted_count) = planted(&plain, &values, every, &mut rng);
    let texts = [
        ("(a) prose, no protected value", plain.clone()),
        (
            "(b) prose, values planted in random renderings",
            with_values,
        ),
        (
            "(c) base64/hex tool output",
            encoded(&plain, size, &mut rng),
        ),
        ("(d) service log", log(&plain, log_size, &mut rng)),
    ];
    println!(
        "scenario {} ({} protected values, {} guard patterns); {} values planted in (b); {rounds} rounds, {threads} thread(s)",
        scenario.id,
        values.len(),
        guard().pattern_count(),
        planted_count
    );
    let mut guard_s = vec![Vec::new(); texts.len()];
    let mut floor_s = vec![Vec::new(); texts.len()];
    let mut withheld = vec![0usize; texts.len()];
    let mut setup_s = Vec::new();
    let mut build_s = Vec::new();
    let mut floor_hits = vec![0usize; texts.len()];
    let timed = |k: usize| {
        texts.get(k).is_some_and(|(name, _)| {
            name.chars()
                .nth(1)
                .is_some_and(|letter| chosen.contains(letter))
        })
    };
    for _ in 0..rounds {
        for (k, (_, text)) in texts.iter().enumerate() {
            if !timed(k) {
                continue;
            }
            let started = Instant::now();
            floor_hits[k] = std::hint::black_box(floor.find_iter(text.as_str()).count());
            floor_s[k].push(started.elapsed().as_secs_f64());
            // A fresh guard per round: a text seen before in a trial is not read again.
            // Its per-trial set-up (the pattern automata, built on the first long text)
            // is timed apart.
            let started = Instant::now();
            let g = guard();
            build_s.push(started.elapsed().as_secs_f64());
            let started = Instant::now();
            let mut warm = serde_json::json!({
                "model": "m",
                "messages": [{"role": "user", "content": &plain[..plain.len().min(4096)]}],
            });
            g.minimise_request(&ctx, WireApi::ChatCompletions, &mut warm);
            setup_s.push(started.elapsed().as_secs_f64());
            let mut body = serde_json::json!({
                "model": "m",
                "messages": [{"role": "user", "content": text}],
            });
            let started = Instant::now();
            let done = g.minimise_request(&ctx, WireApi::ChatCompletions, &mut body);
            guard_s[k].push(started.elapsed().as_secs_f64());
            withheld[k] = done.withheld;
            if let Some(dir) = &guarded_out {
                let letter: String = texts[k].0.chars().skip(1).take(1).collect();
                let guarded = body["messages"][0]["content"].as_str().unwrap_or_default();
                std::fs::write(format!("{dir}/{letter}.txt"), guarded).unwrap();
            }
        }
    }
    println!("| text | MB | guard median s | guard MB/s | plain scan MB/s | guard / plain scan | spans withheld | plain-scan hits |");
    println!("|---|---|---|---|---|---|---|---|");
    for (k, (name, text)) in texts.iter().enumerate() {
        if !timed(k) {
            continue;
        }
        let mb = text.len() as f64 / 1e6;
        let g = median(&mut guard_s[k]);
        let f = median(&mut floor_s[k]);
        println!(
            "| {name} | {mb:.2} | {g:.3} | {:.1} | {:.0} | {:.0}x | {} | {} |",
            mb / g,
            mb / f,
            g / f,
            withheld[k],
            floor_hits[k]
        );
    }
    println!(
        "\nper-trial guard (patterns, pieces of the clauses around codes and names): median {:.3} s",
        median(&mut build_s)
    );
    println!(
        "per-trial set-up (a fresh guard's first 4 kB text, automata built): median {:.3} s",
        median(&mut setup_s)
    );
    conversation(&guard, &ctx, &plain, rounds);
}

/// A conversation of `TURNS` turns sent as a harness sends it: every request repeats
/// the history and adds a user message and the previous reply (about 3 kB of new text
/// a turn), in the Chat Completions and the Responses shape, one guard for the whole
/// conversation. Prints the guard's time per request at a few turns and the total,
/// beside a guard that reads every request afresh (no texts seen before).
fn conversation(guard: &dyn Fn() -> TrialGuard, ctx: &TurnContext, prose: &str, rounds: usize) {
    const TURNS: usize = 40;
    const NEW: usize = 3_000;
    let piece = |k: usize| {
        let at = (k * 7_919) % prose.len().saturating_sub(NEW).max(1);
        let mut start = at;
        while !prose.is_char_boundary(start) {
            start += 1;
        }
        let mut end = (start + NEW).min(prose.len());
        while !prose.is_char_boundary(end) {
            end -= 1;
        }
        format!("turn {k}: {}", &prose[start..end])
    };
    let request = |api: WireApi, turn: usize| -> serde_json::Value {
        let mut items = Vec::new();
        for k in 0..turn {
            let (user, reply) = (piece(2 * k), piece(2 * k + 1));
            match api {
                WireApi::ChatCompletions => {
                    items.push(serde_json::json!({"role": "user", "content": user}));
                    if k + 1 < turn {
                        items.push(serde_json::json!({"role": "assistant", "content": reply}));
                    }
                }
                WireApi::Responses => {
                    items.push(serde_json::json!({"role": "user",
                        "content": [{"type": "input_text", "text": user}]}));
                    if k + 1 < turn {
                        items.push(serde_json::json!({"role": "assistant",
                        "content": [{"type": "output_text", "text": reply}]}));
                    }
                }
            }
        }
        match api {
            WireApi::ChatCompletions => serde_json::json!({"model": "m", "messages": items}),
            WireApi::Responses => serde_json::json!({"model": "m", "input": items}),
        }
    };
    println!("\nconversation of {TURNS} turns, about {NEW} bytes of new text a turn, medians of {rounds} rounds (ms)");
    println!("| shape | guard | turn 1 | turn 10 | turn 20 | turn 40 | all {TURNS} requests | turn 40 / turn 1 |");
    println!("|---|---|---|---|---|---|---|---|");
    for (name, api) in [
        ("chat", WireApi::ChatCompletions),
        ("responses", WireApi::Responses),
    ] {
        for fresh in [false, true] {
            // A guard with its automata built, as after a trial's first long text.
            let warmed = || {
                let g = guard();
                let mut warm = serde_json::json!({"model": "m",
                    "messages": [{"role": "user", "content": &prose[..prose.len().min(4096)]}]});
                g.minimise_request(ctx, WireApi::ChatCompletions, &mut warm);
                g
            };
            let mut per_turn = vec![Vec::new(); TURNS];
            for _ in 0..rounds {
                let mut g = warmed();
                for (t, slot) in per_turn.iter_mut().enumerate() {
                    if fresh {
                        g = warmed();
                    }
                    let mut body = request(api, t + 1);
                    let started = Instant::now();
                    g.minimise_request(ctx, api, &mut body);
                    slot.push(started.elapsed().as_secs_f64() * 1e3);
                }
            }
            let mut m: Vec<f64> = per_turn.iter_mut().map(|v| median(v)).collect();
            let at = |t: usize| m.get(t - 1).copied().unwrap_or(0.0);
            let (t1, t10, t20, t40) = (at(1), at(10), at(20), at(TURNS));
            let total: f64 = m.iter_mut().map(|x| *x).sum();
            println!(
                "| {name} | {} | {t1:.1} | {t10:.1} | {t20:.1} | {t40:.1} | {total:.0} | {:.1}x |",
                if fresh {
                    "fresh per request"
                } else {
                    "one per trial"
                },
                t40 / t1.max(1e-9)
            );
        }
    }
}
