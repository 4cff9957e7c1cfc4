//! Pairing two runs by scenario id and repeat and comparing every block of the summary
//! on the trials valid in both: rates, paired difference with its interval, McNemar
//! p-value (both carried over to repeated scenarios by the design effect).

use super::load::LoadedRun;
use super::stats::{design_effect, PairedTable};
use crate::metrics::price::PriceSummary;
use crate::verify::{trial_name, TrialStatus, Verdict};
use cosec_scenarios::{Boundary, EventKind, Family, PrivacyObject, Strategy, Suite};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The metrics, in report order: the paper-comparable PVR, PVR over all outputs,
/// CCPVR, BCR and STCR.
pub const METRICS: [&str; 5] = ["pvr", "pvr_all", "ccpvr", "bcr", "stcr"];

/// One metric of one block, compared.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MetricComparison {
    /// Pairs counted (cross-scope pairs only for CCPVR).
    pub n: u64,
    /// Rate of run A over the pairs.
    pub a: Option<f64>,
    /// Rate of run B over the pairs.
    pub b: Option<f64>,
    /// `b - a`.
    pub delta: Option<f64>,
    /// 95% interval of `delta` (Newcombe's hybrid score method for paired data,
    /// widened by `design_effect` when scenarios repeat).
    pub ci: Option<[f64; 2]>,
    /// Exact McNemar p-value (on the discordant counts over `design_effect` when
    /// scenarios repeat).
    pub p: f64,
    /// How much the repeats of a scenario (`--epochs`) inflate the variance of
    /// `delta`; 1 when every scenario ran once.
    pub design_effect: f64,
    /// `[positive in A only, positive in B only]`.
    pub discordant: [u64; 2],
    /// `p < alpha`.
    pub significant: bool,
}

impl MetricComparison {
    fn of(table: &PairedTable, design_effect: f64, alpha: f64) -> Self {
        let p = table.p_value_clustered(design_effect);
        MetricComparison {
            n: table.n(),
            a: table.rate_a(),
            b: table.rate_b(),
            delta: table.delta(),
            ci: table.delta_ci_clustered(design_effect),
            p,
            design_effect,
            discordant: [table.only_a, table.only_b],
            significant: table.n() > 0 && p < alpha,
        }
    }
}

/// One block (overall, a suite half, a factor level) compared on every metric.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockComparison {
    /// `overall`, `static112`, `dyn96`, `family:A1`, `strategy:A1-S1`, `event:leave`, ...
    pub name: String,
    /// The metrics in [`METRICS`] order.
    pub metrics: [MetricComparison; 5],
}

/// The paired scenarios whose verdict on one metric differs between the two runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Changed {
    /// Scenarios where the metric holds in run A and not in run B.
    pub a_only: Vec<String>,
    /// Scenarios where the metric holds in run B and not in run A.
    pub b_only: Vec<String>,
}

impl Changed {
    /// How many scenarios changed either way.
    pub fn len(&self) -> usize {
        self.a_only.len() + self.b_only.len()
    }

    /// Whether no scenario changed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn add(&mut self, scenario: &str, a: bool, b: bool) {
        match (a, b) {
            (true, false) => self.a_only.push(scenario.to_owned()),
            (false, true) => self.b_only.push(scenario.to_owned()),
            _ => {}
        }
    }
}

/// A scenario that is not in the paired sample, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unpaired {
    /// Scenario id.
    pub scenario: String,
    /// Status in run A (`missing` when the run has no trial of it).
    pub a: String,
    /// Status in run B.
    pub b: String,
}

/// Run B compared with run A.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Labels of A and B (harness, model, condition, policy).
    pub runs: [String; 2],
    /// Names of A and B (`label` in `run.json`, else the folder name).
    pub names: [String; 2],
    /// Folders of A and B.
    pub dirs: [String; 2],
    /// Scenarios valid in both runs.
    pub paired_n: u64,
    /// Every block, in report order.
    pub blocks: Vec<BlockComparison>,
    /// Scenarios left out, with their statuses.
    pub unpaired: Vec<Unpaired>,
    /// Per metric in [`METRICS`] order, the paired scenarios whose verdict changed
    /// (the discordant pairs of the overall block, by name; CCPVR over cross-scope
    /// pairs only).
    pub changed: [Changed; 5],
    /// The significance level used for marking.
    pub alpha: f64,
    /// What the guard refused of each run's legitimate work (`None` for an unguarded run).
    pub prices: [Option<PriceSummary>; 2],
    /// Which run is guarded when the other is its unguarded twin (same harness and
    /// model, `--defense none`): the BCR delta is then the defense's cost.
    pub guarded_twin: Option<usize>,
}

