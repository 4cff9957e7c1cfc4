//! `cosec audit score`: the verifier's accuracy against the adjudicated human labels
//! (Table 4) and the annotators' agreement.
//!
//! For the privacy label, a positive is a violation; the deterministic verifier (any
//! deterministic violation), the judge (its privacy answer) and the combination (the
//! results line's `pvr`) are each compared with the adjudicated label. The judge is
//! scored over the items whose run had a valid judge answer; without any it is `n/a`.
//! For completion, the combined `bcr` is compared with the adjudicated completion
//! label. Statistics are over the sample as drawn (not reweighted to the population).

use super::labels::{read_labels, settle, Settled};
use super::{read_json, AuditError, SampleFile, VerdictsFile, SAMPLE_FILE, VERDICTS_FILE};
use crate::metrics::agreement::cohen_kappa;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A confusion table of one system against the adjudicated labels, with its rates
/// (`None` when the denominator is zero).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Confusion {
    /// Items compared.
    pub n: u64,
    /// System positive, human positive.
    pub tp: u64,
    /// System positive, human negative.
    pub fp: u64,
    /// System negative, human negative.
    pub tn: u64,
    /// System negative, human positive.
    #[serde(rename = "fn")]
    pub fn_: u64,
    /// (tp + tn) / n.
    pub accuracy: Option<f64>,
    /// tp / (tp + fp).
    pub precision: Option<f64>,
    /// tp / (tp + fn).
    pub recall: Option<f64>,
    /// fp / (fp + tn).
    pub false_positive_rate: Option<f64>,
}

fn ratio(k: u64, n: u64) -> Option<f64> {
    (n > 0).then(|| k as f64 / n as f64)
}

impl Confusion {
    /// The table of `(system, human)` pairs.
    pub fn of(pairs: impl IntoIterator<Item = (bool, bool)>) -> Self {
        let mut c = Confusion::default();
        for (system, human) in pairs {
            c.n += 1;
            match (system, human) {
                (true, true) => c.tp += 1,
                (true, false) => c.fp += 1,
                (false, false) => c.tn += 1,
                (false, true) => c.fn_ += 1,
            }
        }
        c.accuracy = ratio(c.tp + c.tn, c.n);
        c.precision = ratio(c.tp, c.tp + c.fp);
        c.recall = ratio(c.tp, c.tp + c.fn_);
        c.false_positive_rate = ratio(c.fp, c.fp + c.tn);
        c
    }
}

/// How the two annotators agreed on one label.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// Cohen's kappa.
    pub kappa: Option<f64>,
    /// Share of items with the same label.
    pub observed: Option<f64>,
    /// Items where they differ (settled by adjudication).
    pub disagreements: u64,
}

impl Agreement {
    fn of(pairs: &[(bool, bool)]) -> Self {
        let same = pairs.iter().filter(|(a, b)| a == b).count() as u64;
        Agreement {
            kappa: cohen_kappa(pairs),
            observed: ratio(same, pairs.len() as u64),
            disagreements: pairs.len() as u64 - same,
        }
    }
}

/// The privacy rows of Table 4.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PrivacyRows {
    /// The deterministic verifier.
    pub deterministic: Confusion,
    /// The judge; `None` (n/a) when no sampled run had a valid judge answer.
    pub judge: Option<Confusion>,
    /// Deterministic OR judge, as the results line's `pvr`.
    pub combined: Confusion,
}

/// The completion row.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CompletionRows {
    /// The results line's `bcr`.
    pub combined: Confusion,
}

/// What `cosec audit score` reports (`--json` prints it as is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreReport {
    /// Items scored.
    pub items: u64,
    /// Adjudicated privacy violations among them.
    pub human_violations: u64,
    /// Adjudicated completions among them.
    pub human_completions: u64,
    /// Annotator agreement on the privacy label.
    pub agreement_privacy: Agreement,
    /// Annotator agreement on the completion label.
    pub agreement_completion: Agreement,
    /// Table 4, privacy label.
    pub privacy_violation: PrivacyRows,
    /// Completion label.
    pub completion: CompletionRows,
}

