//! Forwarding to an upstream over real HTTP: a fake OpenAI-compatible server on
//! 127.0.0.1 checks what arrives, holds a stream open to prove pass-through, and
//! fails on demand; the trace must never contain the API key.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers outside #[test] fns

mod bare_trial;
mod upstream_fake;

use bytes::Bytes;
use cosec_proxy::api::WireApi;
use cosec_proxy::trace::TraceEvent;
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::time::Duration;
use upstream_fake::{Fixture, KEY};

#[tokio::test]
async fn chat_stream_is_passed_through_before_the_upstream_finishes() {
    let mut f = Fixture::new().await;
    let body = json!({"model": "client-model", "stream": true,
        "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "hi"}]});
    let mut got = String::new();
    // The upstream holds the rest of its stream until the test releases it, so a proxy
    // that buffered to the end would time out here.
    let mut stream = tokio::time::timeout(Duration::from_secs(5), async {
        let resp = f.post("keyed", "chat/completions", body).await;
        assert_eq!(resp.status(), 200);
        let mut stream = resp.bytes_stream();
        while !got.contains("first") {
            got.push_str(std::str::from_utf8(&stream.next().await.unwrap().unwrap()).unwrap());
        }
        stream
    })
    .await
    .expect("the first chunk must reach the client while the upstream is still held open");
    assert!(!got.contains("second"));
    assert!(
        f.model_calls("keyed").is_empty(),
        "traced only once the stream ends"
    );

    f.release.take().unwrap().send(()).unwrap();
    while let Some(chunk) = stream.next().await {
        got.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
    }
    assert!(got.contains(" second") && got.trim_end().ends_with("data: [DONE]"));

    let seen = f.seen.lock().unwrap().clone();
    assert_eq!(seen[0].path, "/v1/chat/completions");
    assert_eq!(seen[0].auth.as_deref(), Some("Bearer sk-secret-123"));
    assert_eq!(seen[0].body["model"], "up-model");
    assert_eq!(
        seen[0].body["stream_options"]["include_usage"], true,
        "other fields pass unchanged"
    );

    let calls = f.model_calls("keyed");
    let [TraceEvent::ModelCall {
        api,
        stream,
        request,
        response,
        usage,
        error,
        ..
    }] = &calls[..]
    else {
        panic!("one model call expected: {calls:?}")
    };
    assert_eq!((*api, *stream), (WireApi::ChatCompletions, true));
    assert_eq!(request.model, "client-model");
    assert_eq!(response.as_ref().unwrap().text, "first second");
    assert_eq!((usage.input_tokens, usage.output_tokens), (20, 2));
    assert!(error.is_none(), "{error:?}");
    assert!(!f.trace_text("keyed").contains(KEY));
}

#[tokio::test]
async fn non_streaming_chat_is_forwarded_verbatim() {
    let f = Fixture::new().await;
    let resp = f
        .post(
            "keyed",
            "chat/completions",
            json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["choices"][0]["message"]["content"], "upstream says hi");
    let calls = f.model_calls("keyed");
    let [TraceEvent::ModelCall {
        response,
        usage,
        stream: false,
        ..
    }] = &calls[..]
    else {
        panic!("{calls:?}")
    };
    assert_eq!(response.as_ref().unwrap().text, "upstream says hi");
    assert_eq!(usage.input_tokens, 9);
}

#[tokio::test]
async fn responses_stream_without_key_is_forwarded_and_assembled() {
    let f = Fixture::new().await;
    let resp = f
        .post(
            "open",
            "responses",
            json!({"model": "m", "stream": true, "input": "hi"}),
        )
        .await;
    let text = resp.text().await.unwrap();
    assert!(text.contains("event: response.completed"));
    let seen = f.seen.lock().unwrap().clone();
    assert_eq!(seen[0].path, "/v1/responses");
    assert_eq!(seen[0].auth, None, "no key, no Authorization header");
    let calls = f.model_calls("open");
    let [TraceEvent::ModelCall {
        api,
        response,
        usage,
        error,
        ..
    }] = &calls[..]
    else {
        panic!("{calls:?}")
    };
    assert_eq!(*api, WireApi::Responses);
    let call = &response.as_ref().unwrap().tool_calls[0];
    assert_eq!(
        (call.namespace.as_deref(), call.name.as_str()),
        (Some("mcp__cosec"), "post_message")
    );
    assert_eq!(usage.output_tokens, 5);
    assert!(error.is_none());
}

#[tokio::test]
async fn upstream_failures_are_502_with_a_keyless_error_in_the_trace() {
    let f = Fixture::new().await;
    for trial in ["bad", "down"] {
        let resp = f
            .post(trial, "chat/completions", json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}))
            .await;
        assert_eq!(resp.status(), 502, "{trial}");
        let v: Value = resp.json().await.unwrap();
        assert_eq!(v["error"]["type"], "upstream_error");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("upstream: "), "{message}");
        assert!(!message.contains(KEY), "{message}");
        let calls = f.model_calls(trial);
        let [TraceEvent::ModelCall {
            error: Some(error),
            response: None,
            upstream_retries: 2,
            ..
        }] = &calls[..]
        else {
            panic!("{calls:?}")
        };
        assert!(error.starts_with("upstream: "), "{error}");
        assert!(error.ends_with("(after 2 retries)"), "{error}");
        assert!(!f.trace_text(trial).contains(KEY), "{trial}");
    }
    let bad = f.model_calls("bad");
    let TraceEvent::ModelCall {
        error: Some(error), ..
    } = &bad[0]
    else {
        unreachable!()
    };
    assert!(
        error.contains("HTTP 500") && error.contains("invalid key Bearer ***"),
        "{error}"
    );
}

