//! Guard decision latency per hit (detection + Cedar) over the suite's reference plans.
//!
//! Every outbound text of every scenario's reference plan (replies, posts, sends,
//! workflow payloads, file writes, memory notes) is checked in its turn by a trial
//! guard running the default defense policy, with every labeled object of the scenario
//! tainted (the worst case for detection). Each check that detects at least one
//! protected object is one sample; its per-hit latency is the check's wall time divided
//! by the objects it detected. The first pass over a scenario decides from scratch
//! (Cedar entities prepared once per state time, then one evaluation per question);
//! the second pass over the same texts answers from the decision cache. The Cedar-only
//! latency the guard records for its `summary.json` block is reported too.
//!
//! Next to every first decision the bench times a fixed computation of about the first
//! decisions' median length (`FLOOR_US`, default 26 us), with warm caches and no memory
//! beyond one stack slot: its p99 is what this machine's interrupts and other tenants alone make of
//! such an operation's tail, measured in the same moments.
//!
//! Run: `cargo bench -p cosec-proxy --bench guard_decision` (optionally `-- N` passes
//! of the cached round).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

// The allocator the shipped `cosec` binary uses, so the numbers are the product's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use cosec_policies::{DEFAULT_DEFENSE_FILE_NAME, DEFAULT_DEFENSE_SOURCE};
use cosec_proxy::guard::{GuardMode, GuardPoint, GuardPolicy, TrialGuard};
use cosec_proxy::registry::TurnContext;
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::play::Player;
use cosec_scenarios::{Action, Destination, Scenario};
use std::sync::Arc;
use std::time::Instant;

/// One outbound text of a plan, in its turn.
struct Outbound {
    ctx: TurnContext,
    action: Action,
    destination: Destination,
    text: String,
}

fn outbound(s: &Scenario) -> Vec<Outbound> {
    let mut out = Vec::new();
    let mut player = Player::new(s);
    for step in &s.verifier.reference_plan.steps {
        let turn = &s.agent.turns[usize::from(step.turn) - 1];
        let ctx = TurnContext {
            turn: step.turn,
            community: turn.community.clone(),
            requester: Some(turn.speaker.clone()),
            time: turn_time(step.turn),
            earlier_requesters: Vec::new(),
        };
        // Text the model writes; moved files are decided by label, not by their text.
        let Some(o) = player.play(step, 0).outbound.filter(|o| o.moved.is_none()) else {
            continue;
        };
        out.push(Outbound {
            ctx,
            action: o.action,
            destination: o.destination,
            text: o.text,
        });
    }
    out
}

/// A fixed amount of arithmetic, the same every time: no allocation, and no memory
/// beyond one stack slot.
struct FixedWork {
    iterations: u64,
}

impl FixedWork {
    fn spin(iterations: u64) -> u64 {
        let mut x = std::hint::black_box(1u64);
        for _ in 0..iterations {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        x
    }

    /// Work that takes about `micros` on this machine when nothing interrupts it (the
    /// fastest of a few timed runs).
    fn calibrated(micros: f64) -> Self {
        const PROBE: u64 = 200_000;
        let fastest = (0..7)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(Self::spin(PROBE));
                started.elapsed().as_secs_f64() * 1e6
            })
            .fold(f64::INFINITY, f64::min);
        FixedWork {
            iterations: (micros * PROBE as f64 / fastest).max(1.0) as u64,
        }
    }

    fn time_us(&self) -> f64 {
        let started = Instant::now();
        std::hint::black_box(Self::spin(self.iterations));
        started.elapsed().as_secs_f64() * 1e6
    }
}

/// Per-hit latencies (microseconds) of one pass over a scenario's texts; with `floor`,
/// the fixed work is timed right after every sample.
fn pass(
    guard: &TrialGuard,
    texts: &[Outbound],
    samples: &mut Vec<f64>,
    mut floor: Option<(&FixedWork, &mut Vec<f64>)>,
) {
    for o in texts {
        let started = Instant::now();
        let checked = guard.check_text(
            &o.ctx,
            &o.text,
            o.action,
            &o.destination,
            GuardPoint::Response,
        );
        let us = started.elapsed().as_secs_f64() * 1e6;
        if checked.detected > 0 {
            samples.push(us / checked.detected as f64);
            if let Some((work, times)) = floor.as_mut() {
                times.push(work.time_us());
            }
        }
    }
}

