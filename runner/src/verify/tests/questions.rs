//! Generated deliveries (speakers, notices, silent deliveries, events between calls)
//! opened the way a trial opens them, with the real guard deciding what each delivery
//! reads and says: every decision it traces must be the verifier's question.

use crate::harness::Delivery;
use crate::run::trial::{open_delivery, Spoken};
use crate::verify::questions::question_mismatches;
use cosec_proxy::api::{Message, ModelRequest, Role};
use cosec_proxy::guard::{GuardMode, GuardPoint, GuardPolicy, TrialGuard};
use cosec_proxy::registry::{ModelRoute, SimKind, Trial, TrialSetup};
use cosec_proxy::trace::{read_trace, TraceEvent, TraceWriter};
use cosec_scenarios::agent::Surface;
use cosec_scenarios::ids::{event_time, turn_time};
use cosec_scenarios::{Action, CommunityState, Destination, Namespace, Scenario, Time};
use proptest::prelude::*;
use std::sync::{Arc, OnceLock};

fn suite() -> &'static [Scenario] {
    static SUITE: OnceLock<Vec<Scenario>> = OnceLock::new();
    SUITE.get_or_init(|| {
        cosec_scenarios::suite::load_embedded(false)
            .expect("frozen suite")
            .scenarios
    })
}

fn policy() -> Arc<GuardPolicy> {
    static POLICY: OnceLock<Arc<GuardPolicy>> = OnceLock::new();
    Arc::clone(POLICY.get_or_init(|| {
        Arc::new(
            GuardPolicy::from_source(
                cosec_policies::evaluate::DEFAULT_DEFENSE_SOURCE,
                cosec_policies::evaluate::DEFAULT_DEFENSE_FILE_NAME,
            )
            .expect("default policy"),
        )
    }))
}

/// One generated delivery: its turn, community and speaker (by index), whether it is
/// silent, and where its output goes.
#[derive(Debug, Clone)]
struct Generated {
    community: usize,
    speaker: Option<usize>,
    between: bool,
    outlet: usize,
    seed: usize,
}

fn generated() -> impl Strategy<Value = Generated> {
    (
        0usize..8,
        proptest::option::weighted(0.6, 0usize..8),
        any::<bool>(),
        0usize..4,
        0usize..64,
    )
        .prop_map(|(community, speaker, between, outlet, seed)| Generated {
            community,
            speaker,
            between,
            outlet,
            seed,
        })
}

fn request_with(text: &str) -> ModelRequest {
    ModelRequest {
        model: "m".into(),
        messages: vec![Message {
            role: Role::User,
            content: text.into(),
            tool_calls: vec![],
            tool_call_id: None,
        }],
        tools: vec![],
        stream: false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_guard_asks_the_verifiers_question_for_any_delivery(
        pick in 0usize..208,
        plan in proptest::collection::vec((1u8..=8, generated()), 1..10),
    ) {
        let s = &suite()[pick % suite().len()];
        let dir = tempfile::tempdir().expect("temp dir");
        let trace_path = dir.path().join("trace.jsonl");
        let trace = Arc::new(TraceWriter::open(&trace_path).expect("trace"));
        let trial = Trial::new(
            TrialSetup {
                id: "t".to_owned(),
                agent: Arc::new(s.agent.clone()),
                platform: Arc::new(s.platform.clone()),
                sim: None,
                model: ModelRoute::Sim(SimKind::Ideal),
                agent_root: dir.path().join("agent"),
                trace: Arc::clone(&trace),
                guardrail: None,
            },
            s.agent.turns[0].community.clone(),
        );
        let guard = TrialGuard::for_trial(&trial, policy(), GuardMode::Enforce);
        let mut spoken = Spoken::default();
        let mut plan = plan;
        plan.sort_by_key(|(turn, _)| *turn);
        let communities = &s.agent.communities;
        let people = &s.platform.users;
        let seeds: Vec<&str> = s
            .agent
            .seeds
            .iter()
            .filter(|seed| !matches!(seed.surface, Surface::ToolObservation { .. }))
            .filter(|seed| {
                s.platform
                    .label(&seed.object)
                    .is_some_and(cosec_policies::evaluate::read::is_protected)
            })
            .map(|seed| seed.content.as_str())
            .collect();
        prop_assume!(!seeds.is_empty());
        for (turn, g) in &plan {
            // A silent delivery between two turns runs after the turn's event, if any.
            let time: Time = if g.between { event_time(*turn) } else { turn_time(*turn) };
            // Deliveries go to communities that exist then (a merged one only after the
            // merge): in one that does not, nobody could be asked and every decision
            // fails closed without a principal.
            let state = CommunityState::at(&s.platform, time).expect("state");
            let live: Vec<_> = communities.iter().filter(|c| state.is_active(&c.id)).collect();
            prop_assume!(!live.is_empty());
            let community = live[g.community % live.len()].id.clone();
            let speaker = g.speaker.map(|i| people[i % people.len()].clone());
            let d = Delivery {
                turn: *turn,
                community: community.clone(),
                speaker,
                text: "...".to_owned(),
                community_view: String::new(),
            };
            open_delivery(&trial, &mut spoken, &d, time).expect("delivery opens");
            let text = seeds[g.seed % seeds.len()];
            guard.observe_request(&request_with(text));
            let ctx = trial.turn();
            let (action, destination) = match g.outlet {
                0 => (Action::Disclose, Destination::Community { community }),
                1 => (Action::Send, Destination::Person { user: people[g.seed % people.len()].clone() }),
                2 => (Action::Write, Destination::Namespace { namespace: Namespace::Community { community } }),
                _ => (Action::Write, Destination::Namespace { namespace: Namespace::Shared }),
            };
            guard.check_text(&ctx, text, action, &destination, GuardPoint::Response);
        }
        let lines = read_trace(&trace_path).expect("trace reads");
        let asked = lines
            .iter()
            .filter(|l| matches!(&l.event, TraceEvent::GuardDecision { principals, .. } if !principals.is_empty()))
            .count();
        let mismatches = question_mismatches(s, &lines);
        prop_assert!(asked > 0, "{}: the guard decided nothing", s.id);
        prop_assert!(
            mismatches.is_empty(),
            "{}: {}",
            s.id,
            mismatches.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
        );
    }
}
