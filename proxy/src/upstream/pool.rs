//! Kept-alive HTTP/1.1 connections to upstreams, reused call after call.
//!
//! Each [`Pool`] belongs to one [`super::UpstreamClient`], and each proxy listener
//! thread has its own client, so a pool is normally used from one thread and its lock
//! is never contended. A connection goes back to the pool when its reply body has been
//! read to the end, or up to its `content-length` (hyper's server stops there); a body
//! dropped earlier takes its connection with it (HTTP/1.1 cannot abandon a reply half
//! read). A request that a reused connection could not send
//! because the upstream had closed it meanwhile goes out again on another connection;
//! one that was sent is never repeated.
//!
//! This replaces hyper-util's general-purpose pooled client on the forwarding path:
//! that client also races a new connection against every checkout and hashes the
//! origin on each call, about a tenth of a relayed call's instructions (see
//! BENCHMARKS.md).

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{HeaderValue, HOST};
use hyper::{Request, Response, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tower_service::Service;

/// Idle connections kept per client, over all origins; the oldest go first.
const MAX_IDLE: usize = 256;

type Sender = SendRequest<Full<Bytes>>;

/// Why a call could not get a reply.
pub(crate) type PoolError = Box<dyn std::error::Error + Send + Sync>;

/// Where one endpoint's requests go, parsed once per endpoint URL.
#[derive(Debug)]
pub(crate) struct Target {
    /// The base URL as configured and the endpoint's path under it (the cache key).
    base: String,
    endpoint: &'static str,
    /// The whole endpoint URL.
    url: String,
    /// `scheme://authority`: which pooled connections may carry the request.
    origin: Arc<str>,
    /// What the connector dials.
    connect: Uri,
    /// The request line's origin-form path (and query).
    path: Uri,
    /// The `Host` header (the port only when it is not the scheme's default).
    host: HeaderValue,
}

impl Target {
    /// Parses `base` (an absolute `http(s)` URL) joined with `endpoint`; an error names
    /// the joined URL and what is wrong with it.
    fn parse(base: &str, endpoint: &'static str) -> Result<Target, (String, String)> {
        let url = super::join(base, endpoint);
        let fail = |e: String| (url.clone(), e);
        let uri: Uri = url.parse().map_err(|e| fail(format!("{e}")))?;
        let (Some(scheme), Some(authority)) = (uri.scheme(), uri.authority()) else {
            return Err(fail("not an absolute URL".to_owned()));
        };
        let default_port = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            other => return Err(fail(format!("unsupported scheme `{other}`"))),
        };
        let host = match authority.port_u16() {
            Some(port) if port != default_port => format!("{}:{port}", authority.host()),
            _ => authority.host().to_owned(),
        };
        let connect = Uri::builder()
            .scheme(scheme.clone())
            .authority(authority.clone())
            .path_and_query("/")
            .build()
            .map_err(|e| fail(e.to_string()))?;
        let path = uri.path_and_query().map_or("/", |p| p.as_str());
        let path = path.parse().map_err(|e| fail(format!("{e}")))?;
        let host = HeaderValue::from_str(&host).map_err(|e| fail(e.to_string()))?;
        let origin = Arc::from(format!("{scheme}://{authority}"));
        Ok(Target {
            base: base.to_owned(),
            endpoint,
            url,
            origin,
            connect,
            path,
            host,
        })
    }

    /// The whole endpoint URL.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// A `POST` of `body` to this endpoint: origin-form path and `Host` set. Built in
    /// place rather than through `Request::builder`, whose every step moves the whole
    /// request.
    pub(crate) fn request(&self, body: Bytes) -> Request<Full<Bytes>> {
        let mut request = Request::new(Full::new(body));
        *request.method_mut() = hyper::Method::POST;
        *request.uri_mut() = self.path.clone();
        request.headers_mut().insert(HOST, self.host.clone());
        request
    }
}

struct Idle {
    origin: Arc<str>,
    sender: Sender,
    since: Instant,
}

