//! Finds the line of a field in a TOML file, so every problem names file, line and field.

use std::fmt;
use toml::de::{DeTable, DeValue};

/// A problem in a world or variant file, located by file, line and field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The file, as the user named it.
    pub file: String,
    /// 1-based line of the field (or of the nearest enclosing table that exists).
    pub line: Option<usize>,
    /// Dotted field path inside the file, e.g. `turns[2].speaker` (empty for the whole file).
    pub field: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// One file's text, able to place a field path on a line.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The file's name as shown in messages.
    pub name: String,
    /// Its text.
    pub text: String,
}

impl SourceFile {
    /// A problem at `field` of this file.
    pub fn problem(&self, field: &str, message: impl Into<String>) -> Located {
        Located {
            file: self.name.clone(),
            line: self.line_of(field),
            field: field.to_owned(),
            message: message.into(),
        }
    }

    /// A TOML syntax or type error of this file, with the field the parser names.
    pub fn parse_error(&self, error: &toml::de::Error) -> Located {
        let line = error.span().map(|span| self.line_at(span.start));
        let message = error.message().trim().to_owned();
        // serde names the field in its message ("missing field `title`"); lift it out.
        let field = message
            .split_once("field `")
            .and_then(|(_, tail)| tail.split_once('`'))
            .map_or_else(String::new, |(name, _)| name.to_owned());
        Located {
            file: self.name.clone(),
            line,
            field,
            message,
        }
    }

    /// 1-based line of byte offset `offset`.
    fn line_at(&self, offset: usize) -> usize {
        let end = offset.min(self.text.len());
        self.text
            .get(..end)
            .map_or(1, |head| head.matches('\n').count() + 1)
    }

    /// Line of the deepest existing part of `field` (`a.b[2].c`).
    pub fn line_of(&self, field: &str) -> Option<usize> {
        let doc = DeTable::parse(&self.text).ok()?;
        let mut best = None;
        let mut table: Option<&DeTable<'_>> = Some(doc.get_ref());
        let mut value: Option<&DeValue<'_>> = None;
        for segment in segments(field) {
            let next = match (segment, table, value) {
                (Segment::Key(key), Some(t), _) => t.get(key),
                (Segment::Key(key), None, Some(DeValue::Table(t))) => t.get(key),
                (Segment::Index(i), None, Some(DeValue::Array(items))) => items.get(i),
                _ => None,
            };
            let Some(next) = next else { break };
            best = Some(self.line_at(next.span().start));
            table = None;
            value = Some(next.get_ref());
        }
        best
    }
}

enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// Splits `a.b[2].c` into keys and indices.
fn segments(field: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    for part in field.split('.').filter(|p| !p.is_empty()) {
        let mut rest = part;
        if let Some(open) = rest.find('[') {
            let (key, tail) = rest.split_at(open);
            if !key.is_empty() {
                out.push(Segment::Key(key));
            }
            rest = tail;
            while let Some(stripped) = rest.strip_prefix('[') {
                let Some(close) = stripped.find(']') else {
                    break;
                };
                let (index, tail) = stripped.split_at(close);
                if let Ok(i) = index.parse() {
                    out.push(Segment::Index(i));
                }
                rest = tail.get(1..).unwrap_or_default();
            }
        } else {
            out.push(Segment::Key(rest));
        }
    }
    out
}
