//! What one client may hold of the guarded proxy, over real HTTP on 127.0.0.1: a body
//! above the limit is answered 413, a body that does not arrive 408, a request head
//! that does not arrive closes the connection; at the connection cap an idle
//! connection makes room for a new one and a cap of busy connections answers 503;
//! 2,000 idle connections do not keep normal requests out; a large request is worked
//! on off the listener thread, so a small one sent after it is answered first.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod guard_fixture;
mod guard_server;

use cosec_proxy::api::ModelResponse;
use cosec_proxy::server::limits::ServerLimits;
use guard_fixture::OLE_POST;
use guard_server::{Options, Setup};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn small_body() -> Value {
    json!({"model": "m", "messages": [{"role": "user", "content": "When is the walk?"}]})
}

fn limits() -> ServerLimits {
    ServerLimits {
        max_body: 64 * 1024,
        max_connections: 64,
        header_timeout: Duration::from_secs(1),
        body_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(5),
    }
}

async fn setup(limits: ServerLimits) -> Setup {
    let s = Setup::new(Options {
        limits,
        ..Options::default()
    })
    .await;
    *s.canned.0.lock().unwrap() = ModelResponse {
        text: "Sunday at nine.".into(),
        ..ModelResponse::default()
    };
    s
}

fn addr(s: &Setup) -> SocketAddr {
    s.server.local_addr()
}

/// Everything the server sends until it closes the connection (or 10 s pass).
async fn read_all(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

/// One normal request on a fresh connection: its status.
async fn normal(s: &Setup) -> u16 {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let url = format!("{}/chat/completions", s.server.base_url("sim"));
    let resp = tokio::time::timeout(
        Duration::from_secs(20),
        http.post(url).json(&small_body()).send(),
    )
    .await
    .expect("a normal request must be answered")
    .unwrap();
    resp.status().as_u16()
}

#[tokio::test]
async fn large_bodies_get_413_and_slow_clients_are_cut_off() {
    let s = setup(limits()).await;
    let big = json!({"model": "m", "messages": [{"role": "user", "content": "x".repeat(100_000)}]});
    let (status, text) = s.post("sim", "chat/completions", &big).await;
    assert_eq!(status, 413, "{text}");
    assert!(
        text.contains("--max-body") && text.contains("65536"),
        "{text}"
    );
    // Without a content length the body is counted as it comes.
    let mut raw = TcpStream::connect(addr(&s)).await.unwrap();
    let head = "POST /t/sim/v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    raw.write_all(head.as_bytes()).await.unwrap();
    let chunk = "a".repeat(32 * 1024);
    for _ in 0..3 {
        let framed = format!("{:x}\r\n{chunk}\r\n", chunk.len());
        if raw.write_all(framed.as_bytes()).await.is_err() {
            break;
        }
    }
    let answer = read_all(&mut raw).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");

    // A body that stops arriving: 408 after the body timeout.
    let mut raw = TcpStream::connect(addr(&s)).await.unwrap();
    let head = "POST /t/sim/v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"model\":";
    raw.write_all(head.as_bytes()).await.unwrap();
    let answer = read_all(&mut raw).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("did not arrive within 1 s"), "{answer}");

    // A head that stops arriving: the connection is closed.
    let mut raw = TcpStream::connect(addr(&s)).await.unwrap();
    raw.write_all(b"POST /t/sim/v1/chat/completions HTTP/1.1\r\nhost: x\r\n")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let answer = read_all(&mut raw).await;
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "closed by the header timeout, not the test's"
    );
    assert!(!answer.contains("200 OK"), "{answer}");
    assert_eq!(normal(&s).await, 200);
}

