//! Strict checking of `.cedar` policy files against the schema, with located,
//! human-readable diagnostics (policy id, line:column, Cedar's help line).

use crate::diagnostic::{line_col, Diagnostic, Severity};
use crate::error::PolicyError;
use crate::nesting;
use crate::schema::{parse_schema, SCHEMA_SOURCE};
use cedar_policy::{PolicyId, PolicySet, Schema, ValidationMode, Validator};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The result of checking policy files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    /// Every problem found, file by file, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

impl CheckReport {
    /// Whether no file has any error or warning.
    pub fn is_clean(&self) -> bool {
        self.diagnostics.is_empty()
    }

    /// Number of errors (warnings excluded).
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }
}

/// Whether a policy file with no policy at all (empty, or only comments) is accepted.
///
/// Such a file permits nothing, which as a defense blocks every flow: more often a
/// wrong or truncated file than an intent, so it is refused unless asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EmptyPolicy {
    /// An error diagnostic naming the file and the flag that accepts it.
    #[default]
    Refuse,
    /// Accepted: the policy set permits nothing.
    Allow,
}

/// Parses and validates each `.cedar` file in strict mode against the built-in schema,
/// or against `schema_override` (a human-readable `.cedarschema` file) when given.
///
/// Problems inside the files are diagnostics; an unreadable file or an invalid
/// schema is an error naming the path.
pub fn check_policy_files(
    paths: &[PathBuf],
    schema_override: Option<&Path>,
    empty: EmptyPolicy,
) -> Result<CheckReport, PolicyError> {
    let schema = match schema_override {
        Some(path) => {
            let src = read(path)?;
            parse_schema(&path.display().to_string(), &src)?
        }
        None => parse_schema("built-in", SCHEMA_SOURCE)?,
    };
    let mut report = CheckReport::default();
    for path in paths {
        let src = read(path)?;
        let diagnostics = check_source_diagnostics(path, &src, &schema, empty);
        report.diagnostics.extend(diagnostics);
    }
    Ok(report)
}

fn read(path: &Path) -> Result<String, PolicyError> {
    std::fs::read_to_string(path).map_err(|source| PolicyError::Read {
        path: path.to_owned(),
        source,
    })
}

/// Parses `src` and validates it strictly; returns the policy set when it parsed,
/// and every diagnostic in source order.
///
/// Every policy text the crate accepts (files, `policy test`, the guard, the oracle)
/// comes through here, so the nesting limit that keeps Cedar's recursive parser from
/// overflowing the stack is checked once, before Cedar sees the text.
pub(crate) fn check_source(
    file: &Path,
    src: &str,
    schema: &Schema,
    empty: EmptyPolicy,
) -> (Option<PolicySet>, Vec<Diagnostic>) {
    if let Some(d) = nesting::too_deep(file, src) {
        return (None, vec![d]);
    }
    if empty == EmptyPolicy::Refuse && nesting::is_blank(src) {
        return (None, vec![empty_file(file)]);
    }
    on_large_stack(|| parse_and_validate(file, src, schema))
        .unwrap_or_else(|| (None, vec![cedar_failed(file)]))
}

/// Like [`check_source`], for callers that keep only the diagnostics: the policy set is
/// dropped where it was built, since dropping a deep expression recurses too.
pub(crate) fn check_source_diagnostics(
    file: &Path,
    src: &str,
    schema: &Schema,
    empty: EmptyPolicy,
) -> Vec<Diagnostic> {
    if let Some(d) = nesting::too_deep(file, src) {
        return vec![d];
    }
    if empty == EmptyPolicy::Refuse && nesting::is_blank(src) {
        return vec![empty_file(file)];
    }
    on_large_stack(|| parse_and_validate(file, src, schema).1)
        .unwrap_or_else(|| vec![cedar_failed(file)])
}

/// Runs Cedar's recursive parse and validation: within the limits of [`nesting`] the
/// depth still depends on the text, so it runs on a thread whose stack does not depend
/// on the caller's (a test or a runtime worker has 2 MiB). `None` when no thread could
/// be started or Cedar panicked.
fn on_large_stack<R: Send>(work: impl FnOnce() -> R + Send) -> Option<R> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("cedar-parse".to_owned())
            .stack_size(PARSE_STACK_BYTES)
            .spawn_scoped(scope, work)
            .ok()
            .and_then(|handle| handle.join().ok())
    })
}

/// Stack of the thread Cedar parses and validates on: room for the deepest text the
/// limits of [`nesting`] let through, many times over.
const PARSE_STACK_BYTES: usize = 64 * 1024 * 1024;

