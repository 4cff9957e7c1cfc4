//! The proxy's HTTP listener: one hyper server on 127.0.0.1 serving every trial of a
//! run under `/t/<trial-id>/v1/...`.
//!
//! With a [`Guard`] ([`ProxyServer::bind_with`]) every model call is guarded: the
//! request taints what the model was sent, the trial's prompt guardrail (if any) is
//! applied, and the response (simulated or upstream, both wire APIs, streamed or not)
//! has denied reply spans redacted and tool calls rewritten or replaced by
//! `policy_blocked` before the client sees it. The trace records the request as the
//! model saw it and the response as the client received it.

mod call;
mod forward;
mod guarded;
pub mod guardrail;
mod handler;
pub mod limits;
mod stream;

use crate::api::{ModelRequest, ModelResponse};
use crate::guard::Guard;
use crate::registry::{Trial, TrialRegistry, TurnContext};
use crate::upstream::{RetryPolicy, UpstreamClient, UpstreamError, UpstreamTimeouts};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use limits::{effective_cap, Connections, ServerLimits, WriteDeadline};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Where the proxy listens unless told otherwise: loopback, any free port.
pub const DEFAULT_ADDR: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0));

/// How long a listener thread lets calls in flight finish after a shutdown.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// Pending connections the kernel queues per listener.
const LISTEN_BACKLOG: i32 = 1024;
/// Period of each listener thread's timer tick (see [`serve_thread`]); shorter than
/// every per-call deadline.
const TIMER_TICK: Duration = Duration::from_secs(10);

/// Who answers the model calls of trials routed to a simulated model.
pub trait ModelBackend: Send + Sync {
    /// Answers one request of a trial at its current turn; an `Err` is reported to the
    /// client as a server error and traced.
    fn respond(
        &self,
        trial: &Trial,
        turn: &TurnContext,
        request: &ModelRequest,
    ) -> Result<ModelResponse, String>;
}

/// Errors starting the proxy.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// The listener could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// Requested address.
        addr: SocketAddr,
        /// Cause.
        source: std::io::Error,
    },
    /// The upstream client could not be built.
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
    /// A listener thread or its runtime could not be started.
    #[error("cannot start a proxy listener thread: {0}")]
    Thread(std::io::Error),
}

/// Options of a proxy listener beyond the registry and the simulated backend.
#[derive(Clone, Default)]
pub struct ProxyOptions {
    /// The runtime guard (`--defense proxy`); `None` lets responses through unchanged.
    pub guard: Option<Guard>,
    /// Dedicated listener threads, each with its own single-threaded runtime and
    /// upstream connection pool, sharing the port (`SO_REUSEPORT`) so the kernel spreads
    /// connections over them; a call never hops between threads. 0 serves on the
    /// caller's runtime instead (what `cosec run` does, next to its trials).
    pub threads: usize,
    /// How transient upstream failures of a model call are retried.
    pub retry: RetryPolicy,
    /// How long an upstream may keep a call waiting.
    pub timeouts: UpstreamTimeouts,
    /// What one client may hold of the listener: body size, time, connections.
    pub limits: ServerLimits,
    /// A cap on upstream calls per second shared by every listener thread.
    pub pace: Option<Arc<crate::upstream::Pacer>>,
}

/// Finds the trial of a request from its headers (the standalone guard, whose clients
/// call `/v1/...` without a trial id).
pub(crate) trait TrialSource: Send + Sync {
    /// The trial a request belongs to, or why the request names none (answered 400).
    fn trial_for(&self, headers: &hyper::HeaderMap) -> Result<Arc<Trial>, String>;
    /// Model names listed by `GET /v1/models`.
    fn models(&self) -> Vec<String>;
}

/// What every request handler shares.
pub(crate) struct State {
    pub(crate) registry: TrialRegistry,
    pub(crate) backend: Arc<dyn ModelBackend>,
    pub(crate) upstream: UpstreamClient,
    pub(crate) next_id: Arc<AtomicU64>,
    pub(crate) guard: Option<Guard>,
    pub(crate) source: Option<Arc<dyn TrialSource>>,
    pub(crate) limits: ServerLimits,
    pub(crate) connections: Arc<Connections>,
}

/// Stops the listener from accepting new connections (calls in flight finish).
#[derive(Debug, Clone)]
pub struct ShutdownHandle(Arc<watch::Sender<bool>>);

impl ShutdownHandle {
    /// Signals the listener to stop.
    pub fn shutdown(&self) {
        self.0.send_replace(true);
    }
}

