//! Tool calls in model responses (and the shim's transfers): redact denied content
//! inside writes, posts and sends; block calls whose effect is a denied transfer of a
//! labeled file.
//!
//! Tool names are compared without MCP prefixes (`mcp__cosec__post_message` and
//! namespace `mcp__cosec` are `post_message`). Paths are agent-relative
//! (`communities/<id>/...`, `shared/...`, `memory/...`); an absolute path under the
//! agent root counts too, and a shell command's relative paths are taken from the
//! agent root. A write to a path outside the agent's files has no destination of its
//! own: its content is read as part of the call, a disclosure to the turn's reply
//! destination ([`super::toolargs`]), like every other string of the arguments.

use super::shell::{effects, ShellEffect};
use super::stats::GuardOutcome;
use super::toolargs::Redaction;
use super::trial::TrialGuard;
use super::{reply_destination, GuardLayer, GuardMode, GuardPoint};
use crate::api::ToolCall;
use crate::native::{self, plain_name, NativeRole, SHELL_COMMAND_KEYS};
use crate::registry::TurnContext;
use crate::tools;
use cosec_scenarios::{Action, CommunityId, Destination, ObjectId, UserId};
use serde_json::Value;

/// What to do with a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolCallVerdict {
    /// Let it through unchanged.
    Allow,
    /// Let this call through instead: the same call with denied spans of its content
    /// replaced by the marker.
    Rewrite(ToolCall),
    /// Do not run it; answer it through the shim tool [`super::POLICY_BLOCKED`] (see
    /// [`super::policy_blocked_call`]). The reason names no protected text or path.
    Block {
        /// Why, for the agent and the trace.
        reason: String,
    },
}

/// The reason given for a blocked transfer.
pub const BLOCKED_TRANSFER: &str =
    "blocked by policy: this would move protected data to a place whose audience may not receive it";
/// The reason given for arguments that cannot be checked.
pub const BLOCKED_MALFORMED: &str =
    "blocked by policy: the tool arguments are not a valid JSON object, so the call could not be checked";

const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "filePath",
    "filename",
    "file",
    "target_file",
];
const PATCH_KEYS: &[&str] = &["input", "patch", "content"];

/// Families of tools the guard looks into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    FileWrite,
    Patch,
    Post,
    Send,
    Workflow,
    Share,
    Copy,
    Shell,
}

fn kind_of(name: &str) -> Option<Kind> {
    Some(match name {
        tools::POST_MESSAGE => Kind::Post,
        tools::SEND_MESSAGE => Kind::Send,
        tools::SUBMIT_WORKFLOW => Kind::Workflow,
        tools::SHARE_FILE => Kind::Share,
        tools::COPY_FILE => Kind::Copy,
        _ => match native::role(name)? {
            NativeRole::Shell => Kind::Shell,
            NativeRole::FileWrite => Kind::FileWrite,
            NativeRole::Patch => Kind::Patch,
            NativeRole::Read => return None,
        },
    })
}

fn str_arg<'a>(args: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
}

impl TrialGuard {
    fn community_named(&self, wanted: &str) -> Option<CommunityId> {
        crate::names::community_named(&self.agent, wanted)
    }

    fn person_named(&self, wanted: &str) -> Option<UserId> {
        crate::names::person_named(&self.agent, wanted)
    }

    fn workflow_named(&self, wanted: &str) -> Option<String> {
        crate::names::workflow_named(&self.agent, wanted)
    }

    /// Checks one tool call of a model response in turn `ctx`.
    pub fn check_tool_call(&self, ctx: &TurnContext, call: &ToolCall) -> ToolCallVerdict {
        let name = plain_name(&call.name);
        // A read asks the platform for content; its path or query reaches nobody, and
        // what comes back is the input layer's to decide.
        if native::role(&name) == Some(NativeRole::Read)
            || self.agent.tools.iter().any(|t| t.name == name)
        {
            return ToolCallVerdict::Allow;
        }
        let Some(kind) = kind_of(&name) else {
            return self.enforced(self.unknown_call(ctx, call));
        };
        let parsed = serde_json::from_str::<Value>(&call.arguments).ok();
        let verdict = match (kind, parsed) {
            (Kind::Patch, Some(Value::String(patch))) => self.patch(ctx, call, &patch, None),
            (Kind::Patch, None) => self.patch(ctx, call, &call.arguments, None),
            (_, Some(args)) if args.is_object() => self.with_args(ctx, call, kind, args),
            _ => self.malformed(ctx, call),
        };
        self.enforced(verdict)
    }

