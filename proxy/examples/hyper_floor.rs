//! The floor of a hyper-based HTTP/1 reverse proxy, as a control for
//! `bench/proxy_vs_nginx.sh`: one current-thread runtime, and per client connection one
//! upstream connection. Each request body is read whole and forwarded with the client's
//! method, path and headers; the reply streams back. There is no routing, trial lookup,
//! guard, pool, timeout or trace. Whatever cosec adds beyond this is its own work.
//!
//! `cargo build --release -p cosec-proxy --example hyper_floor`, then
//! `target/release/examples/hyper_floor 127.0.0.1:PORT UPSTREAM_HOST:PORT`.

// The allocator the shipped `cosec` binary uses, so the comparison is like for like.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::cell::RefCell;
use std::error::Error;
use std::net::SocketAddr;
use std::rc::Rc;
use tokio::net::{TcpListener, TcpStream};

type BoxError = Box<dyn Error + Send + Sync>;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(listen), Some(upstream)) = (args.next(), args.next()) else {
        eprintln!(
            "usage: hyper_floor LISTEN_ADDR UPSTREAM_ADDR (e.g. 127.0.0.1:18086 127.0.0.1:18081)"
        );
        std::process::exit(2);
    };
    let parse = |what: &str, v: &str| {
        v.parse::<SocketAddr>().unwrap_or_else(|e| {
            eprintln!("hyper_floor: {what} `{v}` is not an address like 127.0.0.1:8080: {e}");
            std::process::exit(2);
        })
    };
    let (listen, upstream) = (parse("listen", &listen), parse("upstream", &upstream));
    if let Err(e) = serve(listen, upstream) {
        eprintln!("hyper_floor: {e}");
        std::process::exit(1);
    }
}

fn serve(listen: SocketAddr, upstream: SocketAddr) -> Result<(), BoxError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async move {
        let listener = TcpListener::bind(listen).await?;
        loop {
            let (client, _) = listener.accept().await?;
            client.set_nodelay(true)?;
            tokio::task::spawn_local(async move {
                // The upstream connection of this client connection, once opened.
                let slot: Rc<RefCell<Option<SendRequest<Full<Bytes>>>>> = Rc::default();
                let service =
                    hyper::service::service_fn(move |req| relay(req, upstream, Rc::clone(&slot)));
                let served = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(client), service)
                    .await;
                if let Err(e) = served {
                    eprintln!("hyper_floor: client connection: {e}");
                }
            });
        }
    })
}

async fn relay(
    req: Request<Incoming>,
    upstream: SocketAddr,
    slot: Rc<RefCell<Option<SendRequest<Full<Bytes>>>>>,
) -> Result<Response<Incoming>, BoxError> {
    let (parts, body) = req.into_parts();
    let body = body.collect().await?.to_bytes();
    let reusable = slot.borrow_mut().take().filter(|s| !s.is_closed());
    let mut sender = match reusable {
        Some(sender) => sender,
        None => {
            let stream = TcpStream::connect(upstream).await?;
            stream.set_nodelay(true)?;
            let (sender, connection) =
                hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
            tokio::task::spawn_local(async move {
                if let Err(e) = connection.await {
                    eprintln!("hyper_floor: upstream connection: {e}");
                }
            });
            sender
        }
    };
    sender.ready().await?;
    let forwarded = Request::from_parts(parts, Full::new(body));
    let reply = sender.send_request(forwarded).await?;
    *slot.borrow_mut() = Some(sender);
    Ok(reply)
}
