//! The client side of OpenClaw's gateway protocol (v4), spoken through the stdio bridge
//! (`gateway_bridge.mjs`): the `connect` handshake as a trusted local backend client
//! with the shared token, and one `agent` request per delivery, answered first with an
//! admission and then with the run's result.
//!
//! The client asks for `operator.admin` as well as read and write: the `openclaw agent`
//! CLI connects with admin scope too, and without it the agent gets fewer tools and
//! another system prompt than a `--local` run.

use crate::harness::native::lines::{JsonLines, LineError};
use serde_json::{json, Value};
use tokio::time::Instant;

/// The gateway protocol version spoken.
pub const PROTOCOL: u64 = 4;

/// Why an exchange with the gateway failed.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The pipe, the deadline or the framing failed.
    #[error(transparent)]
    Line(#[from] LineError),
    /// The gateway refused the connection.
    #[error("the gateway refused the connection: {0}")]
    Refused(String),
}

/// How an `agent` request ended.
#[derive(Debug)]
pub enum AgentRun {
    /// The run finished; its `result` (`payloads` and `meta`, the shape `openclaw agent
    /// --json` prints).
    Finished(Value),
    /// The run failed; OpenClaw's message.
    Failed(String),
}

/// A connected gateway.
pub struct Gateway {
    lines: JsonLines,
    requests: u64,
}

impl Gateway {
    /// Waits for the gateway's challenge on `lines` and connects with `token`; a
    /// gateway still starting up refuses the handshake, and the bridge connects again
    /// until the deadline.
    pub async fn connect(
        mut lines: JsonLines,
        token: &str,
        deadline: Instant,
    ) -> Result<Gateway, GatewayError> {
        loop {
            match handshake(&mut lines, token, deadline).await? {
                Ok(()) => return Ok(Gateway { lines, requests: 0 }),
                Err(refusal) if refusal.contains("retry") => {
                    tokio::time::sleep(RETRY_PAUSE).await;
                    lines.send(&json!({"bridge": "reconnect"})).await?;
                }
                Err(refusal) => return Err(GatewayError::Refused(refusal)),
            }
        }
    }

    /// The live process's stderr.
    pub fn stderr(&self) -> &crate::sandbox::live::StderrLog {
        self.lines.stderr()
    }

    /// Runs `message` in the session `session_id` (filed under `session_key`) and waits
    /// for the run's end; `idempotency` names the request so a retried send is not run
    /// twice.
    pub async fn agent(
        &mut self,
        message: &str,
        (session_id, session_key): (&str, &str),
        idempotency: &str,
        deadline: Instant,
    ) -> Result<AgentRun, GatewayError> {
        self.requests += 1;
        let id = format!("agent-{}", self.requests);
        let request = json!({
            "type": "req",
            "id": id,
            "method": "agent",
            "params": {
                "message": message,
                "sessionId": session_id,
                "sessionKey": session_key,
                "idempotencyKey": idempotency,
            },
        });
        self.lines.send(&request).await?;
        loop {
            let answer = answer_to(&mut self.lines, &id, deadline).await?;
            if answer.get("ok") != Some(&Value::Bool(true)) {
                return Ok(AgentRun::Failed(error_text(&answer)));
            }
            let payload = answer.get("payload").cloned().unwrap_or(Value::Null);
            // The first answer admits the run; the second carries its end.
            if payload.get("status").and_then(Value::as_str) == Some("accepted") {
                continue;
            }
            if payload.get("status").and_then(Value::as_str) == Some("error") {
                return Ok(AgentRun::Failed(error_text(&answer)));
            }
            return Ok(AgentRun::Finished(
                payload.get("result").cloned().unwrap_or(Value::Null),
            ));
        }
    }

    /// Closes the bridge's stdin, which stops the gateway.
    pub async fn end(self) {
        self.lines.end().await;
    }
}

/// Pause before connecting again to a gateway that is still starting.
const RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(200);

/// One handshake: waits for the gateway's challenge and answers it with `token`; the
/// gateway's refusal, if it refuses.
async fn handshake(
    lines: &mut JsonLines,
    token: &str,
    deadline: Instant,
) -> Result<Result<(), String>, LineError> {
    loop {
        let frame = lines.next(deadline).await?;
        if frame.get("type").and_then(Value::as_str) == Some("event")
            && frame.get("event").and_then(Value::as_str) == Some("connect.challenge")
        {
            break;
        }
    }
    let connect = json!({
        "type": "req",
        "id": "connect",
        "method": "connect",
        "params": {
            "minProtocol": PROTOCOL,
            "maxProtocol": PROTOCOL,
            "client": {
                "id": "gateway-client",
                "version": env!("CARGO_PKG_VERSION"),
                "platform": "linux",
                "mode": "backend",
            },
            "role": "operator",
            "scopes": ["operator.admin", "operator.read", "operator.write"],
            "caps": [],
            "auth": {"token": token},
        },
    });
    lines.send(&connect).await?;
    let answer = answer_to(lines, "connect", deadline).await?;
    if answer.get("ok") == Some(&Value::Bool(true)) {
        return Ok(Ok(()));
    }
    Ok(Err(error_text(&answer)))
}