    pub(crate) fn enforced(&self, verdict: ToolCallVerdict) -> ToolCallVerdict {
        match self.mode {
            GuardMode::Enforce => verdict,
            GuardMode::Shadow => ToolCallVerdict::Allow,
        }
    }

    fn malformed(&self, ctx: &TurnContext, call: &ToolCall) -> ToolCallVerdict {
        self.trace_unchecked(ctx, &call.name, "malformed tool arguments");
        ToolCallVerdict::Block {
            reason: BLOCKED_MALFORMED.to_owned(),
        }
    }

    /// Traces a call that could not be checked at all (no object to name).
    fn trace_unchecked(&self, ctx: &TurnContext, tool: &str, error: &str) {
        let started = std::time::Instant::now();
        self.count(GuardLayer::Output, GuardOutcome::Block, 0);
        self.record(crate::trace::TraceEvent::GuardDecision {
            turn: ctx.turn,
            point: GuardPoint::ToolCall,
            layer: GuardLayer::Output,
            object: ObjectId::from("(unchecked)"),
            pattern: None,
            view: None,
            requester: ctx.requester.clone(),
            principals: Vec::new(),
            time: Some(ctx.time),
            action: Action::Write,
            destination: format!("tool:{tool}"),
            decision: GuardOutcome::Block,
            policies: Vec::new(),
            errors: vec![error.to_owned()],
            enforced: self.mode == GuardMode::Enforce,
            latency_us: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        });
    }

    fn with_args(
        &self,
        ctx: &TurnContext,
        call: &ToolCall,
        kind: Kind,
        mut args: Value,
    ) -> ToolCallVerdict {
        let target = match kind {
            Kind::FileWrite => str_arg(&args, PATH_KEYS)
                .and_then(|p| self.namespace_of(p))
                .map(|namespace| (Action::Write, Destination::Namespace { namespace })),
            Kind::Post => str_arg(&args, &["community"])
                .and_then(|c| self.community_named(c))
                .map(|community| (Action::Disclose, Destination::Community { community })),
            Kind::Send => str_arg(&args, &["person", "to", "recipient"])
                .and_then(|p| self.person_named(p))
                .map(|user| (Action::Send, Destination::Person { user })),
            Kind::Workflow => str_arg(&args, &["name", "workflow"])
                .and_then(|w| self.workflow_named(w))
                .map(|name| (Action::Send, Destination::Workflow { name })),
            Kind::Share => {
                let dest = str_arg(&args, &["community"])
                    .and_then(|c| self.community_named(c))
                    .map(|community| (Action::Share, Destination::Community { community }));
                return self.transfer(ctx, call, args, &["path"], dest, &["path", "community"]);
            }
            Kind::Copy => {
                let dest = str_arg(&args, &["to", "destination"])
                    .and_then(|p| self.namespace_of(p))
                    .map(|namespace| (Action::Write, Destination::Namespace { namespace }));
                let places = &["from", "source", "to", "destination"];
                return self.transfer(ctx, call, args, &["from", "source"], dest, places);
            }
            Kind::Shell => return self.shell(ctx, call, args),
            Kind::Patch => {
                return match str_arg(&args, PATCH_KEYS).map(str::to_owned) {
                    Some(patch) => self.patch(ctx, call, &patch, Some(args)),
                    None => self.unknown_call(ctx, call),
                }
            }
        };
        let Some((action, destination)) = target else {
            // A destination the guard cannot resolve: read like an unknown call.
            return self.unknown_call(ctx, call);
        };
        let routing: &[&str] = match kind {
            Kind::FileWrite => PATH_KEYS,
            Kind::Post => &["community"],
            Kind::Send => &["person", "to", "recipient"],
            Kind::Workflow => &["name", "workflow"],
            _ => &[],
        };
        let mut found = Redaction::default();
        self.check_routing(ctx, &args, routing, action, &destination, &mut found);
        self.redact_except(ctx, &mut args, routing, action, &destination, &mut found);
        found.verdict(call, &args)
    }