#[tokio::test]
async fn an_untraced_unguarded_call_is_forwarded_byte_for_byte() {
    let mut f = Fixture::new().await;
    // Odd spacing, key order and an unknown field: a proxy that re-encoded the JSON
    // would change these bytes.
    let raw = "{ \"messages\":[{\"role\":\"user\",\"content\":\"hi \\u00e9\"}],  \"model\":\"client-model\",\"x_vendor\":1.50}";
    let url = format!("{}/chat/completions", f.server.base_url("plain"));
    let resp = f
        .http
        .post(&url)
        .header("content-type", "application/json")
        .body(raw)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        resp.headers()["content-type"],
        "application/json",
        "a reply without a content type is labeled JSON"
    );
    let reply: Value = resp.json().await.unwrap();
    assert_eq!(
        reply["choices"][0]["message"]["content"],
        "upstream says hi"
    );
    let seen = f.seen.lock().unwrap().clone();
    assert_eq!(seen[0].raw, Bytes::from(raw), "forwarded byte for byte");
    assert_eq!(seen[0].auth, None, "no key configured, none invented");

    // Streams are relayed as they come, not when the upstream finishes.
    let body = json!({"model": "client-model", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let resp = f.post("plain", "chat/completions", body).await;
    assert_eq!(resp.status(), 200);
    let mut stream = resp.bytes_stream();
    let mut got = String::new();
    tokio::time::timeout(Duration::from_secs(5), async {
        while !got.contains("first") {
            got.push_str(std::str::from_utf8(&stream.next().await.unwrap().unwrap()).unwrap());
        }
    })
    .await
    .expect("the first chunk must arrive while the upstream holds the rest");
    f.release.take().unwrap().send(()).unwrap();
    while let Some(chunk) = stream.next().await {
        got.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
    }
    assert!(got.contains(" second") && got.trim_end().ends_with("data: [DONE]"));

    // An upstream that is not there is still a readable 502.
    let resp = f
        .post(
            "plain-down",
            "chat/completions",
            json!({"model": "m", "messages": []}),
        )
        .await;
    assert_eq!(resp.status(), 502);
    let v: Value = resp.json().await.unwrap();
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("upstream: request to"));
    assert!(
        !f.dir.path().join("plain.jsonl").exists(),
        "nothing written for untraced trials"
    );
}

#[tokio::test]
async fn calls_one_after_another_reuse_one_upstream_connection() {
    let f = Fixture::new().await;
    let body = json!({"model": "client-model", "messages": [{"role": "user", "content": "hi"}]});
    for _ in 0..4 {
        // Relayed unparsed: the reply keeps the upstream's length rather than chunks.
        let resp = f.post("plain", "chat/completions", body.clone()).await;
        assert_eq!(resp.status(), 200);
        let length = resp.headers().get("content-length").cloned();
        let text = resp.bytes().await.unwrap();
        assert_eq!(length.unwrap(), text.len().to_string().as_str());
    }
    for _ in 0..2 {
        let resp = f.post("open", "chat/completions", body.clone()).await;
        assert_eq!(resp.status(), 200);
        resp.bytes().await.unwrap();
    }
    assert_eq!(f.seen.lock().unwrap().len(), 6);
    assert_eq!(
        f.connections.load(Ordering::SeqCst),
        1,
        "each call went upstream on the connection the previous one used"
    );
}

#[tokio::test]
async fn a_client_that_leaves_after_the_final_event_is_traced_as_complete() {
    let mut f = Fixture::new().await;
    let body = json!({"model": "client-model", "stream": true, "input": "hi",
        "metadata": {"hold_end": true}});
    let resp = f.post("keyed", "responses", body).await;
    let mut stream = resp.bytes_stream();
    let mut got = String::new();
    while !got.contains("event: response.completed") {
        got.push_str(std::str::from_utf8(&stream.next().await.unwrap().unwrap()).unwrap());
    }
    // The client has the whole reply and hangs up while the upstream's stream is open.
    drop(stream);
    let calls = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let calls = f.model_calls("keyed");
            if !calls.is_empty() {
                return calls;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the call is traced once the client is gone");
    f.release.take().unwrap().send(()).unwrap();
    let [TraceEvent::ModelCall {
        response: Some(response),
        error,
        ..
    }] = &calls[..]
    else {
        panic!("{calls:?}")
    };
    assert_eq!(error, &None, "{response:?}");
    assert_eq!(response.tool_calls.len(), 1);
    assert_eq!(response.usage.output_tokens, 5);
}

#[tokio::test]
async fn a_client_that_leaves_mid_stream_is_traced_as_disconnected() {
    let mut f = Fixture::new().await;
    let body = json!({"model": "client-model", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let resp = f.post("keyed", "chat/completions", body).await;
    let mut stream = resp.bytes_stream();
    let first = stream.next().await.unwrap().unwrap();
    assert!(std::str::from_utf8(&first).unwrap().contains("first"));
    drop(stream);
    // The upstream goes on; the proxy finds the client gone when it relays.
    f.release.take().unwrap().send(()).unwrap();
    let calls = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let calls = f.model_calls("keyed");
            if !calls.is_empty() {
                return calls;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the call is traced once the client is gone");
    let [TraceEvent::ModelCall {
        response: Some(response),
        error: Some(error),
        ..
    }] = &calls[..]
    else {
        panic!("{calls:?}")
    };
    assert_eq!(error, "client disconnected during the stream");
    assert!(response.text.starts_with("first"), "{response:?}");
}
