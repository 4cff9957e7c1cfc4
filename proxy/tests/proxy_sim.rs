//! The proxy over real HTTP with a scripted simulated model: both wire formats,
//! streaming and not, a tool-call round trip, `/models`, 404s and the trace.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers outside #[test] fns

mod bare_trial;

use bare_trial::bare_trial;
use cosec_proxy::api::{ModelRequest, ModelResponse, Role, ToolCall, Usage, WireApi};
use cosec_proxy::registry::{ModelRoute, SimKind, Trial, TrialRegistry, TurnContext};
use cosec_proxy::server::{ModelBackend, ProxyServer, DEFAULT_ADDR};
use cosec_proxy::trace::{read_trace, TraceEvent, TraceWriter};
use cosec_scenarios::{CommunityId, Time, UserId};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Calls `post_message` first; once a tool result is in the history, answers with it.
#[derive(Default)]
struct Scripted {
    turns_seen: Mutex<Vec<u8>>,
}

impl ModelBackend for Scripted {
    fn respond(
        &self,
        _trial: &Trial,
        turn: &TurnContext,
        request: &ModelRequest,
    ) -> Result<ModelResponse, String> {
        self.turns_seen.lock().unwrap().push(turn.turn);
        let last = request.messages.last().ok_or("empty conversation")?;
        if last.content == "fail" {
            return Err("scripted failure".into());
        }
        let usage = Usage {
            input_tokens: 11,
            output_tokens: 4,
            cached_input_tokens: 0,
        };
        if last.role == Role::Tool {
            return Ok(ModelResponse {
                text: format!(
                    "tool said {} (for {})",
                    last.content,
                    last.tool_call_id.clone().unwrap_or_default()
                ),
                tool_calls: vec![],
                usage,
            });
        }
        Ok(ModelResponse {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: String::new(),
                name: "post_message".into(),
                namespace: None,
                arguments: r#"{"community":"club","text":"hello"}"#.into(),
            }],
            usage,
        })
    }
}

fn trial(dir: &Path, id: &str, model: ModelRoute) -> Arc<Trial> {
    let trace = TraceWriter::open(&dir.join(format!("{id}.jsonl"))).unwrap();
    bare_trial(id, model, dir, trace)
}

struct Fixture {
    _dir: tempfile::TempDir,
    server: ProxyServer,
    trial: Arc<Trial>,
    backend: Arc<Scripted>,
    http: reqwest::Client,
}

impl Fixture {
    async fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let registry = TrialRegistry::new();
        let trial = trial(dir.path(), "t1", ModelRoute::Sim(SimKind::Comply));
        trial.set_turn(TurnContext {
            turn: 3,
            community: CommunityId("club".into()),
            requester: Some(UserId("alice".into())),
            time: Time(30),
            earlier_requesters: Vec::new(),
        });
        registry.insert(Arc::clone(&trial));
        let backend = Arc::new(Scripted::default());
        let server = ProxyServer::bind(DEFAULT_ADDR, registry, backend.clone())
            .await
            .unwrap();
        Fixture {
            _dir: dir,
            server,
            trial,
            backend,
            http: reqwest::Client::new(),
        }
    }

    fn url(&self, rest: &str) -> String {
        format!("{}/{rest}", self.server.base_url("t1"))
    }

    async fn post(&self, rest: &str, body: Value) -> reqwest::Response {
        self.http
            .post(self.url(rest))
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    fn model_calls(&self) -> Vec<TraceEvent> {
        read_trace(self.trial.trace.path())
            .unwrap()
            .into_iter()
            .map(|l| l.event)
            .filter(|e| matches!(e, TraceEvent::ModelCall { .. }))
            .collect()
    }
}

/// `data:` payloads of a Chat Completions stream, parsed independently of the crate.
fn chat_chunks(text: &str) -> Vec<String> {
    text.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|b| b.strip_prefix("data: ").unwrap().to_owned())
        .collect()
}

/// `(event, data)` pairs of a Responses stream.
fn named_events(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|b| {
            let (ev, data) = b.split_once('\n').unwrap();
            let name = ev.strip_prefix("event: ").unwrap().to_owned();
            let data: Value = serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap();
            assert_eq!(data["type"], json!(name));
            (name, data)
        })
        .collect()
}

async fn body_text(resp: reqwest::Response) -> String {
    let mut out = Vec::new();
    let mut s = resp.bytes_stream();
    while let Some(chunk) = s.next().await {
        out.extend_from_slice(&chunk.unwrap());
    }
    String::from_utf8(out).unwrap()
}

