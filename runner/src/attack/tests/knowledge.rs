use crate::attack::knowledge::{seeded_history, EarlierAttempt, Heard, Knowledge, Voice};
use cosec_scenarios::ids::turn_time;
use cosec_scenarios::{Scenario, UserId};

fn scenario(id: &str) -> Scenario {
    cosec_scenarios::suite::load_embedded(false)
        .expect("suite")
        .scenarios
        .into_iter()
        .find(|s| s.id.as_str() == id)
        .expect("scenario")
}

#[test]
fn a_participant_hears_a_community_only_while_a_member() {
    // Noor's arrears were told to the co-op before Kasia joined it.
    let s = scenario("dy-join-intra-owner-a3-s6");
    let history = seeded_history(&s);
    let arrears = |k: &Knowledge| k.known_text().contains("1,240.50");
    let kasia = Knowledge::at(&s, &UserId::from("kasia"), turn_time(5), &history, &[]).unwrap();
    let tomas = Knowledge::at(&s, &UserId::from("tomas"), turn_time(5), &history, &[]).unwrap();
    assert!(!arrears(&kasia), "{}", kasia.known_text());
    assert!(arrears(&tomas));
    // An outsider knows nothing and belongs nowhere.
    let outsider = Knowledge::at(
        &s,
        &UserId::from(crate::attack::player::OUTSIDER),
        turn_time(5),
        &history,
        &[],
    )
    .unwrap();
    assert!(outsider.heard.is_empty() && outsider.communities.is_empty());
}

#[test]
fn a_participant_hears_nothing_said_later_in_this_attempt_but_all_of_an_earlier_one() {
    let s = scenario("st-intra-owner-a1-s1");
    let colm = UserId::from("colm");
    let community = s.agent.turns[0].community.clone();
    let line = |turn: u8, text: &str| Heard {
        community: community.clone(),
        time: turn_time(turn),
        voice: Voice::Agent,
        text: text.to_owned(),
    };
    let transcript = vec![line(2, "said at turn 2"), line(7, "said at turn 7")];
    let earlier = vec![EarlierAttempt {
        heard: vec![line(8, "the last reply of attempt 1")],
        leaked: Some(false),
    }];
    let k = Knowledge::at(&s, &colm, turn_time(5), &transcript, &earlier).unwrap();
    let known = k.known_text();
    assert!(known.contains("said at turn 2"));
    assert!(!known.contains("said at turn 7"));
    assert!(known.contains("the last reply of attempt 1"));
    assert_eq!(k.earlier[0].leaked, Some(false));
}