    /// A transfer's verdict, and when it is allowed, the call's other strings read as
    /// a disclosure to the turn's reply destination.
    /// A call moving the file named under `source_keys` to `dest` (with its action): the
    /// move is decided by the file's labels, the call's other strings as text.
    fn transfer(
        &self,
        ctx: &TurnContext,
        call: &ToolCall,
        args: Value,
        source_keys: &[&str],
        dest: Option<(Action, Destination)>,
        places: &[&str],
    ) -> ToolCallVerdict {
        let verdict = match (str_arg(&args, source_keys), dest) {
            (Some(src), Some((action, dest))) => {
                self.check_transfer(ctx, src, action, &dest, GuardPoint::ToolCall)
            }
            _ => ToolCallVerdict::Allow,
        };
        self.and_rest(ctx, call, verdict, args, places)
    }

    fn and_rest(
        &self,
        ctx: &TurnContext,
        call: &ToolCall,
        verdict: ToolCallVerdict,
        mut args: Value,
        routing: &[&str],
    ) -> ToolCallVerdict {
        if verdict != ToolCallVerdict::Allow {
            return verdict;
        }
        let mut found = Redaction::default();
        let reply = reply_destination(ctx);
        self.check_routing(ctx, &args, routing, Action::Disclose, &reply, &mut found);
        if let Some(map) = args.as_object_mut() {
            self.redact_rest(ctx, map, routing, &mut found);
        }
        found.verdict(call, &args)
    }

    /// A shell call: copies and writes into the agent's files are decided for their
    /// destination; the rest of the script, and every other argument, is a disclosure
    /// to the turn's reply destination (what it prints comes back into the session).
    fn shell(&self, ctx: &TurnContext, call: &ToolCall, mut args: Value) -> ToolCallVerdict {
        let Some((key, index)) = shell_slot(&args) else {
            return self.unknown_call(ctx, call);
        };
        let script = match (index, args.get(key)) {
            (None, Some(Value::String(s))) => s.clone(),
            (Some(i), Some(Value::Array(a))) => {
                a.get(i).and_then(Value::as_str).unwrap_or("").to_owned()
            }
            _ => return self.unknown_call(ctx, call),
        };
        let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
        let mut decided: Vec<std::ops::Range<usize>> = Vec::new();
        let mut blocked = false;
        for effect in effects(&script) {
            match effect {
                ShellEffect::Copy { source, target } => {
                    let Some(namespace) = self.namespace_of(&target) else {
                        continue;
                    };
                    let dest = Destination::Namespace { namespace };
                    blocked |= self.transfer_denied(
                        ctx,
                        &source,
                        Action::Write,
                        &dest,
                        GuardPoint::ToolCall,
                    );
                }
                ShellEffect::Write { content, target } => {
                    let Some(namespace) = self.namespace_of(&target) else {
                        continue;
                    };
                    let dest = Destination::Namespace { namespace };
                    let text = script.get(content.clone()).unwrap_or_default();
                    let checked =
                        self.check_text(ctx, text, Action::Write, &dest, GuardPoint::ToolCall);
                    if checked.text != text {
                        edits.push((content.clone(), checked.text));
                    }
                    decided.push(content);
                }
            }
        }
        if blocked {
            return ToolCallVerdict::Block {
                reason: BLOCKED_TRANSFER.to_owned(),
            };
        }
        let reply = reply_destination(ctx);
        for gap in gaps(script.len(), decided) {
            let text = script.get(gap.clone()).unwrap_or_default();
            let checked =
                self.check_text(ctx, text, Action::Disclose, &reply, GuardPoint::ToolCall);
            if checked.text != text {
                edits.push((gap, checked.text));
            }
        }
        let mut found = Redaction::default();
        if !edits.is_empty() {
            let new_script = splice(&script, edits);
            let slot = match index {
                None => args.get_mut(key),
                Some(i) => args.get_mut(key).and_then(|a| a.get_mut(i)),
            };
            if let Some(v) = slot {
                *v = Value::String(new_script);
            }
            found.changed = true;
        }
        if let Some(map) = args.as_object_mut() {
            self.redact_rest(ctx, map, &[key], &mut found);
        }
        found.verdict(call, &args)
    }

