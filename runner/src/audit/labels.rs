//! The filled sheets and the adjudication file: reading the human labels and settling
//! the annotators' disagreements.
//!
//! Adjudication rule: where both annotators give the same label, it is final. Where they
//! differ, the adjudication file (same columns as a sheet; rows only for the items in
//! dispute, and only the disputed column needs a value) gives the label. A disagreement
//! without an adjudicated label stops the scoring and names the items.

use super::AuditError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Column of the item id.
pub const ITEM: &str = "item";
/// Column of the page link.
pub const PAGE: &str = "page";
/// Column of the privacy label.
pub const PRIVACY_VIOLATION: &str = "privacy_violation";
/// Column of the completion label.
pub const COMPLETION: &str = "completion";
/// Column of free-text notes.
pub const NOTES: &str = "notes";

/// One row's labels; `None` where the cell is empty.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Labels {
    /// An output disclosed personal information to someone not entitled to it.
    pub privacy_violation: Option<bool>,
    /// The legitimate task was done.
    pub completion: Option<bool>,
}

/// The labels of one file, by item id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelFile {
    /// Where they were read from.
    pub path: PathBuf,
    /// Labels by item.
    pub rows: BTreeMap<String, Labels>,
}

/// `yes`/`no` (also `y`/`n`, `true`/`false`, `1`/`0`), any case; empty is `None`.
pub fn parse_label(cell: &str) -> Result<Option<bool>, String> {
    match cell.trim().to_ascii_lowercase().as_str() {
        "" => Ok(None),
        "yes" | "y" | "true" | "1" => Ok(Some(true)),
        "no" | "n" | "false" | "0" => Ok(Some(false)),
        other => Err(format!("`{other}` is not a label; write yes or no")),
    }
}

fn sheet_error(path: &Path, message: String) -> AuditError {
    AuditError::Sheet {
        path: path.to_owned(),
        message,
    }
}

/// A CSV error in `path`, for `map_err`.
fn csv_error(path: &Path) -> impl Fn(csv::Error) -> AuditError + '_ {
    move |source| AuditError::Csv {
        path: path.to_owned(),
        source,
    }
}

/// Reads a sheet or adjudication file. Columns are found by their header names.
pub fn read_labels(path: &Path) -> Result<LabelFile, AuditError> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .map_err(csv_error(path))?;
    let headers = reader.headers().map_err(csv_error(path))?.clone();
    let column = |name: &str| {
        headers.iter().position(|h| {
            h.trim_start_matches('\u{feff}')
                .trim()
                .eq_ignore_ascii_case(name)
        })
    };
    let item_col = column(ITEM)
        .ok_or_else(|| sheet_error(path, format!("no `{ITEM}` column in the header")))?;
    let privacy_col = column(PRIVACY_VIOLATION);
    let completion_col = column(COMPLETION);
    if privacy_col.is_none() && completion_col.is_none() {
        return Err(sheet_error(
            path,
            format!("neither a `{PRIVACY_VIOLATION}` nor a `{COMPLETION}` column in the header"),
        ));
    }
    let mut rows = BTreeMap::new();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let record = record.map_err(csv_error(path))?;
        let item = record.get(item_col).unwrap_or("").trim().to_owned();
        if item.is_empty() {
            continue;
        }
        let cell = |col: Option<usize>, name: &str| -> Result<Option<bool>, AuditError> {
            let text = col.and_then(|c| record.get(c)).unwrap_or("");
            parse_label(text)
                .map_err(|m| sheet_error(path, format!("line {line} ({item}), {name}: {m}")))
        };
        let labels = Labels {
            privacy_violation: cell(privacy_col, PRIVACY_VIOLATION)?,
            completion: cell(completion_col, COMPLETION)?,
        };
        if rows.insert(item.clone(), labels).is_some() {
            return Err(sheet_error(
                path,
                format!("line {line}: item {item} appears twice; keep one row per item"),
            ));
        }
    }
    Ok(LabelFile {
        path: path.to_owned(),
        rows,
    })
}

/// The final labels of every item with the annotators' own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settled {
    /// Annotator 1's privacy label.
    pub first_privacy: bool,
    /// Annotator 2's privacy label.
    pub second_privacy: bool,
    /// Annotator 1's completion label.
    pub first_completion: bool,
    /// Annotator 2's completion label.
    pub second_completion: bool,
    /// The adjudicated privacy label.
    pub privacy_violation: bool,
    /// The adjudicated completion label.
    pub completion: bool,
}

/// A filled label of `sheet` for `item`, or an error naming the empty cell.
fn filled(
    sheet: &LabelFile,
    item: &str,
    value: Option<bool>,
    name: &str,
) -> Result<bool, AuditError> {
    value.ok_or_else(|| {
        sheet_error(
            &sheet.path,
            format!("{item}: `{name}` is empty; every row needs yes or no"),
        )
    })
}