fn percentile(sorted: &[f64], p: u32) -> f64 {
    cosec_proxy::percentile::nearest_rank(sorted, p).unwrap_or(0.0)
}

fn row(name: &str, mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    format!(
        "| {name} | {} | {:.1} | {:.1} | {:.1} |",
        v.len(),
        percentile(&v, 50),
        percentile(&v, 99),
        v.last().copied().unwrap_or(0.0)
    )
}

fn main() {
    let rounds: usize = std::env::args()
        .filter_map(|a| a.parse().ok())
        .next()
        .unwrap_or(3);
    let suite = cosec_scenarios::suite::load_embedded(false).unwrap();
    let policy = Arc::new(
        GuardPolicy::from_source(DEFAULT_DEFENSE_SOURCE, DEFAULT_DEFENSE_FILE_NAME).unwrap(),
    );
    let floor_us: f64 = match std::env::var("FLOOR_US") {
        Ok(v) => v.parse().unwrap_or_else(|_| {
            eprintln!("FLOOR_US=`{v}` is not a number of microseconds (e.g. FLOOR_US=26)");
            std::process::exit(2)
        }),
        Err(_) => 26.0,
    };
    let work = FixedWork::calibrated(floor_us);
    let mut floor = Vec::new();
    let mut first = Vec::new();
    let mut cached = Vec::new();
    let mut cedar = Vec::new();
    let mut prepare = Vec::new();
    let mut patterns = 0usize;
    for s in &suite.scenarios {
        let guard = TrialGuard::new(
            s.id.as_str(),
            Arc::new(s.agent.clone()),
            Arc::new(s.platform.clone()),
            s.agent.target_user.clone(),
            Arc::clone(&policy),
            GuardMode::Enforce,
        );
        for l in &s.platform.labels {
            guard.mark_served(&l.object);
        }
        patterns += guard.pattern_count();
        let texts = outbound(s);
        // What the proxy does when a request arrives: the turn's state, once.
        let mut times: Vec<_> = texts.iter().map(|o| o.ctx.time).collect();
        times.dedup();
        for t in times {
            let started = Instant::now();
            guard.prepare_state(t);
            prepare.push(started.elapsed().as_secs_f64() * 1e6);
        }
        pass(&guard, &texts, &mut first, Some((&work, &mut floor)));
        let stats = guard.stats();
        cedar.push((
            stats.latency_p50_us,
            stats.latency_p99_us,
            stats.counts.decisions,
        ));
        for _ in 0..rounds {
            pass(&guard, &texts, &mut cached, None);
        }
    }
    let decisions: u64 = cedar.iter().map(|c| c.2).sum();
    println!(
        "Guard decision latency per hit, {} scenarios, default defense policy, {} patterns in all, {rounds} cached rounds\n",
        suite.scenarios.len(),
        patterns
    );
    println!("| hits | samples | p50 (us) | p99 (us) | max (us) |");
    println!("|---|---|---|---|---|");
    println!(
        "{}",
        row("first decision (detection + Cedar)", first.clone())
    );
    println!(
        "{}",
        row("cached decision (detection + cache)", cached.clone())
    );
    let mut first_sorted = first.clone();
    first_sorted.sort_by(f64::total_cmp);
    let first_p99 = percentile(&first_sorted, 99);
    let mut all = first;
    all.extend(cached);
    println!("{}", row("all", all.clone()));
    println!(
        "{}",
        row(
            "(state + entities, once per turn time, at request arrival)",
            prepare
        )
    );
    println!(
        "{}",
        row(
            &format!(
                "(fixed work of ~{floor_us} us, timed after each first decision: machine noise)"
            ),
            floor
        )
    );
    all.sort_by(f64::total_cmp);
    let p99 = percentile(&all, 99);
    let worst_cedar_p99 = cedar.iter().map(|c| c.1).max().unwrap_or(0);
    println!(
        "\nCedar-only decisions traced on the first pass: {decisions}; worst per-scenario p99 {worst_cedar_p99} us."
    );
    let verdict = |p: f64| if p <= 50.0 { "met" } else { "NOT met" };
    println!(
        "Target p99 <= 50 us over all hits: {} (p99 {p99:.1} us)",
        verdict(p99)
    );
    println!(
        "The same for first decisions alone: {} (p99 {first_p99:.1} us)",
        verdict(first_p99)
    );
}
