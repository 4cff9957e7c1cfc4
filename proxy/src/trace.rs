//! A trial's hidden trace: one JSON object per line in `<trial>/hidden/trace.jsonl`,
//! outside the agent's view. Everything the verifier and the metrics read about a trial
//! comes from here (plus the agent half's final files).

use crate::api::{ModelRequest, ModelResponse, Usage, WireApi};
use crate::guard::{GuardLayer, GuardOutcome, GuardPoint, PatternKind};
use cosec_policies::TurnContext;
use cosec_scenarios::ids::{event_time, turn_time};
use cosec_scenarios::platform::ObjectLabel;
use cosec_scenarios::verifier::SpanLocation;
use cosec_scenarios::{Action, CommunityId, Namespace, ObjectId, Time, UserId};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// Something the agent did that leaves the agent's head: the carriers of a disclosure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Effect {
    /// A post to a community.
    Post {
        /// Community posted to.
        community: CommunityId,
        /// Text.
        text: String,
    },
    /// A direct message.
    Send {
        /// Recipient.
        person: UserId,
        /// Text.
        text: String,
    },
    /// A file shared into a community.
    Share {
        /// Namespace of the file.
        namespace: Namespace,
        /// Path inside the namespace.
        path: String,
        /// Community shared into.
        community: CommunityId,
        /// The file's content at share time.
        content: String,
    },
    /// A workflow submission.
    Workflow {
        /// Workflow name.
        name: String,
        /// Payload.
        payload: String,
    },
    /// A file created or changed.
    FileWrite {
        /// Namespace.
        namespace: Namespace,
        /// Path inside the namespace.
        path: String,
        /// New content.
        content: String,
        /// Content before the write, if the file existed.
        previous: Option<String>,
    },
}

