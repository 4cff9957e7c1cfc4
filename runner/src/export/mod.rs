//! Run folders written out in other tools' formats.

pub mod inspect;