#[tokio::test]
async fn at_the_cap_idle_connections_make_room_and_busy_ones_get_503() {
    let s = setup(ServerLimits {
        max_connections: 4,
        header_timeout: Duration::from_secs(60),
        body_timeout: Duration::from_secs(60),
        ..limits()
    })
    .await;
    // Four idle connections fill the table; a fifth client still gets in, in the
    // place of the longest idle one, which is closed.
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(addr(&s)).await.unwrap());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(normal(&s).await, 200);
    let mut first = idle.remove(0);
    let mut buf = [0u8; 16];
    let n = tokio::time::timeout(Duration::from_secs(5), first.read(&mut buf))
        .await
        .expect("the longest idle connection is closed")
        .unwrap_or(0);
    assert_eq!(n, 0);

    // Four connections each in the middle of a request: nothing can make room.
    drop(idle);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut busy = Vec::new();
    for _ in 0..4 {
        let mut raw = TcpStream::connect(addr(&s)).await.unwrap();
        raw.write_all(b"POST /t/sim/v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{")
            .await
            .unwrap();
        busy.push(raw);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let url = format!("{}/chat/completions", s.server.base_url("sim"));
    let resp = reqwest::Client::new()
        .post(url)
        .json(&small_body())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 503);
    assert_eq!(resp.headers()["retry-after"], "1");
    let text = resp.text().await.unwrap();
    assert!(text.contains("connection cap"), "{text}");
    // Once they are gone, clients are served again.
    drop(busy);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(normal(&s).await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_idle_connections_do_not_keep_clients_out() {
    // Each idle connection holds a descriptor on both ends.
    rlimit::increase_nofile_limit(10_000).unwrap();
    let s = setup(ServerLimits {
        header_timeout: Duration::from_secs(120),
        ..ServerLimits::default()
    })
    .await;
    let mut idle = Vec::with_capacity(2000);
    for i in 0..2000 {
        let mut c = TcpStream::connect(addr(&s)).await.unwrap();
        if i % 2 == 0 {
            // Half of them send half a request head and stop.
            c.write_all(b"POST /t/sim/v1/chat/completions HTTP/1.1\r\nhost: x\r\n")
                .await
                .unwrap();
        }
        idle.push(c);
    }
    for _ in 0..8 {
        assert_eq!(normal(&s).await, 200);
    }
    // Past the default cap's reach too: with a cap of 500 the idle ones make room.
    let s = setup(ServerLimits {
        max_connections: 500,
        header_timeout: Duration::from_secs(120),
        ..ServerLimits::default()
    })
    .await;
    let mut more = Vec::with_capacity(2000);
    for _ in 0..2000 {
        more.push(TcpStream::connect(addr(&s)).await.unwrap());
    }
    for _ in 0..8 {
        assert_eq!(normal(&s).await, 200);
    }
    drop((idle, more));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_request_does_not_hold_up_a_small_one_on_the_same_listener_thread() {
    let s = Setup::new(Options {
        threads: 1,
        ..Options::default()
    })
    .await;
    *s.canned.0.lock().unwrap() = ModelResponse {
        text: "ok".into(),
        ..ModelResponse::default()
    };
    // About 12 MB of history, the protected post among it, for the guard to read.
    let filler =
        "The club meets at the car park at nine and walks the ridge before lunch. ".repeat(2000);
    let mut messages = vec![json!({"role": "user", "content": OLE_POST})];
    for i in 0..80 {
        // Each message differs, so each is read.
        messages.push(json!({"role": "user", "content": format!("{filler} (note {i})")}));
    }
    let large = json!({"model": "m", "messages": messages});
    let url = format!("{}/chat/completions", s.server.base_url("sim"));
    let http = reqwest::Client::new();
    let big = {
        let http = http.clone();
        let url = url.clone();
        tokio::spawn(async move {
            let resp = http.post(url).json(&large).send().await.unwrap();
            let status = resp.status().as_u16();
            (status, std::time::Instant::now())
        })
    };
    // Let the large body reach the proxy before the small request.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let small = http.post(&url).json(&small_body()).send().await.unwrap();
    assert_eq!(small.status(), 200);
    let small_done = std::time::Instant::now();
    let (status, big_done) = big.await.unwrap();
    assert_eq!(status, 200);
    assert!(
        small_done < big_done,
        "the small request was answered while the large one was being read"
    );
}
