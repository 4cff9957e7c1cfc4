//! `search(query)` over the agent half and the scenario's seeded lookup tools.
//!
//! Search runs the rules of [`cosec_scenarios::search`] over every file the agent may
//! reach, private memory included; each hit names its file.

use super::files::{all_files, MAX_FILE_BYTES};
use super::{Call, Outcome};
use cosec_scenarios::agent::SeededTool;
use cosec_scenarios::search::{self as rules, MAX_HITS};

/// `search(query)`.
pub(crate) fn search(call: &Call<'_>, out: &mut Outcome) -> Result<String, String> {
    let query = call.arg("query")?;
    let qwords = rules::query_words(&query);
    if qwords.is_empty() {
        return Err("the query has no words to search for".to_owned());
    }
    let mut files: Vec<(String, String)> = Vec::new();
    for (key, full) in all_files(&call.trial.agent_root) {
        let too_big = std::fs::metadata(&full).map_or(true, |m| m.len() > MAX_FILE_BYTES);
        if too_big {
            continue;
        }
        let Ok(bytes) = call.read_bytes(&key, &full) else {
            continue;
        };
        files.push((key, String::from_utf8_lossy(&bytes).into_owned()));
    }
    let texts: Vec<&str> = files.iter().map(|(_, text)| text.as_str()).collect();
    let hits = rules::ranked(&texts, &qwords);
    if hits.is_empty() {
        return Ok(format!("No matches for \"{query}\"."));
    }
    let total = hits.len();
    let mut text = if total > MAX_HITS {
        format!("{total} matches for \"{query}\" (showing the best {MAX_HITS}):")
    } else {
        format!(
            "{total} match{} for \"{query}\":",
            if total == 1 { "" } else { "es" }
        )
    };
    for hit in hits.into_iter().take(MAX_HITS) {
        let Some((key, _)) = files.get(hit.file) else {
            continue;
        };
        // Whether or not it was cut, the snippet hands out part of the paragraph.
        let objects = call
            .file_labels(key)
            .unwrap_or_else(|| call.index.objects_in(Some(key), hit.paragraph, true));
        text.push_str(&format!("\n\n[{key}]\n{}", rules::snippet(hit.paragraph)));
        out.served(objects);
    }
    Ok(text)
}

/// A seeded lookup tool: every observation the argument triggers
/// ([`rules::triggers`]), else the tool's empty result.
pub(crate) fn seeded_tool(
    call: &Call<'_>,
    tool: &SeededTool,
    out: &mut Outcome,
) -> Result<String, String> {
    let value = match call.arg(&tool.argument) {
        Ok(v) => v,
        // Models sometimes rename the single argument; accept one lone string under any name.
        Err(missing) => {
            let strings: Vec<&str> = call
                .args
                .as_object()
                .map(|m| m.values().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            match strings.as_slice() {
                [only] => (*only).to_owned(),
                _ => return Err(missing),
            }
        }
    };
    let matches: Vec<_> = call
        .index
        .observations
        .get(&tool.name)
        .map(|obs| {
            obs.iter()
                .filter(|o| rules::triggers(&o.trigger, &value))
                .collect()
        })
        .unwrap_or_default();
    if matches.is_empty() {
        return Ok(tool.empty_result.clone());
    }
    // Decided by label before anything is served: an observation this turn may not
    // read is answered by the placeholder.
    let mut texts = Vec::with_capacity(matches.len());
    for o in &matches {
        if call.may_serve(&o.object) {
            out.served([o.object.clone()]);
            texts.push(o.content.as_str());
        } else {
            texts.push(crate::guard::PLACEHOLDER);
        }
    }
    Ok(texts.join("\n\n"))
}
