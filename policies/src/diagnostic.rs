//! One located problem in a policy file (file, policy id, line:column, Cedar's message
//! and help), shared by the checker and the errors that carry its findings.

use serde::Serialize;
use std::fmt;
use std::path::PathBuf;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The file does not parse or does not validate strictly.
    Error,
    /// Cedar's validator warns (e.g. a policy that can never apply).
    Warning,
}

/// One problem found in a policy file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The policy file.
    pub file: PathBuf,
    /// The policy's `@id` annotation, else Cedar's id; `None` for parse errors.
    pub policy_id: Option<String>,
    /// 1-based line of the problem, when Cedar reports a location.
    pub line: Option<usize>,
    /// 1-based column (in characters) of the problem.
    pub column: Option<usize>,
    /// Error or warning.
    pub severity: Severity,
    /// Cedar's message.
    pub message: String,
    /// Cedar's help line, if any.
    pub help: Option<String>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, ": {sev}")?;
        if let Some(id) = &self.policy_id {
            write!(f, " in policy `{id}`")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(help) = &self.help {
            write!(f, " (help: {help})")?;
        }
        Ok(())
    }
}

/// 1-based line and character column of a byte offset into `src`.
pub(crate) fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(src.len());
    while !src.is_char_boundary(end) {
        end -= 1;
    }
    let before = src.get(..end).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::line_col;

    #[test]
    fn line_col_counts_from_one_and_in_characters() {
        let src = "ab\ncé d\n";
        assert_eq!(line_col(src, 0), (1, 1));
        assert_eq!(line_col(src, 3), (2, 1));
        // `d` sits after a two-byte `é`: byte offset 7, character column 4.
        assert_eq!(line_col(src, 7), (2, 4));
        assert_eq!(line_col(src, 999), (3, 1));
    }
}
