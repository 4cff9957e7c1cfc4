//! Infrastructure failures: what kind each one is, which kinds no retry can fix, the
//! breaker that stops a run repeating the same failure, and the grouped causes a
//! summary prints.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// What kind of infrastructure failure a cause describes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum FailureKind {
    /// Nothing listens at the endpoint, or its name does not resolve.
    Unreachable,
    /// The endpoint refused the key (401).
    Unauthorized,
    /// The key may not use this model or endpoint (403).
    Forbidden,
    /// No such model or path at the endpoint (404).
    NotFound,
    /// Any other cause, by its text without the attempt counter.
    Other(String),
}

impl FailureKind {
    /// Reads the kind from a trial's cause (the runner's or the harness's text).
    pub fn of(cause: &str) -> Self {
        let lower = cause.to_ascii_lowercase();
        let has = |needles: &[&str]| needles.iter().any(|n| lower.contains(n));
        if has(&[
            "connection refused",
            "dns error",
            "failed to lookup address",
            "no route to host",
            "network is unreachable",
            "error trying to connect",
        ]) {
            Self::Unreachable
        } else if status(&lower, "401")
            || has(&["unauthorized", "invalid api key", "incorrect api key"])
        {
            Self::Unauthorized
        } else if status(&lower, "403") || has(&["forbidden"]) {
            Self::Forbidden
        } else if status(&lower, "404") || has(&["model not found", "does not exist"]) {
            Self::NotFound
        } else {
            Self::Other(without_attempt(cause).chars().take(160).collect())
        }
    }

    /// Whether waiting and trying again cannot help: the endpoint or the key is wrong.
    pub fn is_fatal(&self) -> bool {
        !matches!(self, Self::Other(_))
    }

    /// A short name for summaries.
    pub fn label(&self) -> String {
        match self {
            Self::Unreachable => "endpoint unreachable (connection refused or unknown host)".into(),
            Self::Unauthorized => "unauthorized (401: check the API key)".into(),
            Self::Forbidden => "forbidden (403: the key may not use this model)".into(),
            Self::NotFound => "not found (404: check the model name and the base URL's /v1)".into(),
            Self::Other(text) => text.clone(),
        }
    }
}

/// Whether `code` stands alone in `text` (not part of a longer number).
fn status(text: &str, code: &str) -> bool {
    text.match_indices(code).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + code.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit()) && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

/// The cause without the runner's "(attempt N of M)" suffix, so retries group together.
fn without_attempt(cause: &str) -> &str {
    match cause.rfind(" (attempt ") {
        Some(at) if cause.ends_with(')') => &cause[..at],
        _ => cause,
    }
}

/// Stops scheduling trials after `limit` consecutive infrastructure failures of one
/// kind: a run against a dead endpoint ends in seconds, not hours.
pub struct Breaker {
    limit: u32,
    state: Mutex<BreakerState>,
}

#[derive(Default)]
struct BreakerState {
    last: Option<FailureKind>,
    streak: u32,
    tripped: Option<(FailureKind, u32)>,
}

impl Breaker {
    /// A breaker that trips after `limit` failures in a row (0: never).
    pub fn new(limit: u32) -> Self {
        Self {
            limit,
            state: Mutex::new(BreakerState::default()),
        }
    }

    /// Records how a trial ended (`None`: not an infrastructure failure); returns the
    /// kind and streak when this record tripped the breaker.
    pub fn record(&self, failure: Option<&str>) -> Option<(FailureKind, u32)> {
        let Ok(mut s) = self.state.lock() else {
            return None;
        };
        let Some(cause) = failure else {
            s.last = None;
            s.streak = 0;
            return None;
        };
        let kind = FailureKind::of(cause);
        s.streak = if s.last.as_ref() == Some(&kind) {
            s.streak + 1
        } else {
            1
        };
        s.last = Some(kind.clone());
        if self.limit > 0 && s.streak >= self.limit && s.tripped.is_none() {
            s.tripped = Some((kind, s.streak));
            return s.tripped.clone();
        }
        None
    }

