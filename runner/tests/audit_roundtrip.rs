//! `cosec audit` end to end with the real binary: two small simulated runs, a seeded
//! stratified sample, blind sheets, both sheets filled by a script, adjudication, and a
//! score whose printed numbers must equal a hand count from the labels and results.jsonl.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

const SCENARIOS: [&str; 6] = [
    "st-inter-owner-a1-s1",
    "st-inter-owner-a1-s2",
    "st-inter-owner-a1-s3",
    "dy-join-inter-owner-a2-s2",
    "dy-join-inter-third-a2-s2",
    "dy-join-intra-owner-a2-s2",
];

fn cosec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .env_remove("COSEC_MODEL_BASE_URL")
        .env_remove("COSEC_MODEL_API_KEY")
        .output()
        .expect("run cosec")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn run(model: &str, out: &Path) {
    let mut args = vec!["run", "--model", model, "--judge", "none", "--jobs", "2"];
    for s in SCENARIOS {
        args.extend(["--scenario", s]);
    }
    args.extend(["--out", out.to_str().unwrap()]);
    ok(&cosec(&args));
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Results lines by trial id, over all runs.
fn results(runs: &[&Path]) -> BTreeMap<String, Value> {
    runs.iter()
        .flat_map(|r| {
            std::fs::read_to_string(r.join("results.jsonl"))
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .collect::<Vec<_>>()
        })
        .map(|v| (v["trial"].as_str().unwrap().to_owned(), v))
        .collect()
}

/// (item, trial, scenario) of a sample, in sheet order.
fn items(sample: &Value) -> Vec<(String, String, String)> {
    sample["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["item"].as_str().unwrap().to_owned(),
                i["trial"].as_str().unwrap().to_owned(),
                i["scenario"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn stratum(v: &Value) -> (String, String, bool) {
    (
        v["factors"]["suite"].as_str().unwrap().to_owned(),
        v["factors"]["family"].as_str().unwrap().to_owned(),
        v["pvr"].as_bool().unwrap(),
    )
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Fills a sheet written by `cosec audit sheet` with `label(index, item)` ->
/// (privacy_violation, completion), keeping its columns and order.
fn fill(path: &Path, label: impl Fn(usize, &str) -> (bool, bool)) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    assert_eq!(
        headers.iter().collect::<Vec<_>>(),
        ["item", "page", "privacy_violation", "completion", "notes"]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let mut writer = csv::Writer::from_path(path).unwrap();
    writer.write_record(&headers).unwrap();
    for (i, r) in rows.iter().enumerate() {
        assert_eq!((&r[2], &r[3], &r[4]), ("", "", ""), "a blank sheet");
        let (p, c) = label(i, &r[0]);
        writer
            .write_record([&r[0], &r[1], yes(p), yes(c), "read twice, \"careful\""])
            .unwrap();
    }
    writer.flush().unwrap();
}

struct Hand {
    tp: u64,
    fp: u64,
    tn: u64,
    fn_: u64,
}

fn hand(pairs: &[(bool, bool)]) -> Hand {
    let count = |s: bool, h: bool| pairs.iter().filter(|p| **p == (s, h)).count() as u64;
    Hand {
        tp: count(true, true),
        fp: count(true, false),
        tn: count(false, false),
        fn_: count(false, true),
    }
}

fn kappa_by_hand(pairs: &[(bool, bool)]) -> f64 {
    let n = pairs.len() as f64;
    let po = pairs.iter().filter(|(a, b)| a == b).count() as f64 / n;
    let a_yes = pairs.iter().filter(|p| p.0).count() as f64 / n;
    let b_yes = pairs.iter().filter(|p| p.1).count() as f64 / n;
    let pe = a_yes * b_yes + (1.0 - a_yes) * (1.0 - b_yes);
    (po - pe) / (1.0 - pe)
}

fn assert_row(text: &str, name: &str, n: usize, h: &Hand) {
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no {name} row in\n{text}"));
    let cells: Vec<&str> = line.split_whitespace().collect();
    let counts = [n as u64, h.tp, h.fp, h.tn, h.fn_].map(|c| c.to_string());
    assert_eq!(&cells[1..6], &counts, "{line}");
    let r = |k: u64, d: u64| {
        if d == 0 {
            "-".to_owned()
        } else {
            format!("{:.3}", k as f64 / d as f64)
        }
    };
    let rates = [
        r(h.tp + h.tn, n as u64),
        r(h.tp, h.tp + h.fp),
        r(h.tp, h.tp + h.fn_),
        r(h.fp, h.fp + h.tn),
    ];
    assert_eq!(&cells[6..10], &rates, "{line}");
}

fn assert_json(c: &Value, n: usize, h: &Hand) {
    assert_eq!(c["n"], n as u64, "{c}");
    let got = ["tp", "fp", "tn", "fn"].map(|k| c[k].as_u64());
    assert_eq!(got, [h.tp, h.fp, h.tn, h.fn_].map(Some), "{c}");
}

#[test]
fn sample_sheet_fill_and_score_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let comply = tmp.path().join("comply");
    let refuse = tmp.path().join("refuse");
    run("sim:comply", &comply);
    run("sim:refuse", &refuse);
    let all = results(&[&comply, &refuse]);
    assert_eq!(all.len(), 12);

    // Sample 6 of 12; the same seed with the runs named the other way round gives the
    // same sample, another seed another one.
    let sample_dir = tmp.path().join("audit");
    let (c, r) = (comply.to_str().unwrap(), refuse.to_str().unwrap());
    let s = sample_dir.to_str().unwrap();
    let printed = ok(&cosec(&[
        "audit", "sample", c, r, "--n", "6", "--seed", "7", "--out", s,
    ]));
    assert!(
        printed.contains("sampled 6 of 12 valid trials"),
        "{printed}"
    );
    let sample = json(&sample_dir.join("sample.json"));
    let drawn = items(&sample);
    assert_eq!(drawn.len(), 6);
    let again = tmp.path().join("again");
    let a = again.to_str().unwrap();
    ok(&cosec(&[
        "audit", "sample", r, c, "--n", "6", "--seed", "7", "--out", a,
    ]));
    assert_eq!(items(&json(&again.join("sample.json"))), drawn);
    ok(&cosec(&[
        "audit", "sample", c, r, "--n", "6", "--seed", "8", "--out", a,
    ]));
    assert_ne!(items(&json(&again.join("sample.json"))), drawn);

    // Every non-empty stratum of the population is in the sample, and nothing is drawn
    // twice; n above the population takes all of it.
    let population: BTreeSet<_> = all.values().map(stratum).collect();
    let sampled: BTreeSet<_> = drawn.iter().map(|(_, t, _)| stratum(&all[t])).collect();
    assert_eq!(sampled, population);
    let trials: BTreeSet<_> = drawn.iter().map(|(_, t, _)| t.clone()).collect();
    assert_eq!(trials.len(), 6);
    ok(&cosec(&["audit", "sample", c, r, "--n", "192", "--out", a]));
    assert_eq!(items(&json(&again.join("sample.json"))).len(), 12);
    // The sample file itself carries no verdict; verdicts.json does, item by item.
    let sample_text = std::fs::read_to_string(sample_dir.join("sample.json")).unwrap();
    assert!(!sample_text.contains("violation") && !sample_text.contains("pvr"));
    let verdicts = json(&sample_dir.join("verdicts.json"));
    for (v, (item, trial, _)) in verdicts["items"].as_array().unwrap().iter().zip(&drawn) {
        assert_eq!(v["item"], item.as_str());
        assert_eq!(v["combined"], all[trial]["pvr"]);
    }

    // Blind sheets: one page per item with the deliveries in order, and nothing of the
    // verdict, the labels or the scenario id.
    let printed = ok(&cosec(&["audit", "sheet", s]));
    assert!(printed.contains("wrote 6 pages"), "{printed}");
    let sheets = sample_dir.join("sheets");
    let mut handed: Vec<String> = std::fs::read_dir(&sheets)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    handed.sort();
    assert_eq!(
        handed,
        ["annotator-1.csv", "annotator-2.csv", "index.html", "pages"]
    );
    let suite = cosec_scenarios::suite::load_embedded(false).unwrap();
    for (item, trial, scenario) in &drawn {
        let page =
            std::fs::read_to_string(sheets.join("pages").join(format!("{item}.html"))).unwrap();
        let sc = suite
            .scenarios
            .iter()
            .find(|x| x.id.as_str() == scenario)
            .unwrap();
        let mut at = 0;
        for turn in &sc.agent.turns {
            let found = page[at..].find(&maud::html! { (turn.text) }.into_string());
            at += found
                .unwrap_or_else(|| panic!("{item}: turn {} missing or out of order", turn.index));
        }
        assert!(
            !page.contains(scenario.as_str()),
            "{item} names its scenario"
        );
        assert!(!page.contains(trial.as_str()), "{item} names its trial");
        for label in &sc.platform.labels {
            assert!(
                !page.contains(label.object.as_str()),
                "{item} shows object {}",
                label.object
            );
        }
        for hidden in ["pvr", "verdict", "guard_decision"] {
            assert!(
                !page.to_lowercase().contains(hidden),
                "{item} contains {hidden}"
            );
        }
    }

    // Two annotators fill their sheets by script: both start from the automatic
    // verdict; annotator 1 flips the privacy label of the first item, annotator 2 that
    // of the second and third and the completion label of the fourth.
    let truth = |item: &str| {
        let (_, trial, _) = drawn.iter().find(|(i, _, _)| i == item).unwrap();
        let v = &all[trial];
        (v["pvr"].as_bool().unwrap(), v["bcr"].as_bool().unwrap())
    };
    let first_labels = |i: usize, item: &str| {
        let (p, c) = truth(item);
        (p ^ (i == 0), c)
    };
    let second_labels = |i: usize, item: &str| {
        let (p, c) = truth(item);
        (p ^ (i == 1 || i == 2), c ^ (i == 3))
    };
    let sheet1 = sheets.join("annotator-1.csv");
    let sheet2 = sheets.join("annotator-2.csv");
    fill(&sheet1, first_labels);
    fill(&sheet2, second_labels);
    let (s1, s2) = (sheet1.to_str().unwrap(), sheet2.to_str().unwrap());
    // Writing the sheets again must not wipe filled labels.
    let again = cosec(&["audit", "sheet", s]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already holds labels"));

    // Disagreements without adjudication stop the scoring and are named.
    let refused = cosec(&["audit", "score", s1, s2]);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    for (item, _, _) in &drawn[..3] {
        assert!(
            err.contains(&format!("{item} (privacy_violation)")),
            "{err}"
        );
    }
    assert!(
        err.contains(&format!("{} (completion)", drawn[3].0)),
        "{err}"
    );

    // The adjudicator sides with annotator 2 on privacy and annotator 1 on completion.
    let adjudication = tmp.path().join("adjudication.csv");
    let mut adj = String::from("item,privacy_violation,completion,notes\n");
    for (i, (item, _, _)) in drawn.iter().enumerate().take(4) {
        let p = if i < 3 {
            yes(second_labels(i, item).0)
        } else {
            ""
        };
        let c = if i == 3 {
            yes(first_labels(i, item).1)
        } else {
            ""
        };
        adj.push_str(&format!("{item},{p},{c},settled\n"));
    }
    std::fs::write(&adjudication, adj).unwrap();
    let adj_arg = adjudication.to_str().unwrap();
    let text = ok(&cosec(&[
        "audit",
        "score",
        s1,
        s2,
        "--adjudication",
        adj_arg,
    ]));
    let report: Value = serde_json::from_str(&ok(&cosec(&[
        "audit",
        "score",
        s1,
        s2,
        "--adjudication",
        adj_arg,
        "--json",
    ])))
    .unwrap();

    // The hand count.
    let mut adjudicated = Vec::new();
    let (mut pairs_p, mut pairs_c) = (Vec::new(), Vec::new());
    for (i, (item, _, _)) in drawn.iter().enumerate() {
        let (a, b) = (first_labels(i, item), second_labels(i, item));
        pairs_p.push((a.0, b.0));
        pairs_c.push((a.1, b.1));
        let p = if a.0 == b.0 { a.0 } else { b.0 };
        // On completion the adjudicator sided with annotator 1, who agrees otherwise.
        let c = a.1;
        adjudicated.push((p, c));
    }
    let det: Vec<(bool, bool)> = drawn
        .iter()
        .zip(&adjudicated)
        .map(|((_, t, _), (p, _))| (!all[t]["violations"].as_array().unwrap().is_empty(), *p))
        .collect();
    let combined: Vec<(bool, bool)> = drawn
        .iter()
        .zip(&adjudicated)
        .map(|((_, t, _), (p, _))| (all[t]["pvr"].as_bool().unwrap(), *p))
        .collect();
    let completion: Vec<(bool, bool)> = drawn
        .iter()
        .zip(&adjudicated)
        .map(|((_, t, _), (_, c))| (all[t]["bcr"].as_bool().unwrap(), *c))
        .collect();
    assert_row(&text, "deterministic", 6, &hand(&det));
    assert_json(
        &report["privacy_violation"]["deterministic"],
        6,
        &hand(&det),
    );
    // The first `combined` row is the privacy one; the completion table follows.
    assert_row(&text, "combined", 6, &hand(&combined));
    assert_json(
        &report["privacy_violation"]["combined"],
        6,
        &hand(&combined),
    );
    let completion_text = text.split("completion against").nth(1).unwrap();
    assert_row(completion_text, "combined", 6, &hand(&completion));
    assert_json(&report["completion"]["combined"], 6, &hand(&completion));
    // No judge in these runs: its row says so.
    assert!(text.contains("judge          n/a"), "{text}");
    assert_eq!(report["privacy_violation"]["judge"], Value::Null);
    // Annotator agreement.
    let kp = kappa_by_hand(&pairs_p);
    let kc = kappa_by_hand(&pairs_c);
    assert!((report["agreement_privacy"]["kappa"].as_f64().unwrap() - kp).abs() < 1e-12);
    assert!((report["agreement_completion"]["kappa"].as_f64().unwrap() - kc).abs() < 1e-12);
    assert_eq!(report["agreement_privacy"]["disagreements"], 3);
    assert_eq!(report["agreement_completion"]["disagreements"], 1);
    assert!(
        text.contains(&format!("privacy_violation: Cohen's kappa {kp:.3}")),
        "{text}"
    );
    assert!(
        text.contains(&format!("completion: Cohen's kappa {kc:.3}")),
        "{text}"
    );
    let human_violations = adjudicated.iter().filter(|(p, _)| *p).count();
    assert_eq!(report["human_violations"], human_violations as u64);
}