/// Whether a count is zero (then left out of the trace line).
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One line of a trial trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TraceEvent {
    /// A participant message or a trusted event notice was delivered.
    Delivery {
        /// Turn index (the turn after which a notice is delivered, for notices).
        turn: u8,
        /// Session community.
        community: CommunityId,
        /// Who spoke (`None` for a platform notice).
        speaker: Option<UserId>,
        /// Whether this is a trusted event notice rather than a participant turn.
        event_notice: bool,
        /// The delivered text.
        text: String,
        /// The delivery's logical time (absent in traces written before it was kept:
        /// then the turn's time, or the event's for a notice).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time: Option<Time>,
        /// The speakers of the same turn's earlier deliveries.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        earlier_requesters: Vec<UserId>,
    },
    /// One model API call through the proxy.
    ModelCall {
        /// Turn in force when the call arrived.
        turn: u8,
        /// Wire format used.
        api: WireApi,
        /// Whether it streamed.
        stream: bool,
        /// The request, wire-neutral.
        request: ModelRequest,
        /// The response, wire-neutral (assembled from the stream when streaming).
        response: Option<ModelResponse>,
        /// Token usage.
        usage: Usage,
        /// Wall time of the call in microseconds.
        latency_us: u64,
        /// What went wrong, if anything (never contains an API key).
        error: Option<String>,
        /// Transient upstream failures the proxy retried during this call.
        #[serde(default, skip_serializing_if = "is_zero")]
        upstream_retries: u32,
    },
    /// One tool call served by the shim.
    ToolCall {
        /// Turn.
        turn: u8,
        /// Session community of the turn.
        community: CommunityId,
        /// Tool name.
        tool: String,
        /// Arguments as received.
        arguments: Value,
        /// Result text returned to the agent.
        result: String,
        /// Whether the result was an error.
        is_error: bool,
    },
    /// A labeled object was handed to the agent (file read, search hit, tool observation).
    ObjectServed {
        /// Turn.
        turn: u8,
        /// The object.
        object: ObjectId,
        /// Its platform label.
        label: ObjectLabel,
        /// Which tool served it.
        via: String,
    },
    /// An effect of the agent's action.
    Effect {
        /// Turn.
        turn: u8,
        /// Session community of the turn.
        community: CommunityId,
        /// The effect.
        effect: Effect,
    },
    /// The agent's final reply to a delivery.
    Reply {
        /// Turn.
        turn: u8,
        /// Session community.
        community: CommunityId,
        /// Reply text.
        text: String,
    },
    /// A decision of the runtime guard on one labeled object in an outbound flow.
    GuardDecision {
        /// Turn.
        turn: u8,
        /// Where the decision was taken.
        point: GuardPoint,
        /// The layer that decided (`input` or `output`).
        #[serde(default)]
        layer: GuardLayer,
        /// The object detected.
        object: ObjectId,
        /// The kind of pattern that found it (absent for a labeled file by path).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pattern: Option<PatternKind>,
        /// The reading that found it (`plain`, `base64`, `rot13+reverse` ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        view: Option<String>,
        /// The requester whose message opened the delivery (`None` when nobody's did).
        requester: Option<UserId>,
        /// Who the question was asked for: the requester, or for a delivery without one
        /// every principal it could be acting for (`cosec_policies::ask`). Empty where
        /// no question was asked (unreadable or unchecked content).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        principals: Vec<UserId>,
        /// The delivery's time: the community state the question was asked at.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time: Option<Time>,
        /// The action asked about.
        action: Action,
        /// Destination, rendered (`community:c`, `workspace:c`, `person:u`, ...).
        destination: String,
        /// What the guard did (in shadow mode: would have done).
        decision: GuardOutcome,
        /// Policy ids (and denied recipients) that determined it.
        policies: Vec<String>,
        /// Errors that made it fail closed.
        errors: Vec<String>,
        /// Whether it changed anything (false in shadow mode).
        enforced: bool,
        /// Decision latency (detection excluded) in microseconds.
        latency_us: u64,
    },
    /// A turn's view of the workspace (the guard's input layer): the files whose content
    /// it withholds, each with the labels that decided it.
    WorkspaceView {
        /// Turn of the delivery the view is for.
        turn: u8,
        /// Session community.
        community: CommunityId,
        /// Files with withheld content.
        withheld: Vec<LabeledPath>,
        /// Time to decide and write the view, in microseconds.
        latency_us: u64,
    },
    /// What a turn wrote into the workspace, each file with the labels of the bytes
    /// written into it; changes whose labels may not go where they landed were undone.
    WorkspaceWrites {
        /// Turn of the delivery.
        turn: u8,
        /// Session community.
        community: CommunityId,
        /// Files created or modified, with the labels written into them.
        written: Vec<LabeledPath>,
        /// Files undone (put back as the turn's view had them, or removed).
        reverted: Vec<String>,
        /// Time to absorb the turn, in microseconds.
        latency_us: u64,
    },
    /// Native evidence captured from a harness process (its JSON event stream, its
    /// final output, or a session file it wrote), kept for the verifier.
    HarnessOutput {
        /// Turn of the delivery that produced it.
        turn: u8,
        /// Session community.
        community: CommunityId,
        /// What this is: `stdout`, `stderr_tail`, `events`, `session_file:<name>`.
        source: String,
        /// The captured text (size-capped by the adapter).
        text: String,
    },
    /// A participant's scripted text was replaced before the agent saw it (`--attacker`,
    /// `--speaker-mode model`): the attacker's turn or planted document, or a benign
    /// participant's turn, with the seed it replaced.
    Rewrite {
        /// Where the text sits: a turn, or a seeded object the attacker planted.
        site: SpanLocation,
        /// The participant who speaks (or planted the object).
        speaker: UserId,
        /// Who wrote the rewrite: `model` or `mutate`.
        by: String,
        /// The attack attempt (0 for the first).
        attempt: u32,
        /// The scripted text it replaces.
        seed: String,
        /// The text the agent was given: the rewrite, or the seed when it was rejected.
        text: String,
        /// Why the proposed rewrite was rejected, if it was.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rejected: Option<RewriteRejection>,
    },
    /// An infrastructure failure (upstream error, timeout, harness crash).
    Infra {
        /// Turn, if one was under way.
        turn: Option<u8>,
        /// Cause, readable.
        cause: String,
    },
}

/// Why a participant's rewrite was not delivered, and what it proposed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RewriteRejection {
    /// `secret`, `claim`, `forged` or `failed` (the rewriter gave no text).
    pub reason: String,
    /// What decided it, readable.
    pub detail: String,
    /// The text the rewriter proposed (empty when it gave none).
    pub proposed: String,
}

/// A workspace file and the labels (object ids) that decided something about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabeledPath {
    /// Path relative to the agent root.
    pub path: String,
    /// The labels.
    pub labels: Vec<ObjectId>,
}

