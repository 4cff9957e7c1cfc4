//! The fixture the native-harness tests share: the pinned install, the sandboxes
//! (bubblewrap, Docker) and the MCP relay; a trial laid out as the runner lays it out, with a live shim socket; a
//! shell inside a sandbox; the request reader of the scripted model servers; and one
//! `cosec run` of a static scenario.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    dead_code,
    reason = "test fixture; each test file uses a part of it"
)]

pub mod copying;

use cosec::harness::install::{self, Installed};
use cosec::harness::TrialEnv;
use cosec::sandbox::{Bubblewrap, Docker, DockerConfig, Job, Sandbox, SandboxSpec};
use cosec_proxy::registry::{ModelRoute, SimKind, Trial, TrialRegistry, TrialSetup};
use cosec_proxy::shim::{ShimService, ShimSocketServer};
use cosec_proxy::trace::TraceWriter;
use cosec_scenarios::agent::CommunityInfo;
use cosec_scenarios::{CommunityId, Scenario};
use serde_json::Value;
use std::ffi::OsString;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};

/// The static scenario the harness tests run.
pub const SCENARIO: &str = "st-intra-owner-a1-s1";

/// The pinned install of a harness (`title` as people write it, `name` as the CLI does),
/// or a panic saying how to install it.
pub fn installed(
    title: &str,
    name: &str,
    version: &str,
    detect: fn(&Path) -> Option<Installed>,
) -> Installed {
    let cache = install::cache_dir();
    detect(&cache).unwrap_or_else(|| {
        panic!(
            "{title} {version} is not installed in {}: run `cosec harness install {name}` first",
            cache.display()
        )
    })
}

/// bubblewrap, which every native-harness test needs.
pub fn bubblewrap() -> Bubblewrap {
    Bubblewrap::locate()
        .unwrap_or_else(|e| panic!("bubblewrap is required for the harness tests: {e}"))
        .with_relay(&relay())
}

/// bubblewrap as the adapters take it.
pub fn bwrap() -> Arc<dyn Sandbox> {
    Arc::new(bubblewrap())
}

/// The Docker sandbox (dockerd running, `cosec sandbox image build` done) as the
/// adapters take it.
pub async fn docker() -> Arc<dyn Sandbox> {
    let docker = Docker::connect(DockerConfig::default(), &relay())
        .await
        .unwrap_or_else(|e| {
            panic!("the Docker sandbox is required (scripts/tiers/docker.sh): {e}")
        });
    Arc::new(docker)
}

/// A sandbox under test and what it shows besides the spec's mounts: nothing for
/// bubblewrap; for Docker, the image's harness installs (every harness in the cache).
pub struct Confinement {
    /// The sandbox.
    pub sandbox: Arc<dyn Sandbox>,
    /// Host paths visible inside although the spec does not mount them.
    pub shows: Vec<PathBuf>,
}

impl Confinement {
    /// bubblewrap.
    pub fn bwrap() -> Confinement {
        Confinement {
            sandbox: bwrap(),
            shows: Vec::new(),
        }
    }

    /// Docker, showing the installs the image was built from.
    pub async fn docker() -> Confinement {
        let cache = install::cache_dir();
        let shows = [
            install::codex::detect(&cache),
            install::openclaw::detect(&cache),
            install::hermes::detect(&cache),
        ]
        .into_iter()
        .flatten()
        .flat_map(|i| i.readonly)
        .collect();
        Confinement {
            sandbox: docker().await,
            shows,
        }
    }

    /// What a test may see inside besides the spec's mounts, with them: the paths that
    /// may show up inside.
    pub fn visible(&self, spec: &SandboxSpec) -> Vec<PathBuf> {
        let mut all: Vec<PathBuf> = spec
            .readonly
            .iter()
            .chain(&spec.writable)
            .cloned()
            .collect();
        all.extend(self.shows.iter().cloned());
        all
    }
}

/// The MCP relay (`cosec-shim`) built for these tests.
pub fn relay() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_cosec-shim"))
}

