//! Tests of the attack module: the knowledge checker against the whole suite and forged
//! rewrites of every kind, the mutations, and the attempt budgets.

mod checker;
mod knowledge;
mod plan;
