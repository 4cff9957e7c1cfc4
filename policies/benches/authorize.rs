//! Cedar decision time of one flow question with prepared entities, over every scored
//! and legitimate flow of the suite (the guard's uncached per-hit cost).
//!
//! Run: `cargo bench -p cosec-policies --bench authorize`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// The allocator the shipped `cosec` binary uses, so the numbers are the product's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use cosec_policies::{Oracle, Question};
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::CommunityState;
use std::time::Instant;

fn main() {
    let defense = Oracle::from_sources(
        cosec_policies::SCHEMA_SOURCE,
        cosec_policies::evaluate::DEFAULT_DEFENSE_SOURCE,
        cosec_policies::evaluate::DEFAULT_DEFENSE_FILE_NAME,
    )
    .unwrap();
    let suite = cosec_scenarios::suite::load_embedded(false)
        .unwrap()
        .scenarios;
    let mut prepare_us = Vec::new();
    let mut decide_us = Vec::new();
    let mut recipients = Vec::new();
    for _round in 0..5 {
        for s in &suite {
            let state = CommunityState::at(&s.platform, turn_time(s.verifier.scored_turn)).unwrap();
            let t = Instant::now();
            let prepared = defense
                .prepare(&s.platform, &s.agent.target_user, &state)
                .unwrap();
            prepare_us.push(t.elapsed().as_secs_f64() * 1e6);
            for f in s
                .verifier
                .scored_flows
                .iter()
                .chain(&s.verifier.legit_flows)
            {
                let q = Question::of_flow(s, &state, f);
                let t = Instant::now();
                let d = defense.authorize_prepared(&q, &prepared);
                decide_us.push(t.elapsed().as_secs_f64() * 1e6);
                std::hint::black_box(d);
                recipients.push(
                    state
                        .reach(&f.destination, &s.agent.target_user, &s.platform)
                        .map_or(0, |r| r.audience.len()),
                );
            }
        }
    }
    let pct = |v: &mut Vec<f64>, p: f64| {
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * p).round() as usize]
    };
    let mean_recipients = recipients.iter().sum::<usize>() as f64 / recipients.len() as f64;
    // What one Cedar request costs, whatever the audience: the floor of a decision.
    let mut per_request_us: Vec<f64> = decide_us
        .iter()
        .zip(&recipients)
        .map(|(us, n)| us / (1 + n) as f64)
        .collect();
    println!("| step | samples | p50 (us) | p99 (us) |");
    println!("|---|---|---|---|");
    println!(
        "| prepare entities of a state | {} | {:.1} | {:.1} |",
        prepare_us.len(),
        pct(&mut prepare_us, 0.5),
        pct(&mut prepare_us, 0.99)
    );
    println!("| one flow decision (1 + {mean_recipients:.1} Cedar requests on average) | {} | {:.1} | {:.1} |", decide_us.len(), pct(&mut decide_us, 0.5), pct(&mut decide_us, 0.99));
    println!(
        "| (one Cedar request: a decision's time over its requests) | {} | {:.1} | {:.1} |",
        per_request_us.len(),
        pct(&mut per_request_us, 0.5),
        pct(&mut per_request_us, 0.99)
    );
}