    /// The kind and streak that tripped the breaker, if it has.
    pub fn tripped(&self) -> Option<(FailureKind, u32)> {
        self.state.lock().ok().and_then(|s| s.tripped.clone())
    }
}

/// Infrastructure-failure causes grouped by kind, most frequent first.
pub fn grouped<'a>(causes: impl IntoIterator<Item = &'a str>) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<FailureKind, usize> = BTreeMap::new();
    for cause in causes {
        *counts.entry(FailureKind::of(cause)).or_default() += 1;
    }
    let mut out: Vec<(String, usize)> = counts.into_iter().map(|(k, n)| (k.label(), n)).collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// The most infrastructure failures a run may have and still exit 0 (`--max-infra-failures`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InfraLimit {
    /// At most this many trials.
    Count(usize),
    /// At most this share of the run's trials (0–100 %).
    Percent(f64),
}

impl std::str::FromStr for InfraLimit {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if let Some(p) = s.strip_suffix('%') {
            let p: f64 = p
                .trim()
                .parse()
                .map_err(|_| format!("`{s}` is not a percentage like 10%"))?;
            if !(0.0..=100.0).contains(&p) {
                return Err(format!("`{s}` is outside 0%..100%"));
            }
            return Ok(Self::Percent(p));
        }
        s.parse()
            .map(Self::Count)
            .map_err(|_| format!("`{s}` is neither a count like 5 nor a percentage like 10%"))
    }
}

impl InfraLimit {
    /// Whether `failures` of `total` trials pass the limit.
    pub fn exceeded(self, failures: usize, total: usize) -> bool {
        match self {
            Self::Count(n) => failures > n,
            Self::Percent(p) => total > 0 && failures as f64 * 100.0 > p * total as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_of_one_cause_group_together_and_endpoint_errors_are_fatal() {
        let causes = [
            "model call failed: error sending request: error trying to connect: tcp connect error: Connection refused (os error 111) (attempt 1 of 4)",
            "model call failed: error trying to connect: Connection refused (attempt 4 of 4)",
            "harness exited with status 3 (attempt 2 of 4)",
            "harness exited with status 3 (attempt 1 of 4)",
            "upstream answered 401 Unauthorized: invalid api key",
        ];
        let groups = grouped(causes.iter().copied());
        assert_eq!(groups.len(), 3, "{groups:?}");
        assert_eq!(groups[0].1, 2);
        assert!(FailureKind::of(causes[0]).is_fatal());
        assert!(FailureKind::of(causes[4]).is_fatal());
        assert!(!FailureKind::of(causes[2]).is_fatal());
        assert!(!FailureKind::of("timed out after 4010 ms").is_fatal());
        assert_eq!(
            FailureKind::of("upstream 404: no such model"),
            FailureKind::NotFound
        );
    }

    #[test]
    fn the_breaker_trips_on_a_streak_of_one_kind_only() {
        let b = Breaker::new(3);
        assert!(b.record(Some("Connection refused")).is_none());
        assert!(b.record(Some("harness crashed")).is_none());
        assert!(b.record(Some("Connection refused")).is_none());
        assert!(b.record(None).is_none());
        assert!(b.record(Some("Connection refused")).is_none());
        assert!(b.record(Some("Connection refused")).is_none());
        let tripped = b.record(Some("Connection refused (attempt 2 of 2)"));
        assert_eq!(tripped, Some((FailureKind::Unreachable, 3)));
        assert!(b.tripped().is_some());
        assert!(Breaker::new(0).record(Some("x")).is_none());
    }

    #[test]
    fn the_infra_limit_reads_counts_and_percentages() {
        assert_eq!("5".parse(), Ok(InfraLimit::Count(5)));
        assert_eq!("10%".parse(), Ok(InfraLimit::Percent(10.0)));
        assert!("ten".parse::<InfraLimit>().is_err());
        assert!("120%".parse::<InfraLimit>().is_err());
        assert!(InfraLimit::Percent(10.0).exceeded(3, 20));
        assert!(!InfraLimit::Percent(10.0).exceeded(2, 20));
        assert!(InfraLimit::Count(0).exceeded(1, 100));
    }
}
