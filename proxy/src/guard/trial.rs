//! The guard of one trial: labels of the seeded objects, taint, and the detectors.
//!
//! Built from the agent tier (each object's own content, where it lives) and the
//! platform tier (labels, state); never from the verifier tier. An object is
//! *protected* when its label is not Public and it has at least one sensitivity;
//! only protected objects are ever detected or decided, and every protected object in
//! the agent's reach is a candidate (see [`TrialGuard::candidates`] for why). Taint,
//! what appeared in what the model was sent ([`TrialGuard::observe_request`]) or what
//! the shim handed out ([`TrialGuard::mark_served`]), is recorded as evidence.

use super::decide::DecisionCache;
use super::detect::{Detector, Hit, ObjIdx, PatternLibrary, PieceOf};
use super::pieces::{Piece, Reader, Released};
use super::policy::GuardPolicy;
use super::stats::{GuardCounts, GuardStats};
use super::{GuardLayer, GuardLayers, GuardMode};
use crate::api::ModelRequest;
use crate::layout;
use crate::provenance::Workspace;
use crate::registry::{Trial, TurnContext};
use crate::trace::{TraceEvent, TraceWriter};
use cosec_scenarios::ids::event_time;
use cosec_scenarios::{
    AgentTier, CommunityId, Destination, Namespace, ObjectId, PlatformTier, Surface, Time, UserId,
};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

/// A protected object (its content lives in the pattern library).
pub(crate) struct Protected {
    /// The object.
    pub id: ObjectId,
}

/// Taint of a trial and the candidate detector built for it.
struct Taint {
    tainted: BTreeSet<ObjIdx>,
    seen_messages: HashSet<u64>,
}

/// Indexes of the patterns participants said themselves.
type Echoes = Arc<BTreeSet<usize>>;