/// Where the accept loops run.
#[derive(Debug)]
enum Listeners {
    /// One task on the caller's runtime.
    Task(JoinHandle<()>),
    /// Dedicated threads ([`ProxyOptions::threads`]).
    Threads(Vec<std::thread::JoinHandle<()>>),
}

/// A running proxy listener; dropping it stops the listener.
#[derive(Debug)]
pub struct ProxyServer {
    local_addr: SocketAddr,
    shutdown: ShutdownHandle,
    listeners: Option<Listeners>,
}

impl ProxyServer {
    /// Binds `addr` (use [`DEFAULT_ADDR`]) and starts serving on the current tokio
    /// runtime, without a guard.
    pub async fn bind(
        addr: SocketAddr,
        registry: TrialRegistry,
        backend: Arc<dyn ModelBackend>,
    ) -> Result<ProxyServer, ProxyError> {
        Self::bind_with(addr, registry, backend, ProxyOptions::default()).await
    }

    /// Like [`ProxyServer::bind`], with options (the guard).
    pub async fn bind_with(
        addr: SocketAddr,
        registry: TrialRegistry,
        backend: Arc<dyn ModelBackend>,
        options: ProxyOptions,
    ) -> Result<ProxyServer, ProxyError> {
        Self::start(addr, registry, backend, options, None).await
    }

    /// Starts a listener; with a `source`, trials come from request headers.
    pub(crate) async fn start(
        addr: SocketAddr,
        registry: TrialRegistry,
        backend: Arc<dyn ModelBackend>,
        options: ProxyOptions,
        source: Option<Arc<dyn TrialSource>>,
    ) -> Result<ProxyServer, ProxyError> {
        let next_id = Arc::new(AtomicU64::new(1));
        let connections = Connections::new(effective_cap(options.limits.max_connections));
        let state = || -> Result<Arc<State>, ProxyError> {
            Ok(Arc::new(State {
                registry: registry.clone(),
                backend: Arc::clone(&backend),
                upstream: UpstreamClient::with_options(options.retry, options.timeouts)?
                    .paced(options.pace.clone()),
                next_id: Arc::clone(&next_id),
                guard: options.guard.clone(),
                source: source.clone(),
                limits: options.limits,
                connections: Arc::clone(&connections),
            }))
        };
        let (tx, rx) = watch::channel(false);
        let (local_addr, listeners) = if options.threads == 0 {
            let listener = TcpListener::bind(addr)
                .await
                .map_err(|source| ProxyError::Bind { addr, source })?;
            let local_addr = listener
                .local_addr()
                .map_err(|source| ProxyError::Bind { addr, source })?;
            let task = tokio::spawn(accept_loop(listener, state()?, rx, None));
            (local_addr, Listeners::Task(task))
        } else {
            if addr.port() != 0 {
                // SO_REUSEPORT would let a second proxy on the same port silently take
                // half the connections; a plain bind fails on a port in use, so probe.
                drop(
                    std::net::TcpListener::bind(addr)
                        .map_err(|source| ProxyError::Bind { addr, source })?,
                );
            }
            let first = reuse_port_listener(addr)?;
            let local_addr = first
                .local_addr()
                .map_err(|source| ProxyError::Bind { addr, source })?;
            let mut sockets = vec![first];
            for _ in 1..options.threads {
                sockets.push(reuse_port_listener(local_addr)?);
            }
            let mut threads = Vec::with_capacity(sockets.len());
            for (i, socket) in sockets.into_iter().enumerate() {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(ProxyError::Thread)?;
                let state = state()?;
                let stop = rx.clone();
                let thread = std::thread::Builder::new()
                    .name(format!("cosec-proxy-{i}"))
                    .spawn(move || serve_thread(runtime, socket, state, stop))
                    .map_err(ProxyError::Thread)?;
                threads.push(thread);
            }
            (local_addr, Listeners::Threads(threads))
        };
        Ok(ProxyServer {
            local_addr,
            shutdown: ShutdownHandle(Arc::new(tx)),
            listeners: Some(listeners),
        })
    }

    /// The bound address (with the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The base URL a harness of `trial_id` is pointed at (ends in `/v1`).
    pub fn base_url(&self, trial_id: &str) -> String {
        format!("http://{}/t/{trial_id}/v1", self.local_addr)
    }

    /// Stops accepting connections and waits until the listener is closed (listener
    /// threads first let calls in flight finish, for up to [`SHUTDOWN_GRACE`]).
    pub async fn shutdown(mut self) {
        self.shutdown.shutdown();
        match self.listeners.take() {
            // The accept loop never panics; a join error would only mean it was aborted.
            Some(Listeners::Task(task)) => {
                let _ = task.await;
            }
            Some(Listeners::Threads(threads)) => {
                let _ = tokio::task::spawn_blocking(move || {
                    for t in threads {
                        let _ = t.join();
                    }
                })
                .await;
            }
            None => {}
        }
    }
}