    /// An `apply_patch` call: denied spans in added lines are redacted.
    fn patch(
        &self,
        ctx: &TurnContext,
        call: &ToolCall,
        patch: &str,
        args: Option<Value>,
    ) -> ToolCallVerdict {
        let mut edits = Vec::new();
        for (range, path) in added_blocks(patch) {
            let Some(namespace) = self.namespace_of(&path) else {
                continue;
            };
            let dest = Destination::Namespace { namespace };
            let text = &patch[range.clone()];
            let checked = self.check_text(ctx, text, Action::Write, &dest, GuardPoint::ToolCall);
            if checked.text != text {
                edits.push((range, checked.text));
            }
        }
        if edits.is_empty() {
            return ToolCallVerdict::Allow;
        }
        let new_patch = splice(patch, edits);
        match args {
            Some(mut args) => {
                if let Some(key) = PATCH_KEYS
                    .iter()
                    .find(|k| args.get(**k).is_some_and(Value::is_string))
                {
                    args[*key] = Value::String(new_patch);
                }
                rewrite(call, &args)
            }
            None => {
                let arguments = if serde_json::from_str::<Value>(&call.arguments).is_ok() {
                    Value::String(new_patch).to_string()
                } else {
                    new_patch
                };
                ToolCallVerdict::Rewrite(ToolCall {
                    arguments,
                    ..call.clone()
                })
            }
        }
    }
}

/// Where a shell call keeps its script: the key, and the index for `[sh, -c, script]`.
fn shell_slot(args: &Value) -> Option<(&'static str, Option<usize>)> {
    for key in SHELL_COMMAND_KEYS {
        match args.get(*key) {
            Some(Value::String(_)) => return Some((key, None)),
            Some(Value::Array(a)) if !a.is_empty() => return Some((key, Some(a.len() - 1))),
            _ => {}
        }
    }
    None
}

/// The byte ranges of `0..len` outside the sorted, disjoint `decided` ranges.
fn gaps(len: usize, mut decided: Vec<std::ops::Range<usize>>) -> Vec<std::ops::Range<usize>> {
    decided.sort_by_key(|r| r.start);
    let mut out = Vec::new();
    let mut cur = 0;
    for r in decided {
        if r.start > cur {
            out.push(cur..r.start);
        }
        cur = cur.max(r.end);
    }
    if cur < len {
        out.push(cur..len);
    }
    out
}

/// Replaces byte ranges (sorted, disjoint) of `text`.
fn splice(text: &str, mut edits: Vec<(std::ops::Range<usize>, String)>) -> String {
    edits.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(text.len());
    let mut cur = 0;
    for (r, new) in edits {
        if r.start < cur {
            continue;
        }
        out.push_str(&text[cur..r.start]);
        out.push_str(&new);
        cur = r.end;
    }
    out.push_str(&text[cur..]);
    out
}

/// The byte ranges of added lines in an `apply_patch` text, run by run, with the file.
fn added_blocks(patch: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let mut out = Vec::new();
    let mut path: Option<String> = None;
    let mut run: Option<std::ops::Range<usize>> = None;
    let mut offset = 0;
    for line in patch.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let header = ["*** Add File: ", "*** Update File: ", "*** Move to: "]
            .iter()
            .find_map(|h| body.strip_prefix(h));
        let added = body.starts_with('+') && !body.starts_with("+++");
        if !added {
            if let (Some(r), Some(p)) = (run.take(), &path) {
                out.push((r, p.clone()));
            }
        }
        if let Some(p) = header {
            path = Some(p.trim().to_owned());
        } else if added {
            let r = run.get_or_insert(start + 1..start + 1);
            r.end = start + body.len();
        }
    }
    if let (Some(r), Some(p)) = (run, path) {
        out.push((r, p));
    }
    out
}

fn rewrite(call: &ToolCall, args: &Value) -> ToolCallVerdict {
    ToolCallVerdict::Rewrite(ToolCall {
        arguments: args.to_string(),
        ..call.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_mcp_prefixes() {
        assert_eq!(plain_name("mcp__cosec__post_message"), "post_message");
        assert_eq!(kind_of(&plain_name("Bash")), Some(Kind::Shell));
        assert_eq!(kind_of("read_file"), None);
    }

    #[test]
    fn added_lines_are_found_per_file() {
        let p = "*** Begin Patch\n*** Add File: communities/x/a.md\n+one\n+two\n*** Update File: shared/b.md\n@@\n-old\n+new\n*** End Patch\n";
        let blocks = added_blocks(p);
        assert_eq!(blocks.len(), 2);
        assert_eq!(&p[blocks[0].0.clone()], "one\n+two");
        assert_eq!(blocks[0].1, "communities/x/a.md");
        assert_eq!(&p[blocks[1].0.clone()], "new");
        assert_eq!(blocks[1].1, "shared/b.md");
    }

    #[test]
    fn splice_replaces_ranges() {
        assert_eq!(
            splice("abcdef", vec![(3..5, "X".into()), (0..1, "Y".into())]),
            "YbcXf"
        );
    }
}
