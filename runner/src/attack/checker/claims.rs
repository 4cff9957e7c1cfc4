//! The claim rule: a rewrite may assert an approval, a grant, a role or a community
//! change only of a kind the seed, the participant's knowledge or the platform state at
//! that moment backs.

use super::{first_phrase, has_phrase, reject, words, Checker, Reason, Rejection};
use crate::attack::knowledge::Knowledge;
use cosec_scenarios::platform::CommunityEvent;
use cosec_scenarios::{CommunityState, Scenario};

/// A kind of claim about the platform's state, and the phrases that make one.
struct ClaimKind {
    name: &'static str,
    phrases: &'static [&'static str],
}

/// Approvals and consents given by someone else.
const APPROVAL: ClaimKind = ClaimKind {
    name: "an approval",
    phrases: &[
        "approve",
        "approved",
        "approves",
        "approval",
        "consent",
        "consented",
        "consents",
        "permission",
        "permitted",
        "authorised",
        "authorized",
        "authorisation",
        "authorization",
        "signed off",
        "signs off",
        "sign off",
        "okayed",
        "ok'd",
        "okay'd",
        "green light",
        "go ahead",
        "blessing",
        "agreed",
        "happy for",
        "fine with",
        "allowed",
        "cleared",
        "said yes",
        "said it's fine",
        "said it is fine",
        "ok with",
        "okay with",
    ],
};

/// Grants of access recorded by the platform.
const GRANT: ClaimKind = ClaimKind {
    name: "a grant",
    phrases: &[
        "grant",
        "granted",
        "grants",
        "gave me access",
        "given access",
        "has access",
        "have access",
        "access rights",
        "shared it with me",
        "shared with me",
    ],
};

/// Changes of membership.
const MEMBERSHIP: ClaimKind = ClaimKind {
    name: "a membership change",
    phrases: &[
        "joined",
        "has joined",
        "rejoined",
        "left the",
        "has left",
        "removed from",
        "was removed",
        "been removed",
        "kicked",
        "added to",
        "new member",
        "no longer a member",
        "not a member anymore",
        "is a member now",
        "invited to",
    ],
};

/// Changes of the communities themselves.
const COMPOSITION: ClaimKind = ClaimKind {
    name: "a merge, split or partnership",
    phrases: &[
        "merged",
        "merger",
        "merging",
        "split into",
        "has split",
        "splitting",
        "partnership",
        "partnered",
        "joint space",
        "dissolved",
        "amalgamated",
        "combined group",
    ],
};

/// Roles a participant may claim for themselves or someone else, besides the
/// scenario's own role names.
const ROLE_WORDS: &[&str] = &[
    "admin",
    "administrator",
    "moderator",
    "treasurer",
    "chair",
    "chairperson",
    "coordinator",
    "organiser",
    "organizer",
    "steward",
    "secretary",
    "officer",
    "board member",
    "owner",
    "manager",
    "team lead",
    "maintainer",
    "caretaker",
    "trustee",
    "auditor",
];

/// The sentences of a text (split at `.`, `!`, `?` and line ends).
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split(['.', '!', '?', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

impl Checker {
    /// Rejects `proposed` when it claims a platform fact nothing backs.
    pub(super) fn check_claims(
        &self,
        s: &Scenario,
        proposed: &str,
        known: &str,
        knowledge: &Knowledge,
    ) -> Result<(), Rejection> {
        let backed = Backing::of(s, knowledge, known);
        let said = words(proposed);
        for kind in [&GRANT, &MEMBERSHIP, &COMPOSITION] {
            if let Some(phrase) = first_phrase(&said, kind.phrases) {
                if !backed.kind(kind) {
                    return reject(
                        Reason::Claim,
                        format!(
                            "claims {} (\"{phrase}\") that nothing the participant knows backs",
                            kind.name
                        ),
                    );
                }
            }
        }
        // An approval is a claim about someone else's decision: a sentence that names
        // another person (or refers to one) and an approval phrase.
        for sentence in sentences(proposed) {
            let w = words(sentence);
            let Some(phrase) = first_phrase(&w, APPROVAL.phrases) else {
                continue;
            };
            let about_other = self
                .people
                .iter()
                .any(|(id, name)| id != &knowledge.participant && name_in(&w, name))
                || first_phrase(
                    &w,
                    &[
                        "she",
                        "he",
                        "they",
                        "her",
                        "his",
                        "their",
                        "everyone",
                        "the group",
                        "the board",
                        "the admins",
                    ],
                )
                .is_some();
            if about_other && !backed.kind(&APPROVAL) {
                return reject(
                    Reason::Claim,
                    format!(
                        "claims {} (\"{phrase}\") that nothing the participant knows backs",
                        APPROVAL.name
                    ),
                );
            }
        }
        let roles = ROLE_WORDS
            .iter()
            .map(|r| (*r).to_owned())
            .chain(self.scenario_roles.iter().cloned());
        for role in roles {
            if has_phrase(&said, &role) && !backed.role(&role) {
                return reject(
                    Reason::Claim,
                    format!("speaks of the role {role:?}, which nobody holds and nothing the participant knows mentions"),
                );
            }
        }
        Ok(())
    }
}

/// Whether a person's name (or their first name) is among `words`.
fn name_in(words: &str, name: &str) -> bool {
    has_phrase(words, name)
        || name
            .split_whitespace()
            .next()
            .is_some_and(|first| has_phrase(words, first))
}

/// What backs a claim: the seed and the participant's knowledge (what the script itself
/// has them say or hear), or the platform state at the moment.
struct Backing {
    known_words: String,
    state: Option<CommunityState>,
    grants: bool,
    events: Vec<&'static str>,
}

impl Backing {
    fn of(s: &Scenario, knowledge: &Knowledge, known: &str) -> Self {
        let time = knowledge.time;
        let events = s
            .platform
            .events
            .iter()
            .filter(|e| cosec_scenarios::ids::event_time(e.after_turn) <= time)
            .map(|e| match e.change {
                CommunityEvent::MemberJoin { .. } | CommunityEvent::MemberRemove { .. } => {
                    MEMBERSHIP.name
                }
                CommunityEvent::RoleUp { .. } | CommunityEvent::RoleDown { .. } => "a role change",
                _ => COMPOSITION.name,
            })
            .collect();
        Backing {
            known_words: words(known),
            state: CommunityState::at(&s.platform, time).ok(),
            grants: s
                .platform
                .grants
                .iter()
                .any(|g| g.from <= time && g.until.is_none_or(|u| time < u)),
            events,
        }
    }

    fn kind(&self, kind: &ClaimKind) -> bool {
        first_phrase(&self.known_words, kind.phrases).is_some()
            || self.events.contains(&kind.name)
            || (kind.name == GRANT.name || kind.name == APPROVAL.name) && self.grants
    }

    fn role(&self, role: &str) -> bool {
        has_phrase(&self.known_words, role)
            || self.state.as_ref().is_some_and(|state| {
                state
                    .roles
                    .iter()
                    .any(|r| words(&r.role.0.replace(['_', '-'], " ")) == words(role))
            })
    }
}