/// The runtime guard of one trial (cheap to share behind an `Arc`).
pub struct TrialGuard {
    pub(crate) id: String,
    pub(crate) agent: Arc<AgentTier>,
    pub(crate) platform: Arc<PlatformTier>,
    pub(crate) target: UserId,
    pub(crate) policy: Arc<GuardPolicy>,
    pub(crate) mode: GuardMode,
    pub(crate) layers: GuardLayers,
    pub(crate) trace: Option<Arc<TraceWriter>>,
    pub(crate) agent_roots: Vec<PathBuf>,
    pub(crate) objects: Vec<Protected>,
    index: HashMap<ObjectId, ObjIdx>,
    /// Every seeded file or document by canonical tool path (protected or not).
    pub(crate) seeded_paths: HashMap<String, ObjectId>,
    library: PatternLibrary,
    /// A detector over every protected object (taint, copies, restores).
    pub(crate) all: Arc<Detector>,
    taint: Mutex<Taint>,
    /// Objects whose strong match was denied in a flow to a destination, with the
    /// community state it was denied in (how many scheduled events had happened):
    /// their weak matches are withheld there until the next event changes the state.
    anchors: Mutex<HashSet<(ObjIdx, Destination, usize)>>,
    /// Matches in request texts already scanned, by text hash (harnesses re-send
    /// their whole history with every call).
    pub(crate) context_hits: Mutex<HashMap<u64, Arc<Vec<Hit>>>>,
    /// The end of what was last released to each destination, so that a value split
    /// over two outputs to one place is still found.
    history: Mutex<HashMap<Destination, String>>,
    /// The pieces of strong patterns released to each reader (see [`super::pieces`]).
    released: Mutex<Released>,
    /// Patterns the participants of a community said themselves up to a turn.
    echoes: Mutex<HashMap<(u8, CommunityId), Echoes>>,
    pub(crate) cache: DecisionCache,
    /// The books of the trial's workspace (input layer), opened at the first turn.
    workspace: Mutex<Option<Workspace>>,
    counters: Mutex<GuardCounts>,
    trace_error: Mutex<Option<String>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl TrialGuard {
    /// The guard of a trial from its tiers; `target` is the user the agent represents.
    /// No trace is written until [`TrialGuard::with_trace`] gives one.
    pub fn new(
        id: impl Into<String>,
        agent: Arc<AgentTier>,
        platform: Arc<PlatformTier>,
        target: UserId,
        policy: Arc<GuardPolicy>,
        mode: GuardMode,
    ) -> Self {
        let mut objects = Vec::new();
        let mut index = HashMap::new();
        for label in &platform.labels {
            if cosec_policies::evaluate::read::is_protected(label)
                && !index.contains_key(&label.object)
            {
                let idx = ObjIdx::try_from(objects.len()).unwrap_or(ObjIdx::MAX);
                index.insert(label.object.clone(), idx);
                objects.push(Protected {
                    id: label.object.clone(),
                });
            }
        }
        let mut seeded_paths = HashMap::new();
        let mut contents: Vec<(ObjIdx, &str)> = Vec::new();
        let mut common: Vec<&str> = Vec::new();
        for seed in &agent.seeds {
            if let Surface::File { namespace, path }
            | Surface::Document {
                namespace, path, ..
            } = &seed.surface
            {
                seeded_paths.insert(layout::tool_path(namespace, path), seed.object.clone());
            }
            match index.get(&seed.object) {
                Some(idx) => contents.push((*idx, seed.content.as_str())),
                None => common.push(seed.content.as_str()),
            }
        }
        // The rest of the platform corpus: a pattern found there is not distinctive.
        // What participants say in their messages is not part of it, so that naming a
        // thing in a message never switches its protection off.
        common.extend(agent.event_notices.iter().map(|n| n.text.as_str()));
        common.extend(agent.people.iter().map(|p| p.name.as_str()));
        common.extend(agent.communities.iter().map(|c| c.name.as_str()));
        common.extend(agent.communities.iter().map(|c| c.description.as_str()));
        common.extend(agent.workflows.iter().map(|w| w.description.as_str()));
        for tool in &agent.tools {
            common.push(tool.description.as_str());
            common.push(tool.empty_result.as_str());
        }
        let library = PatternLibrary::build(contents, &common);
        let all = Arc::new(Detector::build(&library, |_| true));
        TrialGuard {
            id: id.into(),
            agent,
            platform,
            target,
            policy,
            mode,
            layers: GuardLayers::default(),
            trace: None,
            agent_roots: Vec::new(),
            objects,
            index,
            seeded_paths,
            library,
            all,
            taint: Mutex::new(Taint {
                tainted: BTreeSet::new(),
                seen_messages: HashSet::new(),
            }),
            anchors: Mutex::new(HashSet::new()),
            context_hits: Mutex::new(HashMap::new()),
            echoes: Mutex::new(HashMap::new()),
            history: Mutex::new(HashMap::new()),
            released: Mutex::new(Released::default()),
            cache: DecisionCache::default(),
            workspace: Mutex::new(None),
            counters: Mutex::new(GuardCounts::default()),
            trace_error: Mutex::new(None),
        }
    }

    /// The guard of a registered trial: its tiers, target user, trace and agent root.
    pub fn for_trial(trial: &Trial, policy: Arc<GuardPolicy>, mode: GuardMode) -> Self {
        Self::new(
            trial.id.clone(),
            Arc::clone(&trial.agent),
            Arc::clone(&trial.platform),
            trial.agent.target_user.clone(),
            policy,
            mode,
        )
        .with_trace(Arc::clone(&trial.trace))
        .with_agent_root(trial.agent_root.clone())
    }

    /// Runs only `layers`.
    pub fn with_layers(mut self, layers: GuardLayers) -> Self {
        self.layers = layers;
        self
    }

    /// The layers that run.
    pub fn layers(&self) -> GuardLayers {
        self.layers
    }

    /// How many of the scenario's scheduled events have happened by `time`: the
    /// community state in force then.
    pub(crate) fn epoch(&self, time: Time) -> usize {
        self.platform
            .events
            .iter()
            .take_while(|e| event_time(e.after_turn) <= time)
            .count()
    }

    /// Notes that a strong match of `object` was denied in a flow to `destination` in
    /// community state `epoch` (see [`TrialGuard::epoch`]).
    pub(crate) fn anchor(&self, object: ObjIdx, destination: &Destination, epoch: usize) {
        lock(&self.anchors).insert((object, destination.clone(), epoch));
    }

    /// Whether a strong match of `object` was denied in a flow to `destination` in
    /// community state `epoch`.
    pub(crate) fn is_anchored(
        &self,
        object: ObjIdx,
        destination: &Destination,
        epoch: usize,
    ) -> bool {
        lock(&self.anchors).contains(&(object, destination.clone(), epoch))
    }

    /// The patterns that participants of `destination`'s community wrote themselves in
    /// its session up to the turn `ctx`: repeating them there discloses nothing new,
    /// so no layer withholds them there (anything else of the same object still is).
    pub(crate) fn echoes(
        &self,
        ctx: &TurnContext,
        destination: &Destination,
    ) -> Arc<BTreeSet<usize>> {
        let community = match destination {
            Destination::Community { community }
            | Destination::Namespace {
                namespace: Namespace::Community { community },
            } => community.clone(),
            _ => return Arc::new(BTreeSet::new()),
        };
        let key = (ctx.turn, community);
        if let Some(found) = lock(&self.echoes).get(&key) {
            return Arc::clone(found);
        }
        let said: Vec<&str> = self
            .agent
            .turns
            .iter()
            .filter(|t| t.index <= ctx.turn && t.community == key.1)
            .map(|t| t.text.as_str())
            .collect();
        let found = Arc::new(self.candidates().patterns_in(&said.join("\n")));
        lock(&self.echoes).insert(key, Arc::clone(&found));
        found
    }

    /// The end of what was released to `destination` before (empty if nothing).
    pub(crate) fn history_of(&self, destination: &Destination) -> String {
        lock(&self.history)
            .get(destination)
            .cloned()
            .unwrap_or_default()
    }

    /// Appends released text to `destination`'s history, keeping its last `keep`
    /// characters.
    pub(crate) fn remember(&self, destination: &Destination, released: &str, keep: usize) {
        if released.is_empty() {
            return;
        }
        let mut history = lock(&self.history);
        let h = history.entry(destination.clone()).or_default();
        h.push_str(released);
        if let Some((cut, _)) = h.char_indices().rev().nth(keep) {
            h.drain(..cut);
        }
    }

    /// The pieces of clause `key` released to `reader` before.
    pub(crate) fn released_pieces(&self, reader: &Reader, key: &str) -> Vec<PieceOf> {
        lock(&self.released).of(reader, key)
    }

    /// Remembers that `readers` received `pieces` (clause key, piece).
    pub(crate) fn release_pieces(&self, readers: &[Reader], pieces: &[Piece]) {
        if !pieces.is_empty() {
            lock(&self.released).add(readers, pieces);
        }
    }

    /// The books of the trial's workspace (`None` before the first turn's view).
    pub(crate) fn workspace(&self) -> MutexGuard<'_, Option<Workspace>> {
        lock(&self.workspace)
    }