impl Drop for ProxyServer {
    fn drop(&mut self) {
        self.shutdown.shutdown();
    }
}

/// A listening socket bound with `SO_REUSEPORT`, so several threads can each accept on
/// the same port.
fn reuse_port_listener(addr: SocketAddr) -> Result<std::net::TcpListener, ProxyError> {
    use socket2::{Domain, Protocol, Socket, Type};
    let bind = |source| ProxyError::Bind { addr, source };
    let socket =
        Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP)).map_err(bind)?;
    socket.set_reuse_address(true).map_err(bind)?;
    socket.set_reuse_port(true).map_err(bind)?;
    socket.bind(&addr.into()).map_err(bind)?;
    socket.listen(LISTEN_BACKLOG).map_err(bind)?;
    socket.set_nonblocking(true).map_err(bind)?;
    Ok(socket.into())
}

/// One listener thread: accepts until stopped, then lets open calls finish.
fn serve_thread(
    runtime: tokio::runtime::Runtime,
    socket: std::net::TcpListener,
    state: Arc<State>,
    stop: watch::Receiver<bool>,
) {
    runtime.block_on(async move {
        let listener = match TcpListener::from_std(socket) {
            Ok(l) => l,
            Err(e) => {
                tracing::error!("proxy listener thread cannot listen: {e}");
                return;
            }
        };
        // Every upstream call arms a deadline minutes away. When tokio's timer driver has
        // no earlier timer it wakes itself through an eventfd for each new one, a system
        // call and an extra event on every call of an otherwise idle thread; a standing
        // tick keeps an earlier timer in place, so arming a deadline stays in memory.
        let tick = tokio::spawn(async {
            let mut every = tokio::time::interval(TIMER_TICK);
            loop {
                every.tick().await;
            }
        });
        let graceful = GracefulShutdown::new();
        accept_loop(listener, state, stop, Some(&graceful)).await;
        tick.abort();
        if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
            .await
            .is_err()
        {
            tracing::warn!(
                "proxy calls still open {} s after shutdown were dropped",
                SHUTDOWN_GRACE.as_secs()
            );
        }
    });
}

async fn accept_loop(
    listener: TcpListener,
    state: Arc<State>,
    mut stop: watch::Receiver<bool>,
    graceful: Option<&GracefulShutdown>,
) {
    loop {
        let accepted = tokio::select! {
            _ = stop.wait_for(|stopped| *stopped) => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!("proxy accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // Without it, Nagle's algorithm meets the client's delayed ACK and every streamed
        // reply stalls ~40 ms before its last chunk.
        let _ = stream.set_nodelay(true);
        let limits = state.limits;
        let Some(admitted) = state.connections.admit() else {
            tokio::spawn(refuse(stream, limits, state.connections.cap()));
            continue;
        };
        let state = Arc::clone(&state);
        let watcher: Option<Watcher> = graceful.map(GracefulShutdown::watcher);
        tokio::spawn(async move {
            let admitted = Arc::new(admitted);
            let place = Arc::clone(&admitted);
            let service = service_fn(move |req| {
                let busy = place.busy();
                handler::handle(Arc::clone(&state), req, busy)
            });
            let io = TokioIo::new(WriteDeadline::new(stream, limits.idle_timeout));
            let mut builder = http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout);
            let conn = builder.serve_connection(io, service);
            let serving = async move {
                match watcher {
                    Some(w) => w.watch(conn).await,
                    None => conn.await,
                }
            };
            tokio::select! {
                ended = serving => {
                    if let Err(e) = ended {
                        tracing::debug!("proxy connection ended: {e}");
                    }
                }
                // Another connection took this idle one's place: dropping it closes it.
                () = admitted.evicted() => {}
            }
        });
    }
}

/// Answers a connection beyond the cap, every open one being busy: `503`, closed.
async fn refuse(stream: tokio::net::TcpStream, limits: ServerLimits, cap: usize) {
    let service = service_fn(move |_req| async move {
        Ok::<_, std::convert::Infallible>(handler::overloaded(cap))
    });
    let io = TokioIo::new(WriteDeadline::new(stream, limits.idle_timeout));
    let mut builder = http1::Builder::new();
    builder
        .keep_alive(false)
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    if let Err(e) = builder.serve_connection(io, service).await {
        tracing::debug!("refused proxy connection ended: {e}");
    }
}
