//! The defense policy: a Cedar policy file validated strictly against the CoSec schema
//! when the guard starts, and evaluated like the oracle (one request per principal of
//! the output's question, one `receive` per recipient of the destination).

use cosec_policies::{
    AuthRequest, Decision, EmptyPolicy, Oracle, PolicyError, PreparedState, SCHEMA_SOURCE,
};
use cosec_scenarios::{CommunityState, PlatformTier, UserId};
use std::path::Path;

/// Why the guard could not start.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// The policy file could not be read.
    #[error("cannot read defense policy `{path}`: {source}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The policy does not parse or does not validate strictly (Cedar's message).
    #[error("defense policy rejected: {0}")]
    Policy(#[from] PolicyError),
}

/// A validated defense policy.
#[derive(Debug, Clone)]
pub struct GuardPolicy {
    engine: Oracle,
    file: String,
}

impl GuardPolicy {
    /// Validates `source` against the built-in schema; `file_name` names it in errors
    /// and traces.
    pub fn from_source(source: &str, file_name: &str) -> Result<Self, GuardError> {
        Self::with_schema(SCHEMA_SOURCE, source, file_name)
    }

    /// Like [`GuardPolicy::from_source`], against another schema text.
    pub fn with_schema(schema: &str, source: &str, file_name: &str) -> Result<Self, GuardError> {
        Self::load(schema, source, file_name, EmptyPolicy::Refuse)
    }

    /// Like [`GuardPolicy::from_source`], saying whether a file with no policy (which
    /// blocks every flow) is accepted.
    pub fn from_source_with(
        source: &str,
        file_name: &str,
        empty: EmptyPolicy,
    ) -> Result<Self, GuardError> {
        Self::load(SCHEMA_SOURCE, source, file_name, empty)
    }

    fn load(
        schema: &str,
        source: &str,
        file_name: &str,
        empty: EmptyPolicy,
    ) -> Result<Self, GuardError> {
        let engine = Oracle::from_sources_with(schema, source, file_name, empty)?;
        Ok(GuardPolicy {
            engine,
            file: file_name.to_owned(),
        })
    }

    /// Reads and validates a policy file.
    pub fn from_file(path: &Path, empty: EmptyPolicy) -> Result<Self, GuardError> {
        let source = std::fs::read_to_string(path).map_err(|source| GuardError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_source_with(&source, &path.display().to_string(), empty)
    }

    /// The policy's file name.
    pub fn file_name(&self) -> &str {
        &self.file
    }

    /// Decides one output question over the state at its time, reusing the prepared
    /// entities when there are any; fails closed on any error.
    pub(crate) fn decide_request(
        &self,
        platform: &PlatformTier,
        target: &UserId,
        state: &CommunityState,
        request: &AuthRequest,
        prepared: Option<&PreparedState>,
    ) -> Decision {
        self.engine
            .authorize_request(platform, target, state, request, prepared)
    }

    /// Builds the Cedar entities of one state once, for every question asked at it.
    pub(crate) fn prepare(
        &self,
        platform: &PlatformTier,
        target: &UserId,
        state: &CommunityState,
    ) -> Result<PreparedState, PolicyError> {
        self.engine.prepare(platform, target, state)
    }
}
