//! A reply body that fails when its upstream goes silent for too long.
//!
//! The timer is armed only while the body waits for data: a reply that has arrived
//! whole never touches it, and each wait re-arms the one timer instead of allocating a
//! new one. The body's length and end are passed through, so a relayed reply keeps its
//! `content-length` instead of being re-framed as chunks.

use http_body::{Body, Frame, SizeHint};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// Why a body stopped early.
pub(crate) type BodyError = Box<dyn std::error::Error + Send + Sync>;

/// The error of a body whose upstream sent nothing for longer than the limit.
#[derive(Debug, thiserror::Error)]
#[error("no data from the upstream for {} s", .0.as_secs())]
pub struct Silent(Duration);

/// `body`, failing with [`Silent`] after `limit` without a frame.
pub struct SilenceLimit<B> {
    body: B,
    limit: Duration,
    /// The timer, once a wait armed it.
    timer: Option<Pin<Box<Sleep>>>,
    /// Whether the timer runs for the current wait.
    armed: bool,
}

impl<B> SilenceLimit<B> {
    /// Wraps `body`.
    pub fn new(limit: Duration, body: B) -> Self {
        SilenceLimit {
            body,
            limit,
            timer: None,
            armed: false,
        }
    }
}

impl<B> std::fmt::Debug for SilenceLimit<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SilenceLimit")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl<B> Body for SilenceLimit<B>
where
    B: Body + Unpin,
    B::Error: Into<BodyError>,
{
    type Data = B::Data;
    type Error = BodyError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, BodyError>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(cx) {
            self.armed = false;
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        let this = &mut *self;
        let limit = this.limit;
        let timer = match &mut this.timer {
            Some(timer) if this.armed => timer,
            Some(timer) => {
                timer.as_mut().reset(Instant::now() + limit);
                timer
            }
            None => this.timer.insert(Box::pin(tokio::time::sleep(limit))),
        };
        this.armed = true;
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(Silent(this.limit))))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use http_body_util::{BodyExt, Full, StreamBody};

    #[tokio::test(start_paused = true)]
    async fn a_silent_body_fails_after_the_limit_and_a_flowing_one_does_not() {
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<Frame<Bytes>, BodyError>>(4);
        let stream =
            futures_util::stream::unfold(
                rx,
                |mut rx| async move { rx.recv().await.map(|f| (f, rx)) },
            );
        let mut body =
            SilenceLimit::new(Duration::from_secs(60), StreamBody::new(Box::pin(stream)));
        // Frames 50 s apart never hit a 60 s limit: each wait starts its own.
        for _ in 0..3 {
            let sender = tx.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(50)).await;
                let _ = sender.send(Ok(Frame::data(Bytes::from_static(b"x")))).await;
            });
            let frame = body.frame().await.unwrap().unwrap();
            assert_eq!(frame.into_data().unwrap(), "x");
        }
        let started = Instant::now();
        let err = body.frame().await.unwrap().unwrap_err();
        assert_eq!(err.to_string(), "no data from the upstream for 60 s");
        assert_eq!(started.elapsed(), Duration::from_secs(60));
    }

    #[test]
    fn the_length_and_end_of_the_body_pass_through() {
        let body = SilenceLimit::new(
            Duration::from_secs(1),
            Full::new(Bytes::from_static(b"abc")),
        );
        assert_eq!(body.size_hint().exact(), Some(3));
        assert!(!body.is_end_stream());
        let empty = SilenceLimit::new(Duration::from_secs(1), Full::new(Bytes::new()));
        assert!(empty.is_end_stream());
    }
}