fn cedar_failed(file: &Path) -> Diagnostic {
    Diagnostic {
        file: file.to_owned(),
        policy_id: None,
        line: None,
        column: None,
        severity: Severity::Error,
        message:
            "Cedar could not parse or validate this file (no thread to run it on, or Cedar failed)"
                .to_owned(),
        help: Some("retry; if it persists, simplify the file's expressions".to_owned()),
    }
}

fn parse_and_validate(
    file: &Path,
    src: &str,
    schema: &Schema,
) -> (Option<PolicySet>, Vec<Diagnostic>) {
    let pset = match PolicySet::from_str(src) {
        Ok(pset) => pset,
        Err(errs) => {
            let diagnostics = errs
                .iter()
                .map(|e| located(file, src, None, Severity::Error, e))
                .collect();
            return (None, sorted(diagnostics));
        }
    };
    let mut diagnostics = duplicate_ids(file, src, &pset);
    let result = Validator::new(schema.clone()).validate(&pset, ValidationMode::Strict);
    for e in result.validation_errors() {
        let mut d = located(file, src, None, Severity::Error, e);
        name_policy(&mut d, &pset, e.policy_id());
        diagnostics.push(d);
    }
    for w in result.validation_warnings() {
        let mut d = located(file, src, None, Severity::Warning, w);
        name_policy(&mut d, &pset, w.policy_id());
        diagnostics.push(d);
    }
    (Some(pset), sorted(diagnostics))
}

fn empty_file(file: &Path) -> Diagnostic {
    Diagnostic {
        file: file.to_owned(),
        policy_id: None,
        line: None,
        column: None,
        severity: Severity::Error,
        message: "the file holds no policy (it is empty or only comments), so it would permit nothing"
            .to_owned(),
        help: Some(
            "check that this is the intended file; pass --allow-empty-policy to accept a policy that permits nothing"
                .to_owned(),
        ),
    }
}

/// Names the policy by its readable id, and drops Cedar's own "for policy `policyN`"
/// prefix, which would contradict the `@id` the diagnostic reports.
fn name_policy(d: &mut Diagnostic, pset: &PolicySet, id: &PolicyId) {
    let prefix = format!("for policy `{id}`, ");
    if let Some(rest) = d.message.strip_prefix(&prefix) {
        d.message = rest.to_owned();
    }
    d.policy_id = Some(display_id(pset, id));
}

/// A policy's readable id: its `@id` annotation, else Cedar's id.
pub(crate) fn display_id(pset: &PolicySet, id: &PolicyId) -> String {
    pset.annotation(id, "id")
        .or_else(|| pset.template_annotation(id, "id"))
        .map_or_else(|| id.to_string(), str::to_owned)
}

/// Two policies with the same `@id` would make decision reasons ambiguous.
fn duplicate_ids(file: &Path, src: &str, pset: &PolicySet) -> Vec<Diagnostic> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    let annotated = pset
        .policies()
        .filter_map(|p| p.annotation("id"))
        .chain(pset.templates().filter_map(|t| t.annotation("id")));
    for id in annotated {
        *count.entry(id).or_default() += 1;
    }
    count
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(id, n)| {
            // Point at the second occurrence, the one to rename.
            let needle = format!("\"{id}\"");
            let offset = src.match_indices(&needle).nth(1).map(|(i, _)| i);
            let (line, column) = offset.map(|o| line_col(src, o)).unzip();
            Diagnostic {
                file: file.to_owned(),
                policy_id: Some(id.to_owned()),
                line,
                column,
                severity: Severity::Error,
                message: format!("@id(\"{id}\") is used by {n} policies"),
                help: Some(
                    "give every policy a unique @id so decisions name it unambiguously".to_owned(),
                ),
            }
        })
        .collect()
}

fn located(
    file: &Path,
    src: &str,
    policy_id: Option<String>,
    severity: Severity,
    e: &(impl miette::Diagnostic + fmt::Display),
) -> Diagnostic {
    let offset = e
        .labels()
        .and_then(|mut labels| labels.next())
        .map(|l| l.offset());
    let (line, column) = offset.map(|o| line_col(src, o)).unzip();
    Diagnostic {
        file: file.to_owned(),
        policy_id,
        line,
        column,
        severity,
        message: e.to_string(),
        help: e.help().map(|h| h.to_string()),
    }
}

fn sorted(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    // Cedar reports validation problems in hash order; sort for stable output.
    diagnostics.sort_by(|a, b| {
        (a.line, a.column, a.severity, &a.message).cmp(&(b.line, b.column, b.severity, &b.message))
    });
    diagnostics
}
