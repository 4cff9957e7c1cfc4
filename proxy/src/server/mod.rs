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
mod guarded;
pub mod guardrail;
mod handler;
mod stream;

use crate::api::{ModelRequest, ModelResponse};
use crate::guard::Guard;
use crate::registry::{Trial, TrialRegistry, TurnContext};
use crate::upstream::{UpstreamClient, UpstreamError};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Where the proxy listens unless told otherwise: loopback, any free port.
pub const DEFAULT_ADDR: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0));

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
}

/// Options of a proxy listener beyond the registry and the simulated backend.
#[derive(Clone, Default)]
pub struct ProxyOptions {
    /// The runtime guard (`--defense proxy`); `None` lets responses through unchanged.
    pub guard: Option<Guard>,
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
    pub(crate) next_id: AtomicU64,
    pub(crate) guard: Option<Guard>,
    pub(crate) source: Option<Arc<dyn TrialSource>>,
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

/// A running proxy listener; dropping it stops the listener.
#[derive(Debug)]
pub struct ProxyServer {
    local_addr: SocketAddr,
    shutdown: ShutdownHandle,
    task: Option<JoinHandle<()>>,
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
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ProxyError::Bind { addr, source })?;
        let local_addr = listener
            .local_addr()
            .map_err(|source| ProxyError::Bind { addr, source })?;
        let state = Arc::new(State {
            registry,
            backend,
            upstream: UpstreamClient::new()?,
            next_id: AtomicU64::new(1),
            guard: options.guard,
            source,
        });
        let (tx, rx) = watch::channel(false);
        let task = tokio::spawn(accept_loop(listener, state, rx));
        Ok(ProxyServer {
            local_addr,
            shutdown: ShutdownHandle(Arc::new(tx)),
            task: Some(task),
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

    /// A handle that stops the listener from elsewhere.
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        self.shutdown.clone()
    }

    /// Stops accepting connections and waits until the listener is closed.
    pub async fn shutdown(mut self) {
        self.shutdown.shutdown();
        if let Some(task) = self.task.take() {
            // The accept loop never panics; a join error would only mean it was aborted.
            let _ = task.await;
        }
    }
}

impl Drop for ProxyServer {
    fn drop(&mut self) {
        self.shutdown.shutdown();
    }
}

async fn accept_loop(listener: TcpListener, state: Arc<State>, mut stop: watch::Receiver<bool>) {
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
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let service = service_fn(move |req| handler::handle(Arc::clone(&state), req));
            if let Err(e) = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                tracing::debug!("proxy connection ended: {e}");
            }
        });
    }
}
