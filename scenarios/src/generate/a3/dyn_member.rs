//! stub
use super::build::{Poison, World};
pub(super) fn worlds() -> Vec<(World, Poison)> { Vec::new() }
