//! The MCP server a harness launches (`cosec-shim`): a thin stdio relay to the runner's
//! shim socket. It holds no labels, traces or scenario facts; it only knows the socket
//! path and the trial id, asks the socket for the tool list and forwards every call.

use super::protocol::{ShimRequest, ToolList};
use super::ToolResult;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerInfo, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::UnixStream;
use tokio::sync::Mutex;

/// Name the relay reports in the MCP handshake.
pub const SERVER_NAME: &str = "cosec-shim";

/// Why the relay stopped.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    /// The shim socket could not be reached at start.
    #[error("cannot connect to the shim socket {path}: {source}")]
    Connect {
        /// The socket path.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// The MCP handshake with the harness failed.
    #[error("MCP initialization failed: {0}")]
    Initialize(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The MCP service task failed.
    #[error("MCP service failed: {0}")]
    Service(#[source] tokio::task::JoinError),
}

type Connection = (BufReader<OwnedReadHalf>, OwnedWriteHalf);

/// One connection to the shim socket, reopened when it breaks.
struct SocketClient {
    path: PathBuf,
    conn: Option<Connection>,
}

async fn connect(path: &Path) -> std::io::Result<Connection> {
    let (read, write) = UnixStream::connect(path).await?.into_split();
    Ok((BufReader::new(read), write))
}

impl SocketClient {
    /// Sends one request and reads its answer. A failed send is retried once on a fresh
    /// connection (the service acts only on complete lines, so nothing ran); a failure
    /// after sending is not retried, because the call may already have taken effect.
    async fn request(&mut self, request: &ShimRequest) -> Result<Value, String> {
        let mut line =
            serde_json::to_vec(request).map_err(|e| format!("cannot encode the request: {e}"))?;
        line.push(b'\n');
        let mut attempt = 0;
        let (reader, writer) = loop {
            attempt += 1;
            let mut conn = match self.conn.take() {
                Some(c) => c,
                None => connect(&self.path)
                    .await
                    .map_err(|e| format!("the tool service is unreachable: {e}"))?,
            };
            let sent = async {
                conn.1.write_all(&line).await?;
                conn.1.flush().await
            }
            .await;
            match sent {
                Ok(()) => break conn,
                Err(e) if attempt >= 2 => {
                    return Err(format!("the tool service is unreachable: {e}"))
                }
                Err(_) => continue,
            }
        };
        let mut conn = (reader, writer);
        let mut answer = String::new();
        let n = conn
            .0
            .read_line(&mut answer)
            .await
            .map_err(|e| format!("the tool service connection broke: {e}"))?;
        if n == 0 {
            return Err("the tool service closed the connection".to_owned());
        }
        self.conn = Some(conn);
        serde_json::from_str(&answer)
            .map_err(|e| format!("unreadable answer from the tool service: {e}"))
    }
}

/// The MCP server side of the relay.
#[derive(Clone)]
pub struct McpRelay {
    trial: String,
    client: Arc<Mutex<SocketClient>>,
}

impl McpRelay {
    /// Connects to the shim socket for one trial.
    pub async fn connect(socket: &Path, trial_id: &str) -> Result<Self, RelayError> {
        let conn = connect(socket)
            .await
            .map_err(|source| RelayError::Connect {
                path: socket.to_owned(),
                source,
            })?;
        Ok(McpRelay {
            trial: trial_id.to_owned(),
            client: Arc::new(Mutex::new(SocketClient {
                path: socket.to_owned(),
                conn: Some(conn),
            })),
        })
    }

    async fn request(&self, request: &ShimRequest) -> Result<Value, ErrorData> {
        self.client
            .lock()
            .await
            .request(request)
            .await
            .map_err(|e| ErrorData::internal_error(e, None))
    }
}

fn error_text(answer: &Value) -> Option<String> {
    let result: ToolResult = serde_json::from_value(answer.clone()).ok()?;
    result.is_error.then_some(result.text)
}

impl ServerHandler for McpRelay {
    fn get_info(&self) -> ServerInfo {
        ServerInfo::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let answer = self.request(&ShimRequest::list_tools(&self.trial)).await?;
        if let Some(text) = error_text(&answer) {
            return Err(ErrorData::internal_error(text, None));
        }
        let list: ToolList = serde_json::from_value(answer)
            .map_err(|e| ErrorData::internal_error(format!("bad tool list: {e}"), None))?;
        let tools = list
            .tools
            .into_iter()
            .map(|t| {
                let schema = match t.input_schema {
                    Value::Object(map) => map,
                    _ => serde_json::Map::new(),
                };
                Tool::new(t.name, t.description, Arc::new(schema))
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let answer = self
            .request(&ShimRequest::call(&self.trial, &request.name, arguments))
            .await?;
        let result: ToolResult = serde_json::from_value(answer)
            .map_err(|e| ErrorData::internal_error(format!("bad tool result: {e}"), None))?;
        let content = vec![ContentBlock::text(result.text)];
        Ok(if result.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        })
    }
}

/// Serves MCP over any reader/writer pair until the client disconnects.
pub async fn serve_relay<R, W>(
    socket: &Path,
    trial_id: &str,
    reader: R,
    writer: W,
) -> Result<(), RelayError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let relay = McpRelay::connect(socket, trial_id).await?;
    let running = relay
        .serve((reader, writer))
        .await
        .map_err(|e| RelayError::Initialize(Box::new(e)))?;
    running.waiting().await.map_err(RelayError::Service)?;
    Ok(())
}

/// Serves MCP on stdin/stdout for one trial (the `cosec-shim` binary). Nothing else
/// may write to stdout while it runs.
pub async fn run_stdio_relay(socket: &Path, trial_id: &str) -> Result<(), RelayError> {
    let (stdin, stdout) = rmcp::transport::stdio();
    serve_relay(socket, trial_id, stdin, stdout).await
}