struct Shared {
    idle: Mutex<Vec<Idle>>,
    targets: Mutex<Vec<Arc<Target>>>,
    idle_timeout: Duration,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Shared {
    /// Keeps a connection whose last reply was read to the end.
    fn put(&self, origin: Arc<str>, sender: Sender) {
        if sender.is_closed() {
            return;
        }
        let mut idle = lock(&self.idle);
        if idle.len() >= MAX_IDLE {
            idle.remove(0);
        }
        idle.push(Idle {
            origin,
            sender,
            since: Instant::now(),
        });
    }

    /// The most recently used open connection to `origin`, if any.
    fn take(&self, origin: &str) -> Option<Sender> {
        let mut idle = lock(&self.idle);
        let now = Instant::now();
        // Connections idle too long, or closed by the upstream, are dropped on the way.
        idle.retain(|i| !i.sender.is_closed() && now.duration_since(i.since) < self.idle_timeout);
        let at = idle.iter().rposition(|i| &*i.origin == origin)?;
        Some(idle.remove(at).sender)
    }
}

/// Connections to upstreams, by origin.
#[derive(Clone)]
pub(crate) struct Pool {
    shared: Arc<Shared>,
    connector: HttpsConnector<HttpConnector>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").finish_non_exhaustive()
    }
}

impl Pool {
    /// An empty pool dialing through `connector`; idle connections older than
    /// `idle_timeout` are not reused.
    pub(crate) fn new(connector: HttpsConnector<HttpConnector>, idle_timeout: Duration) -> Self {
        Pool {
            shared: Arc::new(Shared {
                idle: Mutex::new(Vec::new()),
                targets: Mutex::new(Vec::new()),
                idle_timeout,
            }),
            connector,
        }
    }

    /// The endpoint `endpoint` under `base` (parsed once, then shared); an error names
    /// the URL and what is wrong with it.
    pub(crate) fn target(
        &self,
        base: &str,
        endpoint: &'static str,
    ) -> Result<Arc<Target>, (String, String)> {
        let mut targets = lock(&self.shared.targets);
        if let Some(t) = targets
            .iter()
            .find(|t| t.endpoint == endpoint && t.base == base)
        {
            return Ok(Arc::clone(t));
        }
        let target = Arc::new(Target::parse(base, endpoint)?);
        targets.push(Arc::clone(&target));
        Ok(target)
    }

    /// Sends `request` (built by [`Target::request`]) and returns the reply once its
    /// head arrived; the body hands the connection back when read to the end.
    pub(crate) async fn send(
        &self,
        target: &Target,
        mut request: Request<Full<Bytes>>,
    ) -> Result<Response<PooledBody>, PoolError> {
        while let Some(mut sender) = self.shared.take(&target.origin) {
            if sender.ready().await.is_err() {
                continue;
            }
            match sender.try_send_request(request).await {
                Ok(reply) => return Ok(self.pooled(target, sender, reply)),
                Err(mut e) => match e.take_message() {
                    // Not sent (the connection had closed): another one may carry it.
                    Some(unsent) => request = unsent,
                    None => return Err(e.into_error().into()),
                },
            }
        }
        let mut sender = self.connect(target).await?;
        let reply = sender.send_request(request).await?;
        Ok(self.pooled(target, sender, reply))
    }

    async fn connect(&self, target: &Target) -> Result<Sender, PoolError> {
        let mut connector = self.connector.clone();
        std::future::poll_fn(|cx| connector.poll_ready(cx)).await?;
        let io = connector.call(target.connect.clone()).await?;
        let (sender, connection) = http1::handshake(io).await?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("upstream connection ended: {e}");
            }
        });
        Ok(sender)
    }

    fn pooled(
        &self,
        target: &Target,
        sender: Sender,
        reply: Response<Incoming>,
    ) -> Response<PooledBody> {
        let origin = Arc::clone(&target.origin);
        let shared = Arc::downgrade(&self.shared);
        reply.map(|body| {
            let mut pooled = PooledBody {
                body,
                back: Some((shared, origin, sender)),
            };
            // An empty reply is already complete: the connection is free now.
            if pooled.body.is_end_stream() {
                pooled.release();
            }
            pooled
        })
    }
}

/// An upstream reply body that returns its connection to the pool once read to the end.
pub struct PooledBody {
    body: Incoming,
    back: Option<(Weak<Shared>, Arc<str>, Sender)>,
}

impl PooledBody {
    fn release(&mut self) {
        if let Some((shared, origin, sender)) = self.back.take() {
            if let Some(shared) = shared.upgrade() {
                shared.put(origin, sender);
            }
        }
    }
}

impl std::fmt::Debug for PooledBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PooledBody").finish_non_exhaustive()
    }
}

