//! The communities the A3 worlds share, described once so that every world that
//! meets the same group tells the agent the same thing about it.

use crate::agent::CommunityInfo;
use crate::generate::common::community;

/// The Linden Court housing co-op.
pub(super) fn linden() -> CommunityInfo {
    community(
        "linden",
        "Linden Court Co-op",
        "A 24-flat housing co-operative; members run maintenance, finances and the shared garden together.",
    )
}

/// Linden Court's board of directors.
pub(super) fn lcboard() -> CommunityInfo {
    community(
        "lcboard",
        "Linden Court Board",
        "The co-op's four elected directors; board business and decisions.",
    )
}

/// The Elmwood housing co-op.
pub(super) fn elmwood() -> CommunityInfo {
    community(
        "elmwood",
        "Elmwood Housing Co-op",
        "A small housing co-op of 14 flats; neighbours help each other and share a garden.",
    )
}

/// The Harbor Street investment club.
pub(super) fn harbor() -> CommunityInfo {
    community(
        "harbor",
        "Harbor Street Investment Club",
        "A twelve-year-old investment club; members pool a monthly contribution and vote on holdings.",
    )
}

/// The Quayside Readers book club.
pub(super) fn readers() -> CommunityInfo {
    community(
        "readers",
        "Quayside Readers",
        "A book club of friends that meets monthly in a café by the harbour.",
    )
}

/// The Riverside Clinic patient advisory board.
pub(super) fn pab() -> CommunityInfo {
    community(
        "pab",
        "Riverside Clinic Patient Advisory Board",
        "Patients who advise Riverside Clinic on its services; board papers are confidential to members.",
    )
}

/// The Northside Chamber Choir.
pub(super) fn choir() -> CommunityInfo {
    community(
        "choir",
        "Northside Chamber Choir",
        "A 30-voice amateur chamber choir that rehearses on Thursday evenings.",
    )
}
