//! The client side of Hermes's ACP server (Agent Client Protocol: JSON-RPC 2.0 in JSON
//! lines over the process's stdin and stdout): `initialize` once, `session/new` per
//! community, `session/prompt` per delivery with the `session/update` notifications it
//! streams, and answers to what the server asks the client. CoSec offers the server no
//! client file system and no terminal, so Hermes uses its own tools inside the sandbox
//! exactly as the one-shot CLI does.

use crate::harness::native::lines::{JsonLines, LineError};
use serde_json::{json, Value};
use std::path::Path;
use tokio::time::Instant;

/// The ACP protocol version spoken.
pub const PROTOCOL_VERSION: u64 = 1;

/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i64 = -32601;

/// Why an exchange with the ACP server failed.
#[derive(Debug, thiserror::Error)]
pub enum AcpError {
    /// The pipe, the deadline or the framing failed.
    #[error(transparent)]
    Line(#[from] LineError),
    /// The server answered a request with an error.
    #[error("{method} was refused: {message}")]
    Refused {
        /// The request.
        method: &'static str,
        /// The server's error, as it wrote it.
        message: String,
    },
    /// An answer without what the protocol promises.
    #[error("{method} answered without {missing}: {answer}")]
    Malformed {
        /// The request.
        method: &'static str,
        /// The field that is missing.
        missing: &'static str,
        /// The answer, shortened.
        answer: String,
    },
}

/// What one `session/prompt` produced.
#[derive(Debug, Default)]
pub struct Prompted {
    /// Why the turn ended (`end_turn`, `max_tokens`, `refusal`, `cancelled`, ...).
    pub stop_reason: String,
    /// The agent's message chunks, joined.
    pub text: String,
    /// The internal Hermes session the turn ended in, when the server said it moved
    /// (a compression continues a long session under a new id).
    pub moved_to: Option<String>,
    /// Every notification of the turn, one JSON line each (evidence).
    pub updates: Vec<String>,
}

/// A running ACP server.
pub struct Acp {
    lines: JsonLines,
    next_id: u64,
}

impl Acp {
    /// Introduces the client to the server on `lines` (no client file system, no
    /// terminal).
    pub async fn initialize(lines: JsonLines, deadline: Instant) -> Result<Acp, AcpError> {
        let mut acp = Acp { lines, next_id: 0 };
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": {
                "fs": {"readTextFile": false, "writeTextFile": false},
                "terminal": false,
            },
        });
        acp.request("initialize", params, deadline, &mut |_| {})
            .await?;
        Ok(acp)
    }

    /// The live process's stderr.
    pub fn stderr(&self) -> &crate::sandbox::live::StderrLog {
        self.lines.stderr()
    }

    /// Opens a session working in `cwd`; its id.
    pub async fn new_session(&mut self, cwd: &Path, deadline: Instant) -> Result<String, AcpError> {
        let params = json!({"cwd": cwd.to_string_lossy(), "mcpServers": []});
        let answer = self
            .request("session/new", params, deadline, &mut |_| {})
            .await?;
        match answer.get("sessionId").and_then(Value::as_str) {
            Some(id) if !id.is_empty() => Ok(id.to_owned()),
            _ => Err(malformed("session/new", "sessionId", &answer)),
        }
    }

    /// Sends `text` as the user's turn in `session` and follows the turn to its end.
    pub async fn prompt(
        &mut self,
        session: &str,
        text: &str,
        deadline: Instant,
    ) -> Result<Prompted, AcpError> {
        let params = json!({
            "sessionId": session,
            "prompt": [{"type": "text", "text": text}],
        });
        let mut out = Prompted::default();
        let answer = self
            .request("session/prompt", params, deadline, &mut |update| {
                follow(&mut out, update)
            })
            .await?;
        out.stop_reason = answer
            .get("stopReason")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if out.stop_reason.is_empty() {
            return Err(malformed("session/prompt", "stopReason", &answer));
        }
        Ok(out)
    }

    /// Closes the server's stdin and ends the process.
    pub async fn end(self) {
        self.lines.end().await;
    }

    /// Sends the request `method` and reads until its answer, passing notifications to
    /// `on_update` and answering the server's own requests on the way.
    async fn request(
        &mut self,
        method: &'static str,
        params: Value,
        deadline: Instant,
        on_update: &mut (dyn FnMut(&Value) + Send),
    ) -> Result<Value, AcpError> {
        self.next_id += 1;
        let id = self.next_id;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.lines.send(&request).await?;
        loop {
            let message = self.lines.next(deadline).await?;
            if message.get("method").is_some() {
                if message.get("id").is_some() {
                    let answer = answer_to(&message);
                    self.lines.send(&answer).await?;
                } else {
                    on_update(&message);
                }
                continue;
            }
            if message.get("id").and_then(Value::as_u64) != Some(id) {
                continue;
            }
            if let Some(error) = message.get("error") {
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| error.to_string(), str::to_owned);
                return Err(AcpError::Refused { method, message });
            }
            return Ok(message.get("result").cloned().unwrap_or(Value::Null));
        }
    }
}