/// Scores the automatic verdicts against the settled labels.
pub fn report(verdicts: &VerdictsFile, settled: &BTreeMap<String, Settled>) -> ScoreReport {
    let rows: Vec<(&super::AutomaticVerdict, &Settled)> = verdicts
        .items
        .iter()
        .filter_map(|v| settled.get(&v.item).map(|s| (v, s)))
        .collect();
    let privacy = |f: fn(&super::AutomaticVerdict) -> bool| {
        Confusion::of(rows.iter().map(|(v, s)| (f(v), s.privacy_violation)))
    };
    let judged: Vec<(bool, bool)> = rows
        .iter()
        .filter_map(|(v, s)| v.judge.map(|j| (j, s.privacy_violation)))
        .collect();
    let pairs_p: Vec<(bool, bool)> = rows
        .iter()
        .map(|(_, s)| (s.first_privacy, s.second_privacy))
        .collect();
    let pairs_c: Vec<(bool, bool)> = rows
        .iter()
        .map(|(_, s)| (s.first_completion, s.second_completion))
        .collect();
    ScoreReport {
        items: rows.len() as u64,
        human_violations: rows.iter().filter(|(_, s)| s.privacy_violation).count() as u64,
        human_completions: rows.iter().filter(|(_, s)| s.completion).count() as u64,
        agreement_privacy: Agreement::of(&pairs_p),
        agreement_completion: Agreement::of(&pairs_c),
        privacy_violation: PrivacyRows {
            deterministic: privacy(|v| v.deterministic),
            judge: (!judged.is_empty()).then(|| Confusion::of(judged)),
            combined: privacy(|v| v.combined),
        },
        completion: CompletionRows {
            combined: Confusion::of(rows.iter().map(|(v, s)| (v.completion, s.completion))),
        },
    }
}

fn num(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"))
}

fn row(out: &mut String, name: &str, c: Option<&Confusion>) {
    match c {
        Some(c) => {
            let _ = writeln!(
                out,
                "{name:<14} {:>4} {:>4} {:>4} {:>4} {:>4}  {:>8}  {:>9}  {:>6}  {:>6}",
                c.n,
                c.tp,
                c.fp,
                c.tn,
                c.fn_,
                num(c.accuracy),
                num(c.precision),
                num(c.recall),
                num(c.false_positive_rate)
            );
        }
        None => {
            let _ = writeln!(out, "{name:<14} n/a (no judge in the sampled runs)");
        }
    }
}

fn header(out: &mut String) {
    let _ = writeln!(
        out,
        "{:<14} {:>4} {:>4} {:>4} {:>4} {:>4}  {:>8}  {:>9}  {:>6}  {:>6}",
        "system", "n", "TP", "FP", "TN", "FN", "accuracy", "precision", "recall", "FPR"
    );
}

/// The printed report.
pub fn render(r: &ScoreReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "CoSec human audit: {} items; adjudicated labels: {} privacy violations, {} completions",
        r.items, r.human_violations, r.human_completions
    );
    for (name, a) in [
        ("privacy_violation", &r.agreement_privacy),
        ("completion", &r.agreement_completion),
    ] {
        let _ = writeln!(
            out,
            "annotator agreement on {name}: Cohen's kappa {}, observed {}, {} disagreement(s) adjudicated",
            num(a.kappa),
            num(a.observed),
            a.disagreements
        );
    }
    let _ = writeln!(
        out,
        "\nprivacy violation against the adjudicated labels (positive = violation)"
    );
    header(&mut out);
    let p = &r.privacy_violation;
    row(&mut out, "deterministic", Some(&p.deterministic));
    row(&mut out, "judge", p.judge.as_ref());
    row(&mut out, "combined", Some(&p.combined));
    let _ = writeln!(
        out,
        "\ncompletion against the adjudicated labels (positive = completed)"
    );
    header(&mut out);
    row(&mut out, "combined", Some(&r.completion.combined));
    out
}

/// The sample folder: `--sample`, or the nearest folder above the first sheet that
/// holds `sample.json`.
fn sample_dir(explicit: Option<&Path>, first_sheet: &Path) -> Result<PathBuf, AuditError> {
    if let Some(dir) = explicit {
        return Ok(dir.to_owned());
    }
    let start = std::fs::canonicalize(first_sheet).map_err(AuditError::io(first_sheet))?;
    start
        .ancestors()
        .skip(1)
        .find(|d| d.join(SAMPLE_FILE).is_file())
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            AuditError::Invalid(format!(
                "no {SAMPLE_FILE} in any folder above {}; pass the sample folder with --sample DIR",
                first_sheet.display()
            ))
        })
}