/// The next response to the request `id`, skipping events and other responses.
async fn answer_to(lines: &mut JsonLines, id: &str, deadline: Instant) -> Result<Value, LineError> {
    loop {
        let frame = lines.next(deadline).await?;
        if frame.get("type").and_then(Value::as_str) == Some("res")
            && frame.get("id").and_then(Value::as_str) == Some(id)
        {
            return Ok(frame);
        }
    }
}

/// What a failed response says: its error's message, else its payload's summary.
fn error_text(answer: &Value) -> String {
    answer
        .pointer("/error/message")
        .or_else(|| answer.pointer("/payload/summary"))
        .and_then(Value::as_str)
        .map_or_else(|| answer.to_string(), str::to_owned)
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

    async fn say(out: &mut tokio::io::DuplexStream, value: Value) {
        out.write_all(format!("{value}\n").as_bytes())
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_starting_gateway_is_asked_again_then_a_run_is_admitted_and_finished_and_a_failure_reported(
    ) {
        let (client_in, mut out) = tokio::io::duplex(1 << 16);
        let (server_in, client_out) = tokio::io::duplex(1 << 16);
        let lines = JsonLines::new(Live::new(
            Box::new(client_out),
            Box::new(client_in),
            StderrLog::default(),
            Box::new(Nothing),
        ));
        let server = tokio::spawn(async move {
            let mut requests = BufReader::new(server_in).lines();
            let mut next = async || -> Value {
                serde_json::from_str(&requests.next_line().await.unwrap().unwrap()).unwrap()
            };
            say(
                &mut out,
                json!({"type":"event","event":"tick","payload":{}}),
            )
            .await;
            say(
                &mut out,
                json!({"type":"event","event":"connect.challenge","payload":{"nonce":"n"}}),
            )
            .await;
            let early = next().await;
            say(&mut out, json!({"type":"res","id":early["id"],"ok":false,"error":{"message":"gateway starting; retry shortly"}})).await;
            assert_eq!(next().await, json!({"bridge": "reconnect"}));
            say(
                &mut out,
                json!({"type":"event","event":"connect.challenge","payload":{"nonce":"m"}}),
            )
            .await;
            let connect = next().await;
            assert_eq!(connect["params"]["auth"]["token"], "secret");
            assert_eq!(connect["params"]["client"]["mode"], "backend");
            assert!(connect["params"]["scopes"]
                .as_array()
                .unwrap()
                .contains(&json!("operator.admin")));
            say(
                &mut out,
                json!({"type":"res","id":connect["id"],"ok":true,"payload":{"type":"hello-ok"}}),
            )
            .await;
            let run = next().await;
            assert_eq!(run["params"]["sessionKey"], "agent:main:explicit:cosec-c");
            assert_eq!(run["params"]["idempotencyKey"], "t-1");
            say(
                &mut out,
                json!({"type":"res","id":run["id"],"ok":true,"payload":{"status":"accepted"}}),
            )
            .await;
            say(
                &mut out,
                json!({"type":"event","event":"agent","payload":{"stream":"assistant"}}),
            )
            .await;
            say(&mut out, json!({"type":"res","id":run["id"],"ok":true,"payload":{"status":"ok","result":{"payloads":[{"text":"hi"}]}}})).await;
            let failing = next().await;
            say(&mut out, json!({"type":"res","id":failing["id"],"ok":false,"payload":{"status":"error"},"error":{"code":"UNAVAILABLE","message":"LLM request failed: refused"}})).await;
        });
        let later = deadline(Duration::from_secs(10));
        let mut gateway = Gateway::connect(lines, "secret", later).await.unwrap();
        let keys = ("cosec-c", "agent:main:explicit:cosec-c");
        match gateway.agent("hello", keys, "t-1", later).await.unwrap() {
            AgentRun::Finished(result) => assert_eq!(result["payloads"][0]["text"], "hi"),
            other => panic!("{other:?}"),
        }
        match gateway.agent("again", keys, "t-2", later).await.unwrap() {
            AgentRun::Failed(message) => assert!(message.contains("request failed")),
            other => panic!("{other:?}"),
        }
        server.await.unwrap();
    }
}
