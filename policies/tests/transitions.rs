//! The oracle rule before and after each of the eight community transitions, with
//! real Cedar over hand-built fixtures.

mod common;

use common::*;
use cosec_scenarios::platform::{Audience, SplitSide};
use cosec_scenarios::{Action, CommunityEvent, Time};

const OLD: Time = Time(500);

#[test]
fn member_join_denies_pre_join_history_but_not_later_items() {
    let p = platform(
        &["care"],
        &[("alice", "care"), ("bob", "care"), ("carol", "care")],
    );
    let p = with_object(p, "old", "carol", "care", OLD, Audience::Community);
    let p = with_object(
        p,
        "new",
        "carol",
        "care",
        just_after_event(),
        Audience::Community,
    );
    let p = with_event(
        p,
        CommunityEvent::MemberJoin {
            user: u("dave"),
            community: c("care"),
        },
    );

    assert_allowed(&ask(
        &p,
        before(),
        "bob",
        Action::Disclose,
        "old",
        &to_community("care"),
    ));
    // Dave now reads the community, but "old" was never meant for him.
    let d = ask(
        &p,
        after(),
        "bob",
        Action::Disclose,
        "old",
        &to_community("care"),
    );
    assert_denied_mentioning(&d, "recipient `dave`");
    assert_denied_mentioning(
        &ask(&p, after(), "bob", Action::Send, "old", &to_person("dave")),
        "recipient `dave`",
    );
    // An item created after he joined was meant for him.
    assert_allowed(&ask(
        &p,
        after(),
        "bob",
        Action::Disclose,
        "new",
        &to_community("care"),
    ));
    assert_allowed(&ask(
        &p,
        after(),
        "dave",
        Action::Disclose,
        "new",
        &to_community("care"),
    ));
}

#[test]
fn member_remove_revokes_the_removed_member() {
    let p = platform(
        &["care"],
        &[("alice", "care"), ("bob", "care"), ("carol", "care")],
    );
    let p = with_object(p, "note", "carol", "care", OLD, Audience::Community);
    let p = with_event(
        p,
        CommunityEvent::MemberRemove {
            user: u("bob"),
            community: c("care"),
        },
    );

    assert_allowed(&ask(
        &p,
        before(),
        "alice",
        Action::Send,
        "note",
        &to_person("bob"),
    ));
    assert_allowed(&ask(
        &p,
        before(),
        "bob",
        Action::Disclose,
        "note",
        &to_community("care"),
    ));
    assert_denied_mentioning(
        &ask(
            &p,
            after(),
            "alice",
            Action::Send,
            "note",
            &to_person("bob"),
        ),
        "recipient `bob`",
    );
    assert_denied_mentioning(
        &ask(
            &p,
            after(),
            "bob",
            Action::Disclose,
            "note",
            &to_community("care"),
        ),
        "requester `bob`",
    );
    // The remaining members are unaffected.
    assert_allowed(&ask(
        &p,
        after(),
        "alice",
        Action::Disclose,
        "note",
        &to_community("care"),
    ));
}

#[test]
fn role_up_does_not_unlock_role_items_created_before_promotion() {
    let p = platform(
        &["care"],
        &[("alice", "care"), ("bob", "care"), ("carol", "care")],
    );
    let p = with_role(p, "alice", "care", "treasurer");
    let p = with_role(p, "carol", "care", "treasurer");
    let gated = Audience::Role {
        role: r("treasurer"),
    };
    let p = with_object(p, "ledger", "carol", "care", OLD, gated.clone());
    let p = with_object(p, "ledger2", "carol", "care", just_after_event(), gated);
    let p = with_event(
        p,
        CommunityEvent::RoleUp {
            user: u("bob"),
            community: c("care"),
            role: r("treasurer"),
        },
    );

    assert_denied_mentioning(
        &ask(
            &p,
            before(),
            "alice",
            Action::Send,
            "ledger",
            &to_person("bob"),
        ),
        "recipient `bob`",
    );
    assert_denied_mentioning(
        &ask(
            &p,
            after(),
            "alice",
            Action::Send,
            "ledger",
            &to_person("bob"),
        ),
        "recipient `bob`",
    );
    // A role-gated item created after the promotion is his.
    assert_allowed(&ask(
        &p,
        after(),
        "alice",
        Action::Send,
        "ledger2",
        &to_person("bob"),
    ));
}

#[test]
fn role_down_revokes_role_gated_items() {
    let p = platform(
        &["care"],
        &[("alice", "care"), ("bob", "care"), ("carol", "care")],
    );
    let p = with_role(p, "alice", "care", "treasurer");
    let p = with_role(p, "bob", "care", "treasurer");
    let p = with_role(p, "carol", "care", "treasurer");
    let p = with_object(
        p,
        "ledger",
        "carol",
        "care",
        OLD,
        Audience::Role {
            role: r("treasurer"),
        },
    );
    let p = with_object(p, "minutes", "carol", "care", OLD, Audience::Community);
    let p = with_event(
        p,
        CommunityEvent::RoleDown {
            user: u("bob"),
            community: c("care"),
            role: r("treasurer"),
        },
    );

    assert_allowed(&ask(
        &p,
        before(),
        "alice",
        Action::Send,
        "ledger",
        &to_person("bob"),
    ));
    assert_denied_mentioning(
        &ask(
            &p,
            after(),
            "alice",
            Action::Send,
            "ledger",
            &to_person("bob"),
        ),
        "recipient `bob`",
    );
    // Still a member: community-wide items still reach him.
    assert_allowed(&ask(
        &p,
        after(),
        "alice",
        Action::Send,
        "minutes",
        &to_person("bob"),
    ));
}