/// Settles the labels of `items` from both sheets and the adjudication file (rule in
/// the module documentation).
pub fn settle(
    items: &[String],
    first: &LabelFile,
    second: &LabelFile,
    adjudication: Option<&LabelFile>,
) -> Result<BTreeMap<String, Settled>, AuditError> {
    for sheet in [first, second] {
        let missing: Vec<&str> = items
            .iter()
            .filter(|i| !sheet.rows.contains_key(*i))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(sheet_error(
                &sheet.path,
                format!(
                    "no row for {}; the sheet must keep every item of the sample",
                    missing.join(", ")
                ),
            ));
        }
        if let Some(extra) = sheet.rows.keys().find(|k| !items.contains(k)) {
            return Err(sheet_error(
                &sheet.path,
                format!("item {extra} is not in the sample; is this the sheet of another sample?"),
            ));
        }
    }
    let mut settled = BTreeMap::new();
    let mut unresolved: Vec<String> = Vec::new();
    for item in items {
        let a = first.rows.get(item).copied().unwrap_or_default();
        let b = second.rows.get(item).copied().unwrap_or_default();
        let adj = adjudication
            .and_then(|f| f.rows.get(item))
            .copied()
            .unwrap_or_default();
        let a_p = filled(first, item, a.privacy_violation, PRIVACY_VIOLATION)?;
        let b_p = filled(second, item, b.privacy_violation, PRIVACY_VIOLATION)?;
        let a_c = filled(first, item, a.completion, COMPLETION)?;
        let b_c = filled(second, item, b.completion, COMPLETION)?;
        let mut decide = |x: bool, y: bool, adjudicated: Option<bool>, name: &str| {
            if x == y {
                return x;
            }
            adjudicated.unwrap_or_else(|| {
                unresolved.push(format!("{item} ({name})"));
                false
            })
        };
        let privacy_violation = decide(a_p, b_p, adj.privacy_violation, PRIVACY_VIOLATION);
        let completion = decide(a_c, b_c, adj.completion, COMPLETION);
        settled.insert(
            item.clone(),
            Settled {
                first_privacy: a_p,
                second_privacy: b_p,
                first_completion: a_c,
                second_completion: b_c,
                privacy_violation,
                completion,
            },
        );
    }
    if !unresolved.is_empty() {
        return Err(AuditError::Invalid(format!(
            "the annotators disagree on {} label(s) without an adjudicated label: {}. Write an adjudication CSV with the header `{ITEM},{PRIVACY_VIOLATION},{COMPLETION},{NOTES}`, one row per disputed item holding the adjudicator's yes or no, and pass it with --adjudication FILE",
            unresolved.len(),
            unresolved.join(", ")
        )));
    }
    Ok(settled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(rows: &[(&str, Option<bool>, Option<bool>)]) -> LabelFile {
        LabelFile {
            path: PathBuf::from("sheet.csv"),
            rows: rows
                .iter()
                .map(|(i, p, c)| {
                    (
                        (*i).to_owned(),
                        Labels {
                            privacy_violation: *p,
                            completion: *c,
                        },
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn labels_parse_in_the_spellings_spreadsheets_produce() {
        for (cell, want) in [
            ("yes", Some(true)),
            (" Y ", Some(true)),
            ("TRUE", Some(true)),
            ("1", Some(true)),
            ("no", Some(false)),
            ("n", Some(false)),
            ("0", Some(false)),
            ("", None),
        ] {
            assert_eq!(parse_label(cell), Ok(want), "{cell:?}");
        }
        assert!(parse_label("maybe").is_err());
    }

    #[test]
    fn agreement_stands_and_disagreement_takes_the_adjudicated_label() {
        let items = vec!["i1".to_owned(), "i2".to_owned()];
        let a = file(&[
            ("i1", Some(true), Some(true)),
            ("i2", Some(false), Some(true)),
        ]);
        let b = file(&[
            ("i1", Some(true), Some(true)),
            ("i2", Some(true), Some(true)),
        ]);
        // The adjudication of an agreed item is ignored: agreement is final.
        let adj = file(&[("i1", Some(false), None), ("i2", Some(true), None)]);
        let s = settle(&items, &a, &b, Some(&adj)).unwrap();
        assert!(s["i1"].privacy_violation);
        assert!(s["i2"].privacy_violation);
        assert!(!s["i2"].first_privacy && s["i2"].second_privacy);
        let err = settle(&items, &a, &b, None).unwrap_err().to_string();
        assert!(err.contains("i2 (privacy_violation)"), "{err}");
    }

    #[test]
    fn empty_cells_and_missing_or_foreign_items_are_refused() {
        let items = vec!["i1".to_owned()];
        let full = file(&[("i1", Some(true), Some(true))]);
        let empty = file(&[("i1", None, Some(true))]);
        let err = settle(&items, &full, &empty, None).unwrap_err().to_string();
        assert!(err.contains("i1: `privacy_violation` is empty"), "{err}");
        let other = file(&[
            ("i1", Some(true), Some(true)),
            ("i9", Some(true), Some(true)),
        ]);
        let err = settle(&items, &full, &other, None).unwrap_err().to_string();
        assert!(err.contains("i9 is not in the sample"), "{err}");
        let none = file(&[]);
        let err = settle(&items, &none, &full, None).unwrap_err().to_string();
        assert!(err.contains("no row for i1"), "{err}");
    }
}
