//! Loading the frozen suite.
