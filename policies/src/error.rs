//! Typed errors of the policies crate.

use crate::diagnostic::Diagnostic;
use std::path::PathBuf;

/// Why a schema, a policy file or the entities of a state could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// A file could not be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The Cedar schema does not parse or is inconsistent.
    #[error("invalid Cedar schema `{name}`: {message}")]
    Schema {
        /// Where the schema came from (a path or `built-in`).
        name: String,
        /// Cedar's explanation.
        message: String,
    },
    /// A policy file does not parse or does not validate strictly against the schema.
    #[error("policy file `{file}` is invalid: {}", first_message(.diagnostics))]
    InvalidPolicies {
        /// The policy file.
        file: String,
        /// Every problem found, with locations.
        diagnostics: Vec<Diagnostic>,
    },
    /// A Cedar entity, entity id, request or context could not be built.
    #[error("cannot build Cedar {what}: {message}")]
    Cedar {
        /// What was being built.
        what: &'static str,
        /// Cedar's explanation.
        message: String,
    },
}

fn first_message(diagnostics: &[Diagnostic]) -> String {
    match diagnostics.first() {
        Some(d) => {
            let more = diagnostics.len() - 1;
            if more == 0 {
                d.to_string()
            } else {
                format!("{d} (and {more} more)")
            }
        }
        None => "no diagnostics".to_owned(),
    }
}

impl PolicyError {
    /// Wraps a Cedar construction error.
    pub(crate) fn cedar(what: &'static str, err: impl std::fmt::Display) -> Self {
        PolicyError::Cedar {
            what,
            message: err.to_string(),
        }
    }
}