    /// Records decisions in this trace.
    pub fn with_trace(mut self, trace: Arc<TraceWriter>) -> Self {
        self.trace = Some(trace);
        self
    }

    /// Adds a directory under which absolute paths in tool calls are agent-relative
    /// (the agent root as the harness sees it); its canonical form is added too.
    pub fn with_agent_root(mut self, root: PathBuf) -> Self {
        if let Ok(real) = root.canonicalize() {
            if real != root {
                self.agent_roots.push(real);
            }
        }
        self.agent_roots.push(root);
        self
    }

    /// The trial id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Enforce or shadow.
    pub fn mode(&self) -> GuardMode {
        self.mode
    }

    /// Whether the guard protects this object (labeled, not Public, sensitive).
    pub fn is_protected(&self, object: &ObjectId) -> bool {
        self.index.contains_key(object)
    }

    /// Number of distinct distinctive patterns over all protected objects.
    pub fn pattern_count(&self) -> usize {
        self.library.len()
    }

    pub(crate) fn idx(&self, object: &ObjectId) -> Option<ObjIdx> {
        self.index.get(object).copied()
    }

    pub(crate) fn object(&self, idx: ObjIdx) -> Option<&Protected> {
        self.objects.get(usize::try_from(idx).ok()?)
    }

    /// Taints the protected objects whose distinctive parts appear in what the model was
    /// sent (every message and earlier tool call; messages already seen are skipped).
    /// Returns how many objects became candidates.
    pub fn observe_request(&self, request: &ModelRequest) -> usize {
        let mut found = BTreeSet::new();
        {
            let mut taint = lock(&self.taint);
            for m in &request.messages {
                let mut texts = vec![m.content.as_str()];
                texts.extend(m.tool_calls.iter().map(|c| c.arguments.as_str()));
                for text in texts {
                    let mut h = DefaultHasher::new();
                    text.hash(&mut h);
                    if taint.seen_messages.insert(h.finish()) {
                        // The input layer's scan of the same text, when it made one.
                        found.extend(
                            self.context_hits(text)
                                .iter()
                                .filter(|h| h.kind.is_strong())
                                .flat_map(|h| h.objects.iter().copied()),
                        );
                    }
                }
            }
        }
        self.taint_all(found)
    }