impl Body for PooledBody {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        match &polled {
            Poll::Ready(None) => self.release(),
            Poll::Ready(Some(Ok(_))) if self.body.is_end_stream() => self.release(),
            Poll::Ready(Some(Err(_))) => self.back = None,
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl Drop for PooledBody {
    fn drop(&mut self) {
        // A reader may stop at the last frame without asking for the end (hyper's
        // server does, once the length is reached): the reply is still complete.
        if self.body.is_end_stream() {
            self.release();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// A raw HTTP/1.1 upstream on 127.0.0.1 answering `ok` to every request; counts the
    /// connections it accepted and, with `close_after_reply`, closes each connection
    /// right after its first reply (as an upstream whose keep-alive timed out).
    async fn upstream(close_after_reply: bool) -> (String, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&accepted);
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                counter.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 4096];
                    let mut seen = Vec::new();
                    loop {
                        let Ok(n) = socket.read(&mut buf).await else {
                            return;
                        };
                        if n == 0 {
                            return;
                        }
                        seen.extend_from_slice(&buf[..n]);
                        // Each test request is a head and a 2-byte body.
                        while let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                            if seen.len() < end + 4 + 2 {
                                break;
                            }
                            seen.drain(..end + 4 + 2);
                            let reply = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                            if socket.write_all(reply).await.is_err() || close_after_reply {
                                return;
                            }
                        }
                    }
                });
            }
        });
        (format!("http://{addr}/v1"), accepted)
    }

    fn pool() -> Pool {
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
            .unwrap()
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        Pool::new(connector, Duration::from_secs(90))
    }

    /// A call's reply body, unread.
    async fn reply(pool: &Pool, base: &str) -> PooledBody {
        let target = pool.target(base, "/chat/completions").unwrap();
        let request = target.request(Bytes::from_static(b"{}"));
        pool.send(&target, request).await.unwrap().into_body()
    }

    /// A call's reply, read to its end.
    async fn call(pool: &Pool, base: &str) -> Bytes {
        reply(pool, base).await.collect().await.unwrap().to_bytes()
    }

    #[tokio::test]
    async fn a_connection_carries_call_after_call() {
        let (base, accepted) = upstream(false).await;
        let pool = pool();
        for _ in 0..5 {
            assert_eq!(call(&pool, &base).await, "ok");
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_reply_read_up_to_its_length_returns_its_connection() {
        let (base, accepted) = upstream(false).await;
        let pool = pool();
        for _ in 0..3 {
            let mut body = reply(&pool, &base).await;
            // As hyper's server relays it: frames until the length is reached, then drop.
            while !body.is_end_stream() {
                body.frame().await.unwrap().unwrap();
            }
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_connection_the_upstream_closed_is_replaced() {
        let (base, accepted) = upstream(true).await;
        let pool = pool();
        for _ in 0..3 {
            assert_eq!(call(&pool, &base).await, "ok");
            // Let the connection task see the close, as a later call would.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_reply_dropped_half_read_does_not_return_its_connection() {
        let (base, accepted) = upstream(false).await;
        let pool = pool();
        let body = reply(&pool, &base).await;
        // The head arrived; the body is not read to its end before it is dropped.
        assert!(body.back.is_some());
        drop(body);
        assert_eq!(call(&pool, &base).await, "ok");
        assert_eq!(accepted.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn targets_keep_the_path_and_name_the_host_as_clients_do() {
        let t = Target::parse("https://api.example.com/openai/v1/", "/chat/completions").unwrap();
        assert_eq!(
            t.url(),
            "https://api.example.com/openai/v1/chat/completions"
        );
        assert_eq!(&*t.origin, "https://api.example.com");
        assert_eq!(t.path, "/openai/v1/chat/completions");
        assert_eq!(t.host, "api.example.com");
        assert_eq!(t.connect, "https://api.example.com/");
        let t = Target::parse("http://127.0.0.1:8080/v1", "/responses").unwrap();
        assert_eq!(t.host, "127.0.0.1:8080");
        let t = Target::parse("http://h:80/v1", "/responses").unwrap();
        assert_eq!(t.host, "h");
        let (url, why) = Target::parse("ftp://h/v1/", "/responses").unwrap_err();
        assert_eq!(
            (url.as_str(), why.as_str()),
            ("ftp://h/v1/responses", "unsupported scheme `ftp`")
        );
        assert!(Target::parse("/v1", "/responses").is_err());
    }
}