#[tokio::test]
async fn chat_non_streaming_tool_round_trip_is_answered_and_traced() {
    let f = Fixture::new().await;
    let first = f
        .post("chat/completions", json!({"model": "m", "messages": [{"role": "user", "content": "post it"}],
            "tools": [{"type": "function", "function": {"name": "post_message", "description": "d", "parameters": {"type": "object"}}}]}))
        .await;
    assert_eq!(first.status(), 200);
    let v: Value = first.json().await.unwrap();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
    let call = &v["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["type"], "function");
    assert_eq!(call["function"]["name"], "post_message");
    let call_id = call["id"].as_str().unwrap().to_owned();
    assert!(!call_id.is_empty());
    assert_eq!(v["usage"]["prompt_tokens"], 11);

    let second = f
        .post(
            "chat/completions",
            json!({"model": "m", "messages": [
                {"role": "user", "content": [{"type": "text", "text": "post it"}]},
                {"role": "assistant", "content": null, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": call_id, "content": "posted #42"}
            ]}),
        )
        .await;
    let v: Value = second.json().await.unwrap();
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    assert_eq!(
        v["choices"][0]["message"]["content"],
        format!("tool said posted #42 (for {call_id})")
    );

    let calls = f.model_calls();
    assert_eq!(calls.len(), 2);
    let TraceEvent::ModelCall {
        turn,
        api,
        stream,
        request,
        response,
        usage,
        error,
        ..
    } = &calls[1]
    else {
        unreachable!()
    };
    assert_eq!((*turn, *api, *stream), (3, WireApi::ChatCompletions, false));
    assert_eq!(request.messages[1].tool_calls[0].name, "post_message");
    assert_eq!(request.messages[2].role, Role::Tool);
    assert!(response.as_ref().unwrap().text.contains("posted #42"));
    assert_eq!(usage.output_tokens, 4);
    assert!(error.is_none());
    assert_eq!(*f.backend.turns_seen.lock().unwrap(), vec![3, 3]);
}

#[tokio::test]
async fn chat_streaming_sends_role_tool_deltas_finish_usage_and_done() {
    let f = Fixture::new().await;
    let resp = f
        .post(
            "chat/completions",
            json!({"model": "m", "stream": true, "stream_options": {"include_usage": true},
            "messages": [{"role": "user", "content": "post it"}]}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/event-stream"));
    let chunks = chat_chunks(&body_text(resp).await);
    assert_eq!(chunks.last().unwrap(), "[DONE]");
    let json: Vec<Value> = chunks[..chunks.len() - 1]
        .iter()
        .map(|c| serde_json::from_str(c).unwrap())
        .collect();
    assert_eq!(json[0]["choices"][0]["delta"]["role"], "assistant");
    let named = json
        .iter()
        .find_map(|c| {
            c["choices"][0]["delta"]["tool_calls"][0]
                .get("id")
                .map(|_| c.clone())
        })
        .unwrap();
    let tc = &named["choices"][0]["delta"]["tool_calls"][0];
    assert_eq!(
        (tc["index"].clone(), tc["type"].clone()),
        (json!(0), json!("function"))
    );
    assert_eq!(tc["function"]["name"], "post_message");
    let args: String = json
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str())
        .collect();
    assert_eq!(args, r#"{"community":"club","text":"hello"}"#);
    assert!(json
        .iter()
        .any(|c| c["choices"][0]["finish_reason"] == "tool_calls"));
    let usage = json.last().unwrap();
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(usage["usage"]["total_tokens"], 15);
    let calls = f.model_calls();
    assert!(matches!(
        &calls[..],
        [TraceEvent::ModelCall { stream: true, .. }]
    ));
}

#[tokio::test]
async fn responses_streaming_round_trip_carries_namespace_and_tool_output() {
    let f = Fixture::new().await;
    let tools = json!([{"type": "namespace", "name": "mcp__cosec",
        "tools": [{"type": "function", "name": "post_message", "parameters": {"type": "object"}}]}]);
    let resp = f
        .post("responses", json!({"model": "m", "stream": true, "tools": tools, "input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "sys"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "post it"}]}]}))
        .await;
    assert_eq!(resp.status(), 200);
    let events = named_events(&body_text(resp).await);
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"response.created"));
    assert_eq!(names.last(), Some(&"response.completed"));
    assert!(names.contains(&"response.output_item.added"));
    let item = events
        .iter()
        .find(|(n, d)| n == "response.output_item.done" && d["item"]["type"] == "function_call")
        .map(|(_, d)| d["item"].clone())
        .unwrap();
    assert_eq!(item["namespace"], "mcp__cosec");
    assert_eq!(item["name"], "post_message");
    let usage = &events.last().unwrap().1["response"]["usage"];
    assert_eq!(
        (usage["input_tokens"].clone(), usage["total_tokens"].clone()),
        (json!(11), json!(15))
    );

    let resp = f
        .post("responses", json!({"model": "m", "stream": true, "tools": tools, "input": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "post it"}]},
            item,
            {"type": "function_call_output", "call_id": item["call_id"], "output": [{"type": "input_text", "text": "posted #7"}]}]}))
        .await;
    let events = named_events(&body_text(resp).await);
    let deltas: String = events
        .iter()
        .filter(|(n, _)| n == "response.output_text.delta")
        .map(|(_, d)| d["delta"].as_str().unwrap().to_owned())
        .collect();
    assert!(deltas.starts_with("tool said posted #7"), "{deltas}");
    let done = events
        .iter()
        .find(|(n, _)| n == "response.output_item.done")
        .unwrap();
    assert_eq!(done.1["item"]["content"][0]["type"], "output_text");

    let calls = f.model_calls();
    let TraceEvent::ModelCall {
        api,
        request,
        response,
        ..
    } = &calls[1]
    else {
        unreachable!()
    };
    assert_eq!(*api, WireApi::Responses);
    assert_eq!(
        request.messages[1].tool_calls[0].namespace.as_deref(),
        Some("mcp__cosec")
    );
    assert_eq!(request.messages[2].content, "posted #7");
    assert!(response.as_ref().unwrap().tool_calls.is_empty());
}

#[tokio::test]
async fn responses_non_streaming_with_string_input_and_instructions() {
    let f = Fixture::new().await;
    let resp = f
        .post(
            "responses",
            json!({"model": "m", "instructions": "be brief", "input": "post it",
            "tools": [{"type": "function", "name": "post_message", "parameters": {}}]}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["object"], "response");
    assert_eq!(v["status"], "completed");
    assert_eq!(v["output"][0]["type"], "function_call");
    assert!(
        v["output"][0].get("namespace").is_none(),
        "flat tools have no namespace"
    );
    assert_eq!(v["usage"]["output_tokens"], 4);
    let calls = f.model_calls();
    let TraceEvent::ModelCall { request, .. } = &calls[0] else {
        unreachable!()
    };
    assert_eq!(request.messages[0].role, Role::System);
    assert_eq!(request.messages[1].content, "post it");
}

#[tokio::test]
async fn models_lists_the_trial_model_and_other_paths_are_json_404s() {
    let f = Fixture::new().await;
    let v: Value = f
        .http
        .get(f.url("models"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["data"][0]["id"], "sim:comply");
    let base = format!("http://{}", f.server.local_addr());
    for url in [
        format!("{base}/t/t1/api/v1/models"),
        format!("{base}/api/v1/models"),
        format!("{base}/t/nope/v1/models"),
        format!("{base}/t/t1/v1/embeddings"),
    ] {
        let resp = f.http.get(&url).send().await.unwrap();
        assert_eq!(resp.status(), 404, "{url}");
        let v: Value = resp.json().await.unwrap();
        assert!(v["error"]["message"].is_string(), "{url}");
    }
    let resp = f
        .http
        .post(format!("{base}/t/nope/v1/chat/completions"))
        .json(&json!({"messages": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
}

#[tokio::test]
async fn bad_requests_and_backend_failures_are_json_errors_not_crashes() {
    let f = Fixture::new().await;
    let resp = f
        .http
        .post(f.url("chat/completions"))
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    let resp = f.post("responses", json!({"input": 42})).await;
    assert_eq!(resp.status(), 400);
    let resp = f
        .post(
            "chat/completions",
            json!({"messages": [{"role": "user", "content": "fail"}]}),
        )
        .await;
    assert_eq!(resp.status(), 500);
    let v: Value = resp.json().await.unwrap();
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("scripted failure"));
    // The server still answers after all of that.
    let resp = f
        .post(
            "chat/completions",
            json!({"messages": [{"role": "user", "content": "hi"}]}),
        )
        .await;
    assert_eq!(resp.status(), 200);
    let calls = f.model_calls();
    assert_eq!(calls.len(), 2, "unparseable requests are not model calls");
    let TraceEvent::ModelCall {
        error, response, ..
    } = &calls[0]
    else {
        unreachable!()
    };
    assert!(error.as_deref().unwrap().contains("scripted failure"));
    assert!(response.is_none());
}

#[tokio::test]
async fn shutdown_closes_the_listener() {
    let f = Fixture::new().await;
    let addr = f.server.local_addr();
    assert!(addr.ip().is_loopback());
    f.server.shutdown().await;
    let err = f
        .http
        .get(format!("http://{addr}/t/t1/v1/models"))
        .send()
        .await;
    assert!(err.is_err());
}