/// Adds one `session/update` notification to what the turn produced.
fn follow(out: &mut Prompted, notification: &Value) {
    out.updates.push(notification.to_string());
    let Some(update) = notification.pointer("/params/update") else {
        return;
    };
    match update.get("sessionUpdate").and_then(Value::as_str) {
        Some("agent_message_chunk") => {
            if let Some(text) = update.pointer("/content/text").and_then(Value::as_str) {
                out.text.push_str(text);
            }
        }
        Some("session_info_update") => {
            let current = update
                .pointer("/_meta/hermes/sessionProvenance/currentHermesSessionId")
                .and_then(Value::as_str);
            if let Some(current) = current {
                out.moved_to = Some(current.to_owned());
            }
        }
        _ => {}
    }
}

/// The client's answer to a request of the server: a permission is granted with the
/// first option that allows (Hermes runs in yolo mode inside the sandbox, as its CLI
/// does with `--yolo`); anything else is a method CoSec does not offer.
fn answer_to(request: &Value) -> Value {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let method = request.get("method").and_then(Value::as_str);
    if method == Some("session/request_permission") {
        let options = request
            .pointer("/params/options")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let allowing = options.iter().find(|o| {
            o.get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| k.starts_with("allow"))
        });
        if let Some(option_id) = allowing.and_then(|o| o.get("optionId")) {
            return json!({"jsonrpc": "2.0", "id": id, "result": {
                "outcome": {"outcome": "selected", "optionId": option_id}
            }});
        }
        return json!({"jsonrpc": "2.0", "id": id, "result": {
            "outcome": {"outcome": "cancelled"}
        }});
    }
    json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": METHOD_NOT_FOUND,
        "message": format!("the client does not offer {}", method.unwrap_or("this method")),
    }})
}