type Selector = Box<dyn Fn(&Verdict) -> bool>;

/// The blocks of `summary.json`, each with the predicate choosing its trials.
fn block_selectors() -> Vec<(String, Selector)> {
    let mut blocks: Vec<(String, Selector)> = vec![
        ("overall".to_owned(), Box::new(|_| true)),
        (
            "static112".to_owned(),
            Box::new(|v| v.factors.suite == Suite::Static112),
        ),
        (
            "dyn96".to_owned(),
            Box::new(|v| v.factors.suite == Suite::Dyn96),
        ),
    ];
    for &f in Family::ALL {
        blocks.push((
            format!("family:{}", f.as_str()),
            Box::new(move |v| v.factors.family == f),
        ));
    }
    for &f in Family::ALL {
        for &s in Strategy::ALL {
            blocks.push((
                format!("strategy:{f}-{s}"),
                Box::new(move |v| v.factors.family == f && v.factors.strategy == s),
            ));
        }
    }
    for &e in EventKind::ALL {
        blocks.push((
            format!("event:{}", e.as_str()),
            Box::new(move |v| v.factors.event == Some(e)),
        ));
    }
    for &b in Boundary::ALL {
        blocks.push((
            format!("boundary:{}", b.as_str()),
            Box::new(move |v| v.factors.boundary == b),
        ));
    }
    for &p in PrivacyObject::ALL {
        blocks.push((
            format!("privacy_object:{}", p.as_str()),
            Box::new(move |v| v.factors.privacy_object == p),
        ));
    }
    blocks
}

fn status_name(v: Option<&Verdict>) -> String {
    match v.map(|v| v.status) {
        None => "missing".to_owned(),
        Some(TrialStatus::Valid) => "valid".to_owned(),
        Some(TrialStatus::InfraFailure) => "infra_failure".to_owned(),
        Some(TrialStatus::Unadjudicable) => "unadjudicable".to_owned(),
    }
}

/// Compares run B with run A on the scenarios valid in both, marking differences with
/// a McNemar p-value below `alpha`.
pub fn compare_pair(a: &LoadedRun, b: &LoadedRun, alpha: f64) -> Comparison {
    // Trials pair by scenario and repeat: repeat e of a scenario in run A with repeat e
    // of the same scenario in run B.
    let mut keys: Vec<(&str, u32)> = a.verdicts.iter().map(Verdict::key).collect();
    for v in &b.verdicts {
        if !keys.contains(&v.key()) {
            keys.push(v.key());
        }
    }
    keys.sort_unstable();
    let mut pairs: Vec<(&Verdict, &Verdict)> = Vec::new();
    let mut unpaired = Vec::new();
    for key in keys {
        let (va, vb) = (a.verdict_of(key), b.verdict_of(key));
        match (va, vb) {
            (Some(x), Some(y))
                if x.status == TrialStatus::Valid && y.status == TrialStatus::Valid =>
            {
                pairs.push((x, y));
            }
            _ => unpaired.push(Unpaired {
                scenario: trial_name(key.0, key.1),
                a: status_name(va),
                b: status_name(vb),
            }),
        }
    }
    let blocks = block_selectors()
        .into_iter()
        .map(|(name, select)| {
            let mut tables = [PairedTable::default(); 5];
            // Per metric, the differences of each scenario's pairs (its repeats).
            let mut clusters: [BTreeMap<&str, Vec<i8>>; 5] = Default::default();
            for (x, y) in pairs.iter().filter(|(x, _)| select(x)) {
                let mut add = |m: usize, a: bool, b: bool| {
                    tables[m].add(a, b);
                    clusters[m]
                        .entry(x.scenario.as_str())
                        .or_default()
                        .push(i8::from(b) - i8::from(a));
                };
                add(0, x.pvr, y.pvr);
                add(1, x.all_outputs_pvr(), y.all_outputs_pvr());
                if x.factors.cross_scope {
                    add(2, x.ccpvr, y.ccpvr);
                }
                add(3, x.bcr, y.bcr);
                add(4, x.stcr, y.stcr);
            }
            let metrics = std::array::from_fn(|m| {
                let groups: Vec<Vec<i8>> = std::mem::take(&mut clusters[m]).into_values().collect();
                MetricComparison::of(&tables[m], design_effect(&groups), alpha)
            });
            BlockComparison { name, metrics }
        })
        .collect();
    let mut changed: [Changed; 5] = Default::default();
    for (x, y) in &pairs {
        let name = trial_name(x.scenario.as_str(), x.epoch);
        let id = name.as_str();
        changed[0].add(id, x.pvr, y.pvr);
        changed[1].add(id, x.all_outputs_pvr(), y.all_outputs_pvr());
        if x.factors.cross_scope {
            changed[2].add(id, x.ccpvr, y.ccpvr);
        }
        changed[3].add(id, x.bcr, y.bcr);
        changed[4].add(id, x.stcr, y.stcr);
    }
    Comparison {
        runs: [a.label(), b.label()],
        names: [a.name(), b.name()],
        dirs: [a.dir.display().to_string(), b.dir.display().to_string()],
        paired_n: pairs.len() as u64,
        blocks,
        unpaired,
        changed,
        alpha,
        prices: [a.summary.price.clone(), b.summary.price.clone()],
        guarded_twin: guarded_twin(a, b),
    }
}

