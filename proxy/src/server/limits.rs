//! What one client may hold of a listener: bytes, time and connections.
//!
//! - A request body above [`ServerLimits::max_body`] is answered `413`.
//! - The request head must arrive within [`ServerLimits::header_timeout`] of the
//!   connection waiting for one (a new connection, or a kept-alive one after its last
//!   response), the body within [`ServerLimits::body_timeout`] of the head (`408`), and
//!   a client that reads nothing of what the proxy sends for
//!   [`ServerLimits::idle_timeout`] is disconnected.
//! - At most [`ServerLimits::max_connections`] connections are open at once (fewer
//!   when the process's file limit is lower: each call may need a second descriptor
//!   for its upstream). A new connection beyond the cap takes the place of the one
//!   that has been idle longest (no request in flight); when every connection is busy
//!   it is answered `503` and closed.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;
use tokio::time::Sleep;

/// Byte, time and connection budgets of a listener.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerLimits {
    /// Largest request body accepted, in bytes (and largest upstream reply read whole).
    pub max_body: usize,
    /// Most connections open at once.
    pub max_connections: usize,
    /// Longest wait for a whole request head.
    pub header_timeout: Duration,
    /// Longest wait for a whole request body after its head.
    pub body_timeout: Duration,
    /// Longest a client may leave what the proxy sends it unread.
    pub idle_timeout: Duration,
}

impl ServerLimits {
    /// The default body limit: far above any agent's whole history.
    pub const DEFAULT_MAX_BODY: usize = 64 * 1024 * 1024;
    /// The default connection cap.
    pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            max_body: Self::DEFAULT_MAX_BODY,
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            header_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(60),
        }
    }
}

/// Descriptors kept free for everything but client connections.
const RESERVED_FDS: u64 = 64;

/// The connection cap the process's file limit allows: the soft limit is raised to the
/// hard one first, and each connection may need a second descriptor upstream.
pub fn effective_cap(wanted: usize) -> usize {
    let wanted_fds = u64::try_from(wanted)
        .unwrap_or(u64::MAX)
        .saturating_mul(2)
        .saturating_add(RESERVED_FDS);
    let soft = rlimit::increase_nofile_limit(wanted_fds).ok().or_else(|| {
        rlimit::getrlimit(rlimit::Resource::NOFILE)
            .ok()
            .map(|l| l.0)
    });
    match soft {
        Some(soft) => {
            let fits = soft.saturating_sub(RESERVED_FDS) / 2;
            wanted
                .min(usize::try_from(fits).unwrap_or(usize::MAX))
                .max(1)
        }
        None => wanted,
    }
}

/// One open connection.
struct Conn {
    /// Requests in flight (a response counts until its body was sent).
    busy: AtomicUsize,
    /// When it last became idle, in milliseconds since the table started.
    idle_since: AtomicU64,
    /// Told to close when another connection takes its place.
    close: Notify,
}

/// The open connections of a server (shared by its listener threads).
pub(crate) struct Connections {
    cap: usize,
    started: Instant,
    next: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Conn>>>,
}

/// A connection's place in the table; leaving it frees the place.
pub(crate) struct Admitted {
    table: Arc<Connections>,
    id: u64,
    conn: Arc<Conn>,
}

impl Connections {
    /// A table of at most `cap` connections.
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(Connections {
            cap: cap.max(1),
            started: Instant::now(),
            next: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
        })
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// A place for a new connection, taking the place of the longest-idle one when the
    /// table is full; `None` when every open connection is busy.
    pub fn admit(self: &Arc<Self>) -> Option<Admitted> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if open.len() >= self.cap {
            let idlest = open
                .iter()
                .filter(|(_, c)| c.busy.load(Ordering::Acquire) == 0)
                .min_by_key(|(_, c)| c.idle_since.load(Ordering::Relaxed))
                .map(|(id, _)| *id)?;
            if let Some(evicted) = open.remove(&idlest) {
                evicted.close.notify_one();
            }
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let conn = Arc::new(Conn {
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(self.now_ms()),
            close: Notify::new(),
        });
        open.insert(id, Arc::clone(&conn));
        Some(Admitted {
            table: Arc::clone(self),
            id,
            conn,
        })
    }

    /// How many connections are open.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.open.lock().map(|o| o.len()).unwrap_or(0)
    }

    /// The cap.
    pub fn cap(&self) -> usize {
        self.cap
    }
}

impl Admitted {
    /// Resolves when another connection took this one's place.
    pub async fn evicted(&self) {
        self.conn.close.notified().await;
    }

    /// Marks a request in flight until the returned guard is dropped.
    pub fn busy(&self) -> Busy {
        self.conn.busy.fetch_add(1, Ordering::AcqRel);
        Busy {
            table: Arc::clone(&self.table),
            conn: Arc::clone(&self.conn),
        }
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut open = self.table.open.lock().unwrap_or_else(|p| p.into_inner());
        open.remove(&self.id);
    }
}

/// A request in flight on a connection.
pub(crate) struct Busy {
    table: Arc<Connections>,
    conn: Arc<Conn>,
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.conn
            .idle_since
            .store(self.table.now_ms(), Ordering::Relaxed);
        self.conn.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A client socket whose writes fail when the client reads nothing for `limit`.
pub(crate) struct WriteDeadline<T> {
    io: T,
    limit: Duration,
    timer: Option<Pin<Box<Sleep>>>,
    armed: bool,
}

impl<T> WriteDeadline<T> {
    /// Wraps `io`.
    pub fn new(io: T, limit: Duration) -> Self {
        WriteDeadline {
            io,
            limit,
            timer: None,
            armed: false,
        }
    }

    /// Polls the timer of a write that is waiting: an error once it has waited
    /// `limit`.
    fn waiting(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        let limit = self.limit;
        let timer = match &mut self.timer {
            Some(timer) if self.armed => timer,
            Some(timer) => {
                timer.as_mut().reset(tokio::time::Instant::now() + limit);
                timer
            }
            None => self.timer.insert(Box::pin(tokio::time::sleep(limit))),
        };
        self.armed = true;
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client read nothing for {} s", limit.as_secs()),
            )),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteDeadline<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.io).poll_write(cx, buf) {
            Poll::Ready(r) => {
                self.armed = false;
                Poll::Ready(r)
            }
            Poll::Pending => self.waiting(cx).map(Err),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.io).poll_flush(cx) {
            Poll::Ready(r) => {
                self.armed = false;
                Poll::Ready(r)
            }
            Poll::Pending => self.waiting(cx).map(Err),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.io).poll_write_vectored(cx, bufs) {
            Poll::Ready(r) => {
                self.armed = false;
                Poll::Ready(r)
            }
            Poll::Pending => self.waiting(cx).map(Err),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_table_gives_the_longest_idle_place_away_and_refuses_when_all_are_busy() {
        let table = Connections::new(2);
        let a = table.admit().unwrap();
        let b = table.admit().unwrap();
        let _busy_b = b.busy();
        // `a` is idle: the third connection takes its place.
        let c = table.admit().unwrap();
        assert_eq!(table.len(), 2);
        let _busy_c = c.busy();
        // Both open connections are busy now.
        assert!(table.admit().is_none());
        drop(a);
        assert_eq!(table.len(), 2);
        drop(_busy_c);
        assert!(table.admit().is_some());
        assert_eq!(effective_cap(8), 8);
    }
}
