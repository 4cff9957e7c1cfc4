//! `cosec audit sheet`: the blind sheets of a sample, in `SAMPLE_DIR/sheets/`: one CSV
//! per annotator with empty label columns, one HTML page per item and an index page.
//! Nothing in the folder carries an automatic verdict.

use super::labels::{read_labels, COMPLETION, ITEM, NOTES, PAGE, PRIVACY_VIOLATION};
use super::page::render;
use super::{read_json, AuditError, SampleFile, SAMPLE_FILE, SHEETS_DIR, SHEET_FILES};
use crate::cli::SuiteSource;
use crate::run::record::read_record;
use cosec_proxy::trace::read_trace;
use cosec_scenarios::{suite, Scenario};
use maud::{html, DOCTYPE};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Scenarios by id.
type ScenarioMap = BTreeMap<String, Scenario>;

/// Per run (in sample order) its scenarios when the loaded suite is the one it ran,
/// and a warning for each run where it is not.
fn scenarios_by_run(
    sample: &SampleFile,
    source: &SuiteSource,
) -> Result<(Vec<Option<ScenarioMap>>, Vec<String>), AuditError> {
    let loaded = match &source.suite_dir {
        Some(dir) => suite::load_dir(dir, source.allow_modified),
        None => suite::load_embedded(source.allow_modified),
    }?;
    let mut warnings = Vec::new();
    let mut per_run = Vec::new();
    for run in &sample.runs {
        let record = read_record(&run.dir)?;
        if record.suite_digest == loaded.suite_digest {
            per_run.push(Some(
                loaded
                    .scenarios
                    .iter()
                    .map(|s| (s.id.to_string(), s.clone()))
                    .collect(),
            ));
        } else {
            warnings.push(format!(
                "warning: {} ran another suite than the one loaded (pass its folder with --suite-dir); its pages show ids instead of names and no setting",
                run.dir.display()
            ));
            per_run.push(None);
        }
    }
    Ok((per_run, warnings))
}

fn csv_error(path: &Path) -> impl FnOnce(csv::Error) -> AuditError + '_ {
    move |e| AuditError::Sheet {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

/// Refuses to go on when a sheet already holds labels: they are an annotator's work.
fn refuse_labelled(path: &Path) -> Result<(), AuditError> {
    if !path.exists() {
        return Ok(());
    }
    let labelled = read_labels(path).map(|f| {
        f.rows
            .values()
            .any(|l| l.privacy_violation.is_some() || l.completion.is_some())
    });
    if labelled.unwrap_or(true) {
        return Err(AuditError::Sheet {
            path: path.to_owned(),
            message:
                "already holds labels (or is not a sheet); move it away before writing new sheets"
                    .to_owned(),
        });
    }
    Ok(())
}

/// Writes one empty sheet.
fn write_sheet(path: &Path, sample: &SampleFile) -> Result<(), AuditError> {
    let mut w = csv::Writer::from_path(path).map_err(csv_error(path))?;
    w.write_record([ITEM, PAGE, PRIVACY_VIOLATION, COMPLETION, NOTES])
        .map_err(csv_error(path))?;
    for item in &sample.items {
        let page = format!("pages/{}.html", item.item);
        w.write_record([item.item.as_str(), page.as_str(), "", "", ""])
            .map_err(csv_error(path))?;
    }
    w.flush().map_err(AuditError::io(path))
}

fn index(sample: &SampleFile) -> String {
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "CoSec audit" }
            }
            body {
                h1 { "CoSec audit" }
                p {
                    "Open each page, read it and fill its row of your own sheet (annotator-1.csv or annotator-2.csv) on your own, without talking to the other annotator: "
                    em { "privacy_violation" } " and " em { "completion" } " are " code { "yes" } " or "
                    code { "no" } "; " em { "notes" } " is free text."
                }
                ol {
                    @for item in &sample.items {
                        li { a href={ "pages/" (item.item) ".html" } { (item.item) } }
                    }
                }
            }
        }
    };
    page.into_string()
}

/// `cosec audit sheet`: writes the sheets of the sample in `dir`; returns what to print.
pub fn sheet(dir: &Path, source: &SuiteSource) -> Result<String, AuditError> {
    let sample: SampleFile = read_json(&dir.join(SAMPLE_FILE))?;
    let (scenarios, warnings) = scenarios_by_run(&sample, source)?;
    let sheets = dir.join(SHEETS_DIR);
    for name in SHEET_FILES {
        refuse_labelled(&sheets.join(name))?;
    }
    let pages = sheets.join("pages");
    std::fs::create_dir_all(&pages).map_err(AuditError::io(&pages))?;
    for item in &sample.items {
        let run = sample.runs.get(item.run).ok_or_else(|| {
            AuditError::Invalid(format!(
                "{}: {} names run {} but the sample lists {} run(s)",
                dir.join(SAMPLE_FILE).display(),
                item.item,
                item.run,
                sample.runs.len()
            ))
        })?;
        let trace_path = run
            .dir
            .join("trials")
            .join(&item.trial)
            .join("hidden")
            .join("trace.jsonl");
        let trace = read_trace(&trace_path)?;
        let scenario = scenarios
            .get(item.run)
            .and_then(Option::as_ref)
            .and_then(|m| m.get(&item.scenario));
        let html = render(&item.item, &trace, scenario);
        let path = pages.join(format!("{}.html", item.item));
        std::fs::write(&path, html).map_err(AuditError::io(&path))?;
    }
    let index_path = sheets.join("index.html");
    std::fs::write(&index_path, index(&sample)).map_err(AuditError::io(&index_path))?;
    for name in SHEET_FILES {
        write_sheet(&sheets.join(name), &sample)?;
    }
    let mut text = warnings.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    let _ = writeln!(
        text,
        "wrote {} pages and the sheets {} in {}; hand this folder (not {}) to the annotators",
        sample.items.len(),
        SHEET_FILES.join(" and "),
        sheets.display(),
        super::VERDICTS_FILE
    );
    Ok(text)
}
