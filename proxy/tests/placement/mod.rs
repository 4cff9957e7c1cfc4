//! What the placement fuzzer plants into and sends: generated documents and streams.

pub mod documents;
pub mod streams;