/// A timestamped trace line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceLine {
    /// Milliseconds since the trace was opened.
    pub ms: u64,
    /// The event.
    #[serde(flatten)]
    pub event: TraceEvent,
}

/// Errors of the trace file.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened, written or read.
    #[error("trace {path}: {source}")]
    Io {
        /// The trace file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A line is not a trace event.
    #[error("trace {path}:{line}: {source}")]
    Parse {
        /// The trace file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// serde's error.
        #[source]
        source: serde_json::Error,
    },
}

/// Appends trace lines; each line is written whole with one `write_all` and flushed.
pub struct TraceWriter {
    path: PathBuf,
    /// `None` for a writer that discards everything ([`TraceWriter::discard`]).
    file: Option<Mutex<std::fs::File>>,
    opened: Instant,
}

impl TraceWriter {
    /// Creates (or appends to) a trace file.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|source| TraceError::Io {
                path: path.to_owned(),
                source,
            })?;
        Ok(TraceWriter {
            path: path.to_owned(),
            file: Some(Mutex::new(file)),
            opened: Instant::now(),
        })
    }

    /// A writer that records nothing (a standalone guard run without `--trace`), so
    /// callers can skip building events at all; its path reads as an empty trace.
    pub fn discard() -> Self {
        TraceWriter {
            path: PathBuf::from("/dev/null"),
            file: None,
            opened: Instant::now(),
        }
    }

    /// Whether events are kept; building an event for a discarding writer is waste.
    pub fn is_recording(&self) -> bool {
        self.file.is_some()
    }

    /// Where the trace lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one event.
    pub fn record(&self, event: TraceEvent) -> Result<(), TraceError> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let line = TraceLine {
            ms: u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX),
            event,
        };
        // Written through a buffer rather than built as one string first, so a call
        // that carries a large request is not held a second time to be traced. The
        // lock keeps each event one whole line.
        let mut file = file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut out = std::io::BufWriter::new(&mut *file);
        serde_json::to_writer(&mut out, &line).map_err(|source| match source.io_error_kind() {
            Some(_) => TraceError::Io {
                path: self.path.clone(),
                source: source.into(),
            },
            None => TraceError::Parse {
                path: self.path.clone(),
                line: 0,
                source,
            },
        })?;
        out.write_all(b"\n")
            .and_then(|()| out.flush())
            .map_err(|source| TraceError::Io {
                path: self.path.clone(),
                source,
            })
    }
}

/// The delivery in force at each line of a trace: the context of the last `delivery`
/// line at or before it (`None` before the first). Traces written before deliveries
/// kept their time and the turn's earlier requesters get them as the runner sets them:
/// the turn's time (the event's for a notice) and the speakers of the same turn's
/// earlier deliveries.
pub fn delivery_contexts(trace: &[TraceLine]) -> Vec<Option<TurnContext>> {
    let mut current: Option<TurnContext> = None;
    let mut spoken: Vec<(u8, UserId)> = Vec::new();
    trace
        .iter()
        .map(|line| {
            if let TraceEvent::Delivery {
                turn,
                community,
                speaker,
                event_notice,
                time,
                earlier_requesters,
                ..
            } = &line.event
            {
                let derived: Vec<UserId> = spoken
                    .iter()
                    .filter(|(t, _)| t == turn)
                    .map(|(_, u)| u.clone())
                    .collect();
                let time = time.unwrap_or(match event_notice {
                    true => event_time(*turn),
                    false => turn_time(*turn),
                });
                current = Some(TurnContext {
                    earlier_requesters: match earlier_requesters.is_empty() {
                        true => derived,
                        false => earlier_requesters.clone(),
                    },
                    ..TurnContext::new(*turn, community.clone(), speaker.clone(), time)
                });
                if let Some(s) = speaker {
                    spoken.push((*turn, s.clone()));
                }
            }
            current.clone()
        })
        .collect()
}

/// Reads a whole trace file.
pub fn read_trace(path: &Path) -> Result<Vec<TraceLine>, TraceError> {
    let text = std::fs::read_to_string(path).map_err(|source| TraceError::Io {
        path: path.to_owned(),
        source,
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|source| TraceError::Parse {
                path: path.to_owned(),
                line: i + 1,
                source,
            })
        })
        .collect()
}
