//! Cedar schema, oracle and authorization.
