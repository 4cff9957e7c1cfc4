//! Which upstream failures are worth another try, and how long to wait before it.
//!
//! A transient failure (no connection, a 5xx, 408, or 429) is retried inside the proxy
//! with exponential backoff, so one hiccup of the upstream does not fail a whole trial.
//! Any other 4xx says the request itself is wrong (context exceeded, bad parameter,
//! bad key): sending it again cannot help, so it is answered at once.

use hyper::header::RETRY_AFTER;
use hyper::{HeaderMap, StatusCode};
use std::time::Duration;

/// Longest wait before a retry, whatever the backoff or a `Retry-After` asks for.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

/// How transient upstream failures of one model call are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub retries: u32,
    /// Wait before the first retry; doubled for each further one.
    pub backoff: Duration,
}

impl RetryPolicy {
    /// Retries of a model call unless configured otherwise.
    pub const DEFAULT_RETRIES: u32 = 3;
    /// Milliseconds before the first retry unless configured otherwise.
    pub const DEFAULT_BACKOFF_MS: u64 = 1000;

    /// A policy of `retries` retries, the first after `backoff`.
    pub fn new(retries: u32, backoff: Duration) -> Self {
        RetryPolicy { retries, backoff }
    }

    /// No retries: every failure is answered at once.
    pub fn none() -> Self {
        RetryPolicy::new(0, Duration::ZERO)
    }

    /// The wait before retry number `retry` (from 1): the upstream's `Retry-After` when
    /// it sent one, else the backoff doubled per earlier retry; never above
    /// [`MAX_RETRY_WAIT`].
    pub fn wait(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let doubled = self
            .backoff
            .saturating_mul(1u32 << retry.saturating_sub(1).min(16));
        retry_after.unwrap_or(doubled).min(MAX_RETRY_WAIT)
    }
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy::new(
            Self::DEFAULT_RETRIES,
            Duration::from_millis(Self::DEFAULT_BACKOFF_MS),
        )
    }
}

/// Whether an upstream answering `status` may answer differently a moment later.
pub fn transient_status(status: StatusCode) -> bool {
    status.is_server_error()
        || status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
}

/// The delay a `Retry-After: <seconds>` header asks for (the HTTP-date form is left to
/// the backoff).
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    let seconds: f64 = value.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    #[test]
    fn only_failures_that_may_pass_are_transient() {
        for code in [500, 502, 503, 504, 408, 429] {
            assert!(
                transient_status(StatusCode::from_u16(code).unwrap()),
                "{code}"
            );
        }
        for code in [400, 401, 403, 404, 413, 422] {
            assert!(
                !transient_status(StatusCode::from_u16(code).unwrap()),
                "{code}"
            );
        }
    }

    #[test]
    fn backoff_doubles_and_retry_after_wins_within_the_cap() {
        let p = RetryPolicy::new(5, Duration::from_millis(100));
        assert_eq!(p.wait(1, None), Duration::from_millis(100));
        assert_eq!(p.wait(3, None), Duration::from_millis(400));
        assert_eq!(
            p.wait(2, Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        assert_eq!(p.wait(1, Some(Duration::from_secs(3600))), MAX_RETRY_WAIT);
        let slow = RetryPolicy::new(40, Duration::from_secs(10));
        assert_eq!(slow.wait(40, None), MAX_RETRY_WAIT);
    }

    #[test]
    fn retry_after_is_read_in_seconds() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert(RETRY_AFTER, HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert(RETRY_AFTER, HeaderValue::from_static("0.25"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
        h.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), None);
    }
}