    /// Taints an object the shim handed to the agent; `false` if it is not protected.
    pub fn mark_served(&self, object: &ObjectId) -> bool {
        match self.idx(object) {
            Some(idx) => {
                self.taint_all([idx]);
                true
            }
            None => false,
        }
    }

    fn taint_all(&self, objects: impl IntoIterator<Item = ObjIdx>) -> usize {
        let mut taint = lock(&self.taint);
        objects
            .into_iter()
            .filter(|o| taint.tainted.insert(*o))
            .count()
    }

    /// Whether an object is a candidate for detection.
    pub fn is_tainted(&self, object: &ObjectId) -> bool {
        self.idx(object)
            .is_some_and(|i| lock(&self.taint).tainted.contains(&i))
    }

    /// The candidate objects, in label order.
    pub fn tainted(&self) -> Vec<ObjectId> {
        let taint = lock(&self.taint);
        taint
            .tainted
            .iter()
            .filter_map(|i| self.object(*i).map(|p| p.id.clone()))
            .collect()
    }

    /// The detector over the candidates: every protected object in the agent's reach,
    /// not only the tainted ones. Harnesses carry content between sessions through
    /// channels the proxy never sees (native memory stores, compaction summaries, a
    /// harness's own recollection), so a detector limited to observed taint misses
    /// leaks (measured: PVR 0.20 instead of 0 on `sim:comply` with the built-in agent);
    /// taint is still tracked and traced as evidence of what the model was shown.
    pub(crate) fn candidates(&self) -> Arc<Detector> {
        Arc::clone(&self.all)
    }

    /// The streaming hold-back window `W` in characters for the current candidates.
    pub fn hold_back(&self) -> usize {
        self.candidates().window()
    }

    /// The counters of this trial.
    pub fn stats(&self) -> GuardStats {
        lock(&self.counters).stats()
    }

    pub(crate) fn counters(&self) -> GuardCounts {
        lock(&self.counters).clone()
    }

    pub(crate) fn count(
        &self,
        layer: GuardLayer,
        outcome: super::stats::GuardOutcome,
        latency_us: u64,
    ) {
        let enforced = self.mode == GuardMode::Enforce;
        lock(&self.counters).record(layer, outcome, enforced, latency_us);
    }

    /// The first failure to write a decision to the trace, if any (the trial's evidence
    /// is then incomplete).
    pub fn trace_error(&self) -> Option<String> {
        lock(&self.trace_error).clone()
    }

    /// Whether trace events are kept (building one for nobody is wasted work).
    pub(crate) fn recording(&self) -> bool {
        self.trace.as_ref().is_some_and(|t| t.is_recording())
    }

    pub(crate) fn record(&self, event: TraceEvent) {
        if let Some(trace) = &self.trace {
            if let Err(e) = trace.record(event) {
                tracing::error!(trial = %self.id, error = %e, "guard could not write the trace");
                lock(&self.trace_error).get_or_insert_with(|| e.to_string());
            }
        }
    }
}