/// A scenario of the embedded suite.
pub fn scenario(id: &str) -> Scenario {
    let suite = cosec_scenarios::suite::load_embedded(false).unwrap();
    suite
        .scenarios
        .into_iter()
        .find(|s| s.id.as_str() == id)
        .unwrap()
}

/// [`SCENARIO`] with a second community `side`, so that two sessions run side by side.
pub fn with_side_room(side: &str) -> Scenario {
    let mut scenario = scenario(SCENARIO);
    scenario.agent.communities.push(CommunityInfo {
        id: CommunityId::from(side),
        name: "Side Room".to_owned(),
        description: "A second community for the session tests.".to_owned(),
    });
    scenario
}

/// A trial laid out as the runner lays it out (`trials/<id>/{agent,hidden,home}`), with a
/// live shim socket in a folder of its own that also holds another file; the socket
/// stops serving when the trial is dropped.
pub struct TempTrial {
    _dir: tempfile::TempDir,
    /// `trials/<id>`.
    pub trial_dir: PathBuf,
    /// What the harness gets; the model is at `<base_url>/t/<id>/v1`.
    pub env: TrialEnv,
    /// The scenario the agent half was materialised from.
    pub scenario: Scenario,
    socket_task: tokio::task::JoinHandle<()>,
}

impl TempTrial {
    /// Materialises `scenario`'s agent half for trial `id` and serves its shim socket.
    pub fn start(scenario: Scenario, id: &str, base_url: &str) -> TempTrial {
        let dir = tempfile::tempdir().unwrap();
        let trial_dir = dir.path().join("trials").join(id);
        let agent_root = trial_dir.join("agent");
        let hidden = trial_dir.join("hidden");
        let home = trial_dir.join("home");
        let sock_dir = dir.path().join("sock");
        for d in [&hidden, &home, &sock_dir] {
            std::fs::create_dir_all(d).unwrap();
        }
        cosec_proxy::shim::materialize_agent_half(&scenario.agent, &agent_root).unwrap();
        let trace = Arc::new(TraceWriter::open(&hidden.join("trace.jsonl")).unwrap());
        let registry = TrialRegistry::new();
        let agent = Arc::new(scenario.agent.clone());
        registry.insert(Arc::new(Trial::new(
            TrialSetup {
                id: id.to_owned(),
                agent: Arc::clone(&agent),
                platform: Arc::new(scenario.platform.clone()),
                sim: None,
                model: ModelRoute::Sim(SimKind::Refuse),
                agent_root: agent_root.clone(),
                trace: Arc::clone(&trace),
                guardrail: None,
            },
            scenario.agent.turns[0].community.clone(),
        )));
        let shim = ShimService::new(registry);
        let socket = sock_dir.join("shim.sock");
        std::fs::write(sock_dir.join("runner-secret.txt"), "beside the socket").unwrap();
        let server = ShimSocketServer::bind(&socket, shim.clone(), id).unwrap();
        let socket_task = tokio::spawn(async move {
            let _ = server.serve().await;
        });
        let env = TrialEnv {
            trial_id: id.to_owned(),
            agent,
            agent_root,
            model_base_url: format!("{base_url}/t/{id}/v1"),
            model_name: "m".to_owned(),
            shim,
            harness_home: home,
            shim_socket: Some(socket),
            trace,
        };
        TempTrial {
            _dir: dir,
            trial_dir,
            env,
            scenario,
            socket_task,
        }
    }

    /// Points the harness at another model server.
    pub fn set_model_server(&mut self, base_url: &str) {
        self.env.model_base_url = format!("{base_url}/t/{}/v1", self.env.trial_id);
    }

    /// Lays out what a sandbox escape test probes for (see [`Probe`]).
    pub fn probe(&self) -> Probe {
        let hidden = self.trial_dir.join("hidden/trace.jsonl");
        std::fs::write(&hidden, "oracle facts\n").unwrap();
        std::fs::write(self.env.agent_root.join("note.md"), "visible").unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/oracle.cedar");
        assert!(repo.is_file(), "the repository file to hide is missing");
        let socket = self.env.shim_socket.clone().unwrap();
        let beside = socket.with_file_name("runner-secret.txt");
        Probe {
            hidden,
            repo,
            socket,
            beside,
        }
    }
}