fn malformed(method: &'static str, missing: &'static str, answer: &Value) -> AcpError {
    AcpError::Malformed {
        method,
        missing,
        answer: crate::harness::native::turn::tail(&answer.to_string(), 400),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::harness::native::lines::deadline;
    use crate::sandbox::live::{Ending, Live, StderrLog};
    use async_trait::async_trait;
    use std::time::Duration;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    struct Nothing;
    #[async_trait]
    impl Ending for Nothing {
        async fn end(self: Box<Self>) {}
    }

    /// An ACP client wired to a scripted server: `server` gets the client's lines and
    /// answers on the other pipe.
    fn wired() -> (
        JsonLines,
        tokio::io::Lines<BufReader<tokio::io::DuplexStream>>,
        tokio::io::DuplexStream,
    ) {
        let (client_in, server_out) = tokio::io::duplex(1 << 16);
        let (server_in, client_out) = tokio::io::duplex(1 << 16);
        let live = Live::new(
            Box::new(client_out),
            Box::new(client_in),
            StderrLog::default(),
            Box::new(Nothing),
        );
        (
            JsonLines::new(live),
            BufReader::new(server_in).lines(),
            server_out,
        )
    }

    async fn say(out: &mut tokio::io::DuplexStream, value: Value) {
        out.write_all(format!("{value}\n").as_bytes())
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_prompt_collects_chunks_follows_a_moved_session_and_grants_permissions() {
        let (lines, mut requests, mut out) = wired();
        let server = tokio::spawn(async move {
            let init: Value =
                serde_json::from_str(&requests.next_line().await.unwrap().unwrap()).unwrap();
            assert_eq!(init["method"], "initialize");
            assert_eq!(init["params"]["clientCapabilities"]["terminal"], false);
            say(
                &mut out,
                json!({"jsonrpc":"2.0","id":init["id"],"result":{"protocolVersion":1}}),
            )
            .await;
            let new: Value =
                serde_json::from_str(&requests.next_line().await.unwrap().unwrap()).unwrap();
            assert_eq!(new["params"]["cwd"], "/agent");
            say(
                &mut out,
                json!({"jsonrpc":"2.0","id":new["id"],"result":{"sessionId":"s-1"}}),
            )
            .await;
            let prompt: Value =
                serde_json::from_str(&requests.next_line().await.unwrap().unwrap()).unwrap();
            assert_eq!(prompt["params"]["prompt"][0]["text"], "hello");
            let chunk = |t: &str| json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":t}}}});
            say(&mut out, chunk("Hel")).await;
            say(&mut out, json!({"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"options":[{"optionId":"no","kind":"reject_once"},{"optionId":"yes","kind":"allow_once"}]}})).await;
            let granted: Value =
                serde_json::from_str(&requests.next_line().await.unwrap().unwrap()).unwrap();
            assert_eq!(granted["id"], "p1");
            assert_eq!(granted["result"]["outcome"]["optionId"], "yes");
            say(
                &mut out,
                json!({"jsonrpc":"2.0","id":"q","method":"fs/read_text_file","params":{}}),
            )
            .await;
            let refused: Value =
                serde_json::from_str(&requests.next_line().await.unwrap().unwrap()).unwrap();
            assert_eq!(refused["error"]["code"], METHOD_NOT_FOUND);
            say(&mut out, chunk("lo")).await;
            say(&mut out, json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"session_info_update","_meta":{"hermes":{"sessionProvenance":{"currentHermesSessionId":"s-2"}}}}}})).await;
            say(
                &mut out,
                json!({"jsonrpc":"2.0","id":prompt["id"],"result":{"stopReason":"end_turn"}}),
            )
            .await;
        });
        let later = deadline(Duration::from_secs(10));
        let mut acp = Acp::initialize(lines, later).await.unwrap();
        let session = acp.new_session(Path::new("/agent"), later).await.unwrap();
        assert_eq!(session, "s-1");
        let done = acp.prompt(&session, "hello", later).await.unwrap();
        server.await.unwrap();
        assert_eq!(done.text, "Hello");
        assert_eq!(done.stop_reason, "end_turn");
        assert_eq!(done.moved_to.as_deref(), Some("s-2"));
        assert_eq!(done.updates.len(), 3);
    }

    #[tokio::test]
    async fn an_error_answer_is_a_refusal_naming_the_request() {
        let (lines, mut requests, mut out) = wired();
        tokio::spawn(async move {
            let init: Value =
                serde_json::from_str(&requests.next_line().await.unwrap().unwrap()).unwrap();
            say(&mut out, json!({"jsonrpc":"2.0","id":init["id"],"error":{"code":-32000,"message":"ACP dependencies not installed"}})).await;
        });
        let err = Acp::initialize(lines, deadline(Duration::from_secs(10)))
            .await
            .err()
            .expect("refused");
        assert!(
            err.to_string()
                .contains("initialize was refused: ACP dependencies"),
            "{err}"
        );
    }
}