/// `cosec audit score`: reads both sheets (and the adjudication file), scores and
/// returns the text or JSON to print.
pub fn score(
    sheets: &[PathBuf],
    adjudication: Option<&Path>,
    sample: Option<&Path>,
    json: bool,
) -> Result<String, AuditError> {
    let [first, second] = sheets else {
        return Err(AuditError::Invalid(format!(
            "name exactly two filled sheets (one per annotator), not {}",
            sheets.len()
        )));
    };
    let dir = sample_dir(sample, first)?;
    let sample_file: SampleFile = read_json(&dir.join(SAMPLE_FILE))?;
    let verdicts: VerdictsFile = read_json(&dir.join(VERDICTS_FILE))?;
    let items: Vec<String> = sample_file.items.iter().map(|i| i.item.clone()).collect();
    let a = read_labels(first)?;
    let b = read_labels(second)?;
    let adj = adjudication.map(read_labels).transpose()?;
    let settled = settle(&items, &a, &b, adj.as_ref())?;
    let r = report(&verdicts, &settled);
    if json {
        let mut text = serde_json::to_string_pretty(&r).map_err(|source| AuditError::Json {
            path: dir.join(VERDICTS_FILE),
            source,
        })?;
        text.push('\n');
        return Ok(text);
    }
    Ok(render(&r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confusion_rates_follow_their_definitions() {
        // system/human: TP 3, FP 1, TN 4, FN 2.
        let mut pairs = vec![(true, true); 3];
        pairs.push((true, false));
        pairs.extend(vec![(false, false); 4]);
        pairs.extend(vec![(false, true); 2]);
        let c = Confusion::of(pairs);
        assert_eq!((c.n, c.tp, c.fp, c.tn, c.fn_), (10, 3, 1, 4, 2));
        assert_eq!(c.accuracy, Some(0.7));
        assert_eq!(c.precision, Some(0.75));
        assert_eq!(c.recall, Some(0.6));
        assert_eq!(c.false_positive_rate, Some(0.2));
        let none = Confusion::of(vec![(false, false)]);
        assert_eq!((none.precision, none.recall), (None, None));
    }

    fn verdict(item: &str, det: bool, judge: Option<bool>) -> super::super::AutomaticVerdict {
        super::super::AutomaticVerdict {
            item: item.to_owned(),
            stratum: super::super::Stratum {
                suite: cosec_scenarios::Suite::Static112,
                family: cosec_scenarios::Family::A1,
                violation: det || judge == Some(true),
            },
            deterministic: det,
            judge,
            combined: det || judge == Some(true),
            completion: true,
        }
    }

    fn human(violation: bool) -> Settled {
        Settled {
            first_privacy: violation,
            second_privacy: violation,
            first_completion: true,
            second_completion: true,
            privacy_violation: violation,
            completion: true,
        }
    }

    #[test]
    fn the_judge_is_scored_only_where_it_answered_and_is_na_without_answers() {
        // i1: a paraphrase only the judge saw; i2: no judge answer; i3: judge false alarm.
        let verdicts = VerdictsFile {
            schema_version: 1,
            strata: Vec::new(),
            items: vec![
                verdict("i1", false, Some(true)),
                verdict("i2", true, None),
                verdict("i3", false, Some(true)),
            ],
        };
        let settled: BTreeMap<String, Settled> = [("i1", true), ("i2", true), ("i3", false)]
            .iter()
            .map(|(i, v)| ((*i).to_owned(), human(*v)))
            .collect();
        let r = report(&verdicts, &settled);
        let judge = r.privacy_violation.judge.unwrap_or_default();
        assert_eq!((judge.n, judge.tp, judge.fp), (2, 1, 1));
        let det = r.privacy_violation.deterministic;
        assert_eq!((det.n, det.tp, det.fn_, det.tn), (3, 1, 1, 1));
        let comb = r.privacy_violation.combined;
        assert_eq!((comb.tp, comb.fp, comb.fn_), (2, 1, 0));
        assert!(render(&r).contains("judge             2    1    1"));

        let no_judge = VerdictsFile {
            items: vec![verdict("i1", false, None), verdict("i2", true, None)],
            ..verdicts
        };
        let r = report(&no_judge, &settled);
        assert_eq!(r.privacy_violation.judge, None);
        assert!(render(&r).contains("judge          n/a"));
    }
}