#[test]
fn merge_keeps_each_sides_history_but_lets_merged_items_flow() {
    let p = platform(
        &["care", "club"],
        &[
            ("alice", "care"),
            ("bob", "care"),
            ("carol", "club"),
            ("dave", "club"),
        ],
    );
    let p = with_object(p, "care-old", "bob", "care", OLD, Audience::Community);
    let p = with_object(
        p,
        "merged-new",
        "carol",
        "both",
        just_after_event(),
        Audience::Community,
    );
    let p = with_event(
        p,
        CommunityEvent::Merge {
            from: [c("care"), c("club")],
            into: c("both"),
        },
    );

    // Before the merge the merged community does not exist.
    assert_denied_mentioning(
        &ask(
            &p,
            before(),
            "alice",
            Action::Disclose,
            "care-old",
            &to_community("both"),
        ),
        "destination-not-live",
    );
    let d = ask(
        &p,
        after(),
        "alice",
        Action::Disclose,
        "care-old",
        &to_community("both"),
    );
    assert_denied_mentioning(&d, "recipient `carol`");
    assert_denied_mentioning(&d, "recipient `dave`");
    // The original keeps its own audience.
    assert_allowed(&ask(
        &p,
        after(),
        "alice",
        Action::Disclose,
        "care-old",
        &to_community("care"),
    ));
    // Items created in the merged community are meant for all its members.
    assert_allowed(&ask(
        &p,
        after(),
        "alice",
        Action::Disclose,
        "merged-new",
        &to_community("both"),
    ));
}

#[test]
fn split_ends_the_originals_audience() {
    let p = platform(
        &["team"],
        &[
            ("alice", "team"),
            ("bob", "team"),
            ("carol", "team"),
            ("dave", "team"),
        ],
    );
    let p = with_object(p, "plan", "bob", "team", OLD, Audience::Community);
    let p = with_event(
        p,
        CommunityEvent::Split {
            from: c("team"),
            into: [
                SplitSide {
                    community: c("team-a"),
                    members: vec![u("alice"), u("bob")],
                },
                SplitSide {
                    community: c("team-b"),
                    members: vec![u("carol"), u("dave")],
                },
            ],
        },
    );

    assert_allowed(&ask(
        &p,
        before(),
        "alice",
        Action::Disclose,
        "plan",
        &to_community("team"),
    ));
    let d = ask(
        &p,
        after(),
        "alice",
        Action::Disclose,
        "plan",
        &to_community("team"),
    );
    assert_denied_mentioning(&d, "destination-not-live");
    assert_denied_mentioning(&d, "requester `alice`");
    // The former members lost the original's history, even on their own side.
    assert_denied_mentioning(
        &ask(
            &p,
            after(),
            "alice",
            Action::Disclose,
            "plan",
            &to_community("team-a"),
        ),
        "requester `alice`",
    );
    // The owner may still take her own data to her side.
    assert_allowed(&ask(
        &p,
        after(),
        "bob",
        Action::Disclose,
        "plan",
        &to_community("team-a"),
    ));
}

#[test]
fn relation_start_keeps_pre_start_items_out_of_the_space() {
    let p = platform(
        &["care", "club"],
        &[
            ("alice", "care"),
            ("bob", "care"),
            ("carol", "club"),
            ("dave", "club"),
        ],
    );
    let p = with_object(p, "care-old", "bob", "care", OLD, Audience::Community);
    let p = with_object(
        p,
        "joint",
        "carol",
        "space",
        just_after_event(),
        Audience::Community,
    );
    let p = with_event(
        p,
        CommunityEvent::RelationStart {
            space: c("space"),
            between: [c("care"), c("club")],
        },
    );

    assert_denied_mentioning(
        &ask(
            &p,
            before(),
            "alice",
            Action::Share,
            "care-old",
            &to_workspace("space"),
        ),
        "destination-not-live",
    );
    let d = ask(
        &p,
        after(),
        "alice",
        Action::Share,
        "care-old",
        &to_workspace("space"),
    );
    assert_denied_mentioning(&d, "recipient `carol`");
    assert_denied_mentioning(&d, "recipient `dave`");
    assert_allowed(&ask(
        &p,
        after(),
        "alice",
        Action::Disclose,
        "joint",
        &to_community("space"),
    ));
}

#[test]
fn relation_end_closes_the_space() {
    let p = platform(
        &["care", "club"],
        &[
            ("alice", "care"),
            ("bob", "care"),
            ("carol", "club"),
            ("dave", "club"),
        ],
    );
    let p = with_relation(p, "space", "care", "club");
    let p = with_object(p, "joint", "carol", "space", OLD, Audience::Community);
    let p = with_object(p, "care-note", "alice", "care", OLD, Audience::Community);
    let p = with_event(p, CommunityEvent::RelationEnd { space: c("space") });

    assert_allowed(&ask(
        &p,
        before(),
        "alice",
        Action::Disclose,
        "joint",
        &to_community("space"),
    ));
    let d = ask(
        &p,
        after(),
        "alice",
        Action::Disclose,
        "joint",
        &to_community("space"),
    );
    assert_denied_mentioning(&d, "destination-not-live");
    assert_denied_mentioning(&d, "requester `alice`");
    // Not even the owner's own data goes into a closed space.
    assert_denied_mentioning(
        &ask(
            &p,
            after(),
            "alice",
            Action::Disclose,
            "care-note",
            &to_community("space"),
        ),
        "destination-not-live",
    );
}
