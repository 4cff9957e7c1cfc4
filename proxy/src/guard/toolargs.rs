//! Reading every string of a tool call's arguments.
//!
//! A call whose effect the guard knows (a write, a post, a send ...) has its content
//! decided for that effect's destination; every other string of its arguments, and
//! every string of a call whose effect the guard does not know (an unknown tool, or a
//! known one whose destination it cannot resolve), is decided as a disclosure to the
//! turn's reply destination, since the tool's result comes back into the session. Only
//! the keys that route the call (its path, community or recipient) and the text an
//! edit matches against are left unread. An object key that carries denied content
//! cannot be redacted without changing the call's meaning, so the call is blocked.

use super::toolcall::ToolCallVerdict;
use super::trial::TrialGuard;
use super::{reply_destination, GuardPoint};
use crate::api::ToolCall;
use crate::registry::TurnContext;
use cosec_scenarios::{Action, Destination};
use serde_json::{Map, Value};

/// The reason given for a call whose argument names or tool name carry denied content.
pub const BLOCKED_NAMES: &str =
    "blocked by policy: the call's names carry protected data that may not go to this destination";

/// Keys holding the text an edit looks for in a file, not text it writes.
pub(crate) const MATCH_KEYS: &[&str] = &[
    "old_string",
    "oldString",
    "old_str",
    "old_text",
    "oldText",
    "search",
];

/// What redacting a call's arguments found.
#[derive(Debug, Default)]
pub(crate) struct Redaction {
    /// Some string was redacted.
    pub changed: bool,
    /// An object key carries denied content: the call must be blocked.
    pub blocked: bool,
}

impl Redaction {
    /// The verdict for `call` with redacted arguments `args`.
    pub fn verdict(self, call: &ToolCall, args: &Value) -> ToolCallVerdict {
        if self.blocked {
            ToolCallVerdict::Block {
                reason: BLOCKED_NAMES.to_owned(),
            }
        } else if self.changed {
            ToolCallVerdict::Rewrite(ToolCall {
                arguments: args.to_string(),
                ..call.clone()
            })
        } else {
            ToolCallVerdict::Allow
        }
    }
}

impl TrialGuard {
    /// A call whose effect the guard does not know: every string of its arguments (or
    /// the whole freeform input when it is not JSON) is a disclosure to the turn's
    /// reply destination.
    pub(crate) fn unknown_call(&self, ctx: &TurnContext, call: &ToolCall) -> ToolCallVerdict {
        let dest = reply_destination(ctx);
        match serde_json::from_str::<Value>(&call.arguments) {
            Ok(mut args) if args.is_object() || args.is_array() => {
                let mut found = Redaction::default();
                self.redact_except(ctx, &mut args, &[], Action::Disclose, &dest, &mut found);
                found.verdict(call, &args)
            }
            parsed => {
                // A JSON string (a freeform input sent as JSON) keeps its encoding.
                let (text, json) = match parsed {
                    Ok(Value::String(s)) => (s, true),
                    _ => (call.arguments.clone(), false),
                };
                let checked =
                    self.check_text(ctx, &text, Action::Disclose, &dest, GuardPoint::ToolCall);
                if checked.text == text {
                    return ToolCallVerdict::Allow;
                }
                let arguments = if json {
                    Value::String(checked.text).to_string()
                } else {
                    checked.text
                };
                ToolCallVerdict::Rewrite(ToolCall {
                    arguments,
                    ..call.clone()
                })
            }
        }
    }

    /// Redacts every string under `value` for `action` to `destination`, except the
    /// values of `skip` keys at the top level (the keys that route the call); object
    /// keys are read too.
    pub(crate) fn redact_except(
        &self,
        ctx: &TurnContext,
        value: &mut Value,
        skip: &[&str],
        action: Action,
        destination: &Destination,
        found: &mut Redaction,
    ) {
        match value {
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    if skip.contains(&k.as_str()) || MATCH_KEYS.contains(&k.as_str()) {
                        continue;
                    }
                    self.redact_key(ctx, k, action, destination, found);
                    self.redact_except(ctx, v, &[], action, destination, found);
                }
            }
            Value::Array(items) => {
                for v in items {
                    self.redact_except(ctx, v, &[], action, destination, found);
                }
            }
            Value::String(s) => {
                let checked = self.check_text(ctx, s, action, destination, GuardPoint::ToolCall);
                if checked.text != *s {
                    *s = checked.text;
                    found.changed = true;
                }
            }
            _ => {}
        }
    }

    /// Reads the values of the keys that route a call (its path, community or
    /// recipient): they are not redacted, since that would send the call elsewhere, so
    /// one with denied content blocks the call.
    pub(crate) fn check_routing(
        &self,
        ctx: &TurnContext,
        args: &Value,
        routing: &[&str],
        action: Action,
        destination: &Destination,
        found: &mut Redaction,
    ) {
        for key in routing {
            if let Some(Value::String(s)) = args.get(*key) {
                let checked = self.check_text(ctx, s, action, destination, GuardPoint::ToolCall);
                if checked.denied {
                    found.blocked = true;
                }
            }
        }
    }

    /// Reads an object key of the arguments; one with denied content blocks the call.
    fn redact_key(
        &self,
        ctx: &TurnContext,
        key: &str,
        action: Action,
        destination: &Destination,
        found: &mut Redaction,
    ) {
        // Ordinary argument names are short identifiers; only longer ones can hold a
        // distinctive part.
        if key.len() < 4 {
            return;
        }
        let checked = self.check_text(ctx, key, action, destination, GuardPoint::ToolCall);
        if checked.denied {
            found.blocked = true;
        }
    }

    /// Redacts the strings of a top-level argument object other than `skip` for a
    /// disclosure to the turn's reply destination.
    pub(crate) fn redact_rest(
        &self,
        ctx: &TurnContext,
        args: &mut Map<String, Value>,
        skip: &[&str],
        found: &mut Redaction,
    ) {
        let dest = reply_destination(ctx);
        for (k, v) in args.iter_mut() {
            if skip.contains(&k.as_str()) || MATCH_KEYS.contains(&k.as_str()) {
                continue;
            }
            self.redact_key(ctx, k, Action::Disclose, &dest, found);
            self.redact_except(ctx, v, &[], Action::Disclose, &dest, found);
        }
    }
}