impl Drop for TempTrial {
    fn drop(&mut self) {
        self.socket_task.abort();
    }
}

/// What a sandbox escape test tries to reach: the hidden trace (holding `oracle facts`),
/// a repository file, the shim socket and a file beside it; the agent half holds
/// `note.md` (`visible`), which the sandbox must show.
pub struct Probe {
    /// The hidden trace.
    pub hidden: PathBuf,
    /// A file of the repository.
    pub repo: PathBuf,
    /// The shim socket.
    pub socket: PathBuf,
    /// Another file in the socket's folder.
    pub beside: PathBuf,
}

/// Runs `program args` inside `sandbox` with the spec `spec`, stdin closed.
pub async fn inside(
    sandbox: &dyn Sandbox,
    spec: &SandboxSpec,
    program: &Path,
    args: &[OsString],
) -> cosec::sandbox::Finished {
    let job = Job {
        spec,
        program,
        args,
        input: None,
        deadline: std::time::Duration::from_secs(120),
    };
    sandbox.run(job).await.unwrap()
}

/// Runs `sh -c script` inside `sandbox` with the spec `spec`: (stdout, stderr).
pub async fn sh(sandbox: &dyn Sandbox, spec: &SandboxSpec, script: &str) -> (String, String) {
    let args = [OsString::from("-c"), OsString::from(script)];
    let out = inside(sandbox, spec, Path::new("/bin/sh"), &args).await;
    (out.stdout, out.stderr)
}

/// Runs `entry --version` inside `sandbox` with the spec `spec`, which must succeed and
/// name `version`: what it printed.
pub async fn version_inside(
    sandbox: &dyn Sandbox,
    spec: &SandboxSpec,
    entry: &Path,
    version: &str,
) -> String {
    let out = inside(sandbox, spec, entry, &[OsString::from("--version")]).await;
    assert!(
        out.status.is_some_and(|s| s.success()),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    assert!(out.stdout.contains(version), "{}", out.stdout);
    out.stdout
}

/// What a scripted model server noted of each request.
pub type Log<R> = Arc<Mutex<Vec<R>>>;

/// A scripted model server standing in for the proxy on a local port.
pub struct Server<R> {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    log: Log<R>,
}

impl<R: Clone + Send + 'static> Server<R> {
    /// Answers every connection with `serve`, which notes what it saw in the log.
    pub async fn start<F, Fut>(serve: F) -> Self
    where
        F: Fn(TcpStream, Log<R>) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let log: Log<R> = Arc::default();
        let noted = Arc::clone(&log);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, Arc::clone(&noted)));
            }
        });
        Server { url, log }
    }

    /// What the server noted so far.
    pub fn requests(&self) -> Vec<R> {
        self.log.lock().unwrap().clone()
    }
}

/// One HTTP/1.1 request as the scripted model servers see it.
pub struct Request {
    /// The request line and headers, lowercased.
    pub head: String,
    /// The body (`content-length` bytes).
    pub body: Vec<u8>,
}

impl Request {
    /// The value of header `name` (lowercase), trimmed.
    pub fn header(&self, name: &str) -> Option<&str> {
        let prefix = format!("{name}:");
        self.head
            .lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .map(str::trim)
    }

    /// The body as JSON (`null` if it is none).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// Reads one request from `stream`; `None` if the client hung up first.
pub async fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    let head_end = loop {
        let n = stream.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = buf[head_end..head_end + length].to_vec();
    Some(Request { head, body })
}

/// The answer of the scripted model servers to what they do not serve.
pub const NOT_FOUND: &[u8] =
    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";

/// A complete HTTP/1.1 response with a JSON body, closing the connection.
pub fn json_response(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}
