//! The oracle rule before and after each of the eight community transitions, with
//! real Cedar over hand-built fixtures. Each test states its questions as a table, one
//! row a line (hence `rustfmt::skip`), checked row by row by [`common::check`].

mod common;

use common::Expect::{Allow, Deny};
use common::*;
use cosec_scenarios::platform::{Audience, SplitSide};
use cosec_scenarios::{Action, CommunityEvent, PlatformTier, Time};

const OLD: Time = Time(500);

/// One community, `care`, with alice, bob and carol as members.
fn care_of_three() -> PlatformTier {
    platform(
        &["care"],
        &[("alice", "care"), ("bob", "care"), ("carol", "care")],
    )
}

/// Two communities: alice and bob in `care`, carol and dave in `club`.
fn care_and_club() -> PlatformTier {
    platform(
        &["care", "club"],
        &[
            ("alice", "care"),
            ("bob", "care"),
            ("carol", "club"),
            ("dave", "club"),
        ],
    )
}

/// An audience of the `treasurer` role holders.
fn treasurers() -> Audience {
    Audience::Role {
        role: r("treasurer"),
    }
}

#[test]
fn member_join_denies_pre_join_history_but_not_later_items() {
    let p = with_object(
        care_of_three(),
        "old",
        "carol",
        "care",
        OLD,
        Audience::Community,
    );
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
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (before(), "bob", Action::Disclose, "old", to_community("care"), Allow),
        // Dave now reads the community, but "old" was never meant for him.
        (after(), "bob", Action::Disclose, "old", to_community("care"), Deny(&["recipient `dave`"])),
        (after(), "bob", Action::Send, "old", to_person("dave"), Deny(&["recipient `dave`"])),
        // An item created after he joined was meant for him.
        (after(), "bob", Action::Disclose, "new", to_community("care"), Allow),
        (after(), "dave", Action::Disclose, "new", to_community("care"), Allow),
    ];
    check(&p, rows);
}

#[test]
fn member_remove_revokes_the_removed_member() {
    let p = with_object(
        care_of_three(),
        "note",
        "carol",
        "care",
        OLD,
        Audience::Community,
    );
    let p = with_event(
        p,
        CommunityEvent::MemberRemove {
            user: u("bob"),
            community: c("care"),
        },
    );
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (before(), "alice", Action::Send, "note", to_person("bob"), Allow),
        (before(), "bob", Action::Disclose, "note", to_community("care"), Allow),
        (after(), "alice", Action::Send, "note", to_person("bob"), Deny(&["recipient `bob`"])),
        (after(), "bob", Action::Disclose, "note", to_community("care"), Deny(&["requester `bob`"])),
        // The remaining members are unaffected.
        (after(), "alice", Action::Disclose, "note", to_community("care"), Allow),
    ];
    check(&p, rows);
}

#[test]
fn role_up_does_not_unlock_role_items_created_before_promotion() {
    let p = with_role(care_of_three(), "alice", "care", "treasurer");
    let p = with_role(p, "carol", "care", "treasurer");
    let p = with_object(p, "ledger", "carol", "care", OLD, treasurers());
    let p = with_object(
        p,
        "ledger2",
        "carol",
        "care",
        just_after_event(),
        treasurers(),
    );
    let p = with_event(
        p,
        CommunityEvent::RoleUp {
            user: u("bob"),
            community: c("care"),
            role: r("treasurer"),
        },
    );
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (before(), "alice", Action::Send, "ledger", to_person("bob"), Deny(&["recipient `bob`"])),
        (after(), "alice", Action::Send, "ledger", to_person("bob"), Deny(&["recipient `bob`"])),
        // A role-gated item created after the promotion is his.
        (after(), "alice", Action::Send, "ledger2", to_person("bob"), Allow),
    ];
    check(&p, rows);
}

#[test]
fn role_down_revokes_role_gated_items() {
    let p = with_role(care_of_three(), "alice", "care", "treasurer");
    let p = with_role(p, "bob", "care", "treasurer");
    let p = with_role(p, "carol", "care", "treasurer");
    let p = with_object(p, "ledger", "carol", "care", OLD, treasurers());
    let p = with_object(p, "minutes", "carol", "care", OLD, Audience::Community);
    let p = with_event(
        p,
        CommunityEvent::RoleDown {
            user: u("bob"),
            community: c("care"),
            role: r("treasurer"),
        },
    );
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (before(), "alice", Action::Send, "ledger", to_person("bob"), Allow),
        (after(), "alice", Action::Send, "ledger", to_person("bob"), Deny(&["recipient `bob`"])),
        // Still a member: community-wide items still reach him.
        (after(), "alice", Action::Send, "minutes", to_person("bob"), Allow),
    ];
    check(&p, rows);
}

#[test]
fn merge_keeps_each_sides_history_but_lets_merged_items_flow() {
    let p = with_object(
        care_and_club(),
        "care-old",
        "bob",
        "care",
        OLD,
        Audience::Community,
    );
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
    #[rustfmt::skip]
    let rows: &[Row] = &[
        // Before the merge the merged community does not exist.
        (before(), "alice", Action::Disclose, "care-old", to_community("both"), Deny(&["destination-not-live"])),
        (after(), "alice", Action::Disclose, "care-old", to_community("both"), Deny(&["recipient `carol`", "recipient `dave`"])),
        // The original keeps its own audience.
        (after(), "alice", Action::Disclose, "care-old", to_community("care"), Allow),
        // Items created in the merged community are meant for all its members.
        (after(), "alice", Action::Disclose, "merged-new", to_community("both"), Allow),
    ];
    check(&p, rows);
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
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (before(), "alice", Action::Disclose, "plan", to_community("team"), Allow),
        (after(), "alice", Action::Disclose, "plan", to_community("team"), Deny(&["destination-not-live", "requester `alice`"])),
        // The former members lost the original's history, even on their own side.
        (after(), "alice", Action::Disclose, "plan", to_community("team-a"), Deny(&["requester `alice`"])),
        // The owner may still take her own data to her side.
        (after(), "bob", Action::Disclose, "plan", to_community("team-a"), Allow),
    ];
    check(&p, rows);
}

#[test]
fn relation_start_keeps_pre_start_items_out_of_the_space() {
    let p = with_object(
        care_and_club(),
        "care-old",
        "bob",
        "care",
        OLD,
        Audience::Community,
    );
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
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (before(), "alice", Action::Share, "care-old", to_workspace("space"), Deny(&["destination-not-live"])),
        (after(), "alice", Action::Share, "care-old", to_workspace("space"), Deny(&["recipient `carol`", "recipient `dave`"])),
        (after(), "alice", Action::Disclose, "joint", to_community("space"), Allow),
    ];
    check(&p, rows);
}

#[test]
fn relation_end_closes_the_space() {
    let p = with_relation(care_and_club(), "space", "care", "club");
    let p = with_object(p, "joint", "carol", "space", OLD, Audience::Community);
    let p = with_object(p, "care-note", "alice", "care", OLD, Audience::Community);
    let p = with_event(p, CommunityEvent::RelationEnd { space: c("space") });
    #[rustfmt::skip]
    let rows: &[Row] = &[
        (before(), "alice", Action::Disclose, "joint", to_community("space"), Allow),
        (after(), "alice", Action::Disclose, "joint", to_community("space"), Deny(&["destination-not-live", "requester `alice`"])),
        // Not even the owner's own data goes into a closed space.
        (after(), "alice", Action::Disclose, "care-note", to_community("space"), Deny(&["destination-not-live"])),
    ];
    check(&p, rows);
}
