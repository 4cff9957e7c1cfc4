//! Which strings of a wire message the guard reads, in either wire API.
//!
//! The guard reads every string of a request and of a response, wherever it sits and
//! whatever its key, except the values of the structural keys in [`STRUCTURAL_KEYS`]
//! (ids, roles, types, model names, enum-like settings) — and those only while the
//! value looks like a token: without whitespace and at most [`MAX_TOKEN_CHARS`]
//! characters long, so a sentence under an `id` key is read like any other text.
//! Unknown fields are read, never skipped.
//!
//! Some content cannot be read at all: an image, audio, video or file part
//! ([`opaque_part`]), a reasoning item the upstream encrypted (`encrypted_content`),
//! and conversation state the upstream keeps by reference ([`BY_REFERENCE_KEYS`],
//! `item_reference` items). Each layer applies its rule to them (docs/guard.md).

use serde_json::{Map, Value};

/// Keys whose token-like values are structure, not text.
pub const STRUCTURAL_KEYS: &[&str] = &[
    "id",
    "object",
    "type",
    "role",
    "model",
    "index",
    "status",
    "call_id",
    "tool_call_id",
    "item_id",
    "response_id",
    "output_index",
    "content_index",
    "summary_index",
    "sequence_number",
    "created",
    "created_at",
    "completed_at",
    "finish_reason",
    "service_tier",
    "system_fingerprint",
    "tool_choice",
    "reasoning_effort",
    "effort",
    "detail",
    "format",
    "encoding",
    "truncation",
    "verbosity",
    "prompt_cache_key",
    "safety_identifier",
    "voice",
    "modalities",
    "include",
    "mime_type",
    "media_type",
];

/// Longest value of a structural key that is still taken as a token.
pub const MAX_TOKEN_CHARS: usize = 128;

/// Top-level request keys that make the upstream add conversation state it keeps
/// itself, which the guard cannot read.
pub const BY_REFERENCE_KEYS: &[&str] = &["previous_response_id", "conversation"];

/// Part and item types whose content is not text: images, audio, video and files (by
/// data, URL or file id), and references to items the upstream stores.
pub const OPAQUE_PART_TYPES: &[&str] = &[
    "image_url",
    "input_image",
    "image",
    "input_audio",
    "audio",
    "output_audio",
    "input_file",
    "file",
    "input_video",
    "video_url",
    "image_generation_call",
    "item_reference",
];

/// Whether the string `value` under `key` is structure the guard does not read.
pub fn is_structural(key: &str, value: &str) -> bool {
    STRUCTURAL_KEYS.contains(&key)
        && !value.chars().any(char::is_whitespace)
        && value.chars().nth(MAX_TOKEN_CHARS).is_none()
}

/// What an object is when the guard cannot read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opaque {
    /// Image, audio, video or file content (`what` names the part type).
    Media(&'static str),
    /// A reference to an item the upstream stores.
    Reference,
}

/// The kind of unreadable part `obj` is, if it is one.
pub fn opaque_part(obj: &Map<String, Value>) -> Option<Opaque> {
    let kind = obj.get("type")?.as_str()?;
    let known = OPAQUE_PART_TYPES.iter().find(|t| **t == kind)?;
    Some(if *known == "item_reference" {
        Opaque::Reference
    } else {
        Opaque::Media(known)
    })
}

/// Whether `obj` carries content its upstream encrypted (a reasoning item with
/// `encrypted_content`).
pub fn is_encrypted(obj: &Map<String, Value>) -> bool {
    obj.get("encrypted_content")
        .is_some_and(|v| !v.is_null() && v.as_str() != Some(""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structural_keys_hold_only_tokens() {
        assert!(is_structural("id", "call_abc-123"));
        assert!(is_structural("role", "assistant"));
        assert!(!is_structural("id", "Ole takes levetiracetam"));
        assert!(!is_structural("id", &"x".repeat(MAX_TOKEN_CHARS + 1)));
        assert!(!is_structural("name", "post_message"));
        assert!(!is_structural("metadata", "x"));
    }

    #[test]
    fn media_and_references_are_opaque() {
        let part = |v: Value| opaque_part(v.as_object().unwrap());
        assert_eq!(
            part(json!({"type": "image_url", "image_url": {"url": "data:..."}})),
            Some(Opaque::Media("image_url"))
        );
        assert_eq!(
            part(json!({"type": "item_reference", "id": "msg_1"})),
            Some(Opaque::Reference)
        );
        assert_eq!(part(json!({"type": "input_text", "text": "hi"})), None);
        assert!(is_encrypted(
            json!({"type": "reasoning", "encrypted_content": "gAAA"})
                .as_object()
                .unwrap()
        ));
    }
}
