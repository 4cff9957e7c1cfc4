//! CoSec's interposing model-API proxy, tool shim and runtime guard.
//!
//! Not built yet: the trial pipeline issue brings the recording proxy and the shim,
//! the guard issue brings labels, taint and enforcement. The crate exists now so the
//! layering `runner -> proxy -> policies -> scenarios` is fixed from the start.