/// The index of the guarded run of `a` and `b` when the other is its unguarded twin.
fn guarded_twin(a: &LoadedRun, b: &LoadedRun) -> Option<usize> {
    let (ra, rb) = (&a.record, &b.record);
    if ra.harness != rb.harness || ra.model != rb.model {
        return None;
    }
    match (ra.defense.as_str(), rb.defense.as_str()) {
        ("none", "proxy") => Some(1),
        ("proxy", "none") => Some(0),
        _ => None,
    }
}

/// Every run after the first compared with the first.
pub fn compare_all(runs: &[LoadedRun], alpha: f64) -> Vec<Comparison> {
    match runs.split_first() {
        Some((first, rest)) => rest.iter().map(|r| compare_pair(first, r, alpha)).collect(),
        None => Vec::new(),
    }
}

impl Comparison {
    /// The block of that name.
    pub fn block(&self, name: &str) -> Option<&BlockComparison> {
        self.blocks.iter().find(|b| b.name == name)
    }

    /// The cost of the defense: the overall BCR change from the unguarded twin to the
    /// guarded run (negative when the guard cost completed tasks) with its interval, in
    /// the same units as [`MetricComparison`]; `None` without a twin pair.
    pub fn defense_cost(&self) -> Option<(f64, [f64; 2], u64)> {
        let guarded = self.guarded_twin?;
        let bcr = self.block("overall")?.metrics.get(3)?;
        let (delta, [lo, hi]) = (bcr.delta?, bcr.ci?);
        // The metric's delta is B - A; the cost reads from the unguarded run to the guarded.
        Some(match guarded {
            1 => (delta, [lo, hi], bcr.n),
            _ => (-delta, [-hi, -lo], bcr.n),
        })
    }

    /// The changed scenarios as JSON: `{metric: {"a_only": [...], "b_only": [...]}}`.
    pub fn changed_json(&self) -> Value {
        let mut out = Map::new();
        for (name, c) in METRICS.iter().zip(&self.changed) {
            out.insert((*name).to_owned(), json!(c));
        }
        Value::Object(out)
    }

    /// The `--json` form: `{"runs", "paired_n", "blocks": {block: {metric: {...}}},
    /// "unpaired"}`.
    pub fn to_json(&self) -> Value {
        let mut blocks = Map::new();
        for block in &self.blocks {
            let mut metrics = Map::new();
            for (name, m) in METRICS.iter().zip(&block.metrics) {
                metrics.insert((*name).to_owned(), json!(m));
            }
            blocks.insert(block.name.clone(), Value::Object(metrics));
        }
        json!({
            "runs": [
                {"name": self.names[0], "label": self.runs[0], "dir": self.dirs[0]},
                {"name": self.names[1], "label": self.runs[1], "dir": self.dirs[1]},
            ],
            "paired_n": self.paired_n,
            "alpha": self.alpha,
            "blocks": blocks,
            "unpaired": self.unpaired,
            "prices": self.prices,
            "defense_cost": self.defense_cost().map(|(bcr, ci, n)| json!({
                "guarded": self.guarded_twin.map(|i| ["A", "B"][i]),
                "bcr_delta": bcr,
                "ci": ci,
                "n": n,
            })),
        })
    }
}
