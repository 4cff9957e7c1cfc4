//! `cosec compare`, `cosec report --html` and `--prices` on real runs of the built-in
//! agent with simulated models: paired numbers equal a count over the two results
//! files, the printed cost equals tokens times prices summed by hand, and the HTML
//! report is one self-contained file with every trial's trace.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A few scenarios of both halves, with leaks under `sim:comply`.
pub const SCENARIOS: [&str; 4] = [
    "st-inter-third-a4-s1",
    "st-intra-owner-a1-s1",
    "dy-join-inter-owner-a1-s2",
    "dy-join-inter-third-a2-s2",
];

fn cosec(args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(args)
        .env_remove("COSEC_JUDGE_BASE_URL")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "cosec {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Runs the chosen scenarios into `dir/name`.
pub fn small_run(dir: &Path, name: &str, model: &str, defense: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let mut args = vec![
        "run",
        "--model",
        model,
        "--defense",
        defense,
        "--judge",
        "none",
        "--out",
        out.to_str().unwrap(),
    ];
    for s in SCENARIOS {
        args.extend(["--scenario", s]);
    }
    args.extend(extra);
    cosec(&args);
    out
}

fn results(run: &Path) -> Vec<Value> {
    std::fs::read_to_string(run.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_printed_cost_is_tokens_times_prices_summed_by_hand() {
    let tmp = tempfile::tempdir().unwrap();
    let prices = tmp.path().join("prices.toml");
    std::fs::write(
        &prices,
        "currency = \"EUR\"\n[models.\"sim:comply\"]\ninput = 300.0\noutput = 1200.0\n",
    )
    .unwrap();
    let run = small_run(
        tmp.path(),
        "a",
        "sim:comply",
        "none",
        &["--prices", prices.to_str().unwrap()],
    );
    let by_hand: f64 = results(&run)
        .iter()
        .map(|v| {
            v["usage"]["input_tokens"].as_f64().unwrap() * 300.0 / 1e6
                + v["usage"]["output_tokens"].as_f64().unwrap() * 1200.0 / 1e6
        })
        .sum();
    assert!(by_hand > 0.01, "{by_hand}");
    let report = cosec(&[
        "report",
        run.to_str().unwrap(),
        "--prices",
        prices.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&report.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("cost: "))
        .unwrap_or_else(|| panic!("{text}"));
    let printed: f64 = line
        .trim_start_matches("cost: ")
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (printed - by_hand).abs() < 1e-4,
        "{printed} vs {by_hand}: {line}"
    );
    assert!(line.contains("EUR for the run (4 trials"), "{line}");
    assert!(text.contains("ESTIMATED by the simulated model"), "{text}");
    assert!(text.contains("time: ") && text.contains("p90"), "{text}");
}

#[test]
fn a_price_file_without_the_model_stops_the_run_before_any_trial() {
    let tmp = tempfile::tempdir().unwrap();
    let prices = tmp.path().join("prices.toml");
    std::fs::write(&prices, "[models.other]\ninput = 1\noutput = 2\n").unwrap();
    let out = tmp.path().join("run");
    let o = Command::new(env!("CARGO_BIN_EXE_cosec"))
        .args(["run", "--judge", "none", "--scenario", SCENARIOS[0]])
        .args(["--prices", prices.to_str().unwrap(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("[models.\"sim:comply\"]"), "{err}");
    assert!(!out.exists());
}

#[test]
fn compare_counts_the_pairs_of_two_real_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let a = small_run(tmp.path(), "a", "sim:comply", "none", &[]);
    let b = small_run(tmp.path(), "b", "sim:comply", "proxy", &[]);
    let o = cosec(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--json",
    ]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["paired_n"], 4);
    let (ra, rb) = (results(&a), results(&b));
    let pvr_of = |rows: &[Value], id: &str| {
        rows.iter().find(|r| r["scenario"] == id).unwrap()["pvr"]
            .as_bool()
            .unwrap()
    };
    let (mut only_a, mut only_b, mut in_a) = (0, 0, 0);
    for id in SCENARIOS {
        let (x, y) = (pvr_of(&ra, id), pvr_of(&rb, id));
        in_a += u64::from(x);
        only_a += u64::from(x && !y);
        only_b += u64::from(!x && y);
    }
    let pvr = &v["blocks"]["overall"]["pvr"];
    assert_eq!(pvr["discordant"], serde_json::json!([only_a, only_b]));
    assert_eq!(pvr["a"].as_f64().unwrap(), in_a as f64 / 4.0);
    assert_eq!(v["blocks"]["static112"]["pvr"]["n"], 2);
    let table = cosec(&[
        "compare",
        "--table",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("sim:comply (simulated)"), "{text}");
    assert!(
        !text.contains("average"),
        "an unguarded and a guarded run are never averaged: {text}"
    );

    // --changed names exactly the scenarios whose verdict differs, per metric.
    let o = cosec(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--changed",
        "--json",
    ]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    for metric in ["pvr", "bcr", "stcr"] {
        let of = |rows: &[Value], id: &str| {
            rows.iter().find(|r| r["scenario"] == id).unwrap()[metric]
                .as_bool()
                .unwrap()
        };
        let a_only: Vec<&str> = SCENARIOS
            .into_iter()
            .filter(|id| of(&ra, id) && !of(&rb, id))
            .collect();
        let b_only: Vec<&str> = SCENARIOS
            .into_iter()
            .filter(|id| !of(&ra, id) && of(&rb, id))
            .collect();
        let sorted = |mut ids: Vec<&str>| {
            ids.sort_unstable();
            serde_json::json!(ids)
        };
        assert_eq!(v["changed"][metric]["a_only"], sorted(a_only), "{metric}");
        assert_eq!(v["changed"][metric]["b_only"], sorted(b_only), "{metric}");
    }
    let text = cosec(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--changed",
    ]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("\nPVR: ") && text.contains("\nSTCR: "),
        "{text}"
    );
}

#[test]
fn the_html_report_is_one_self_contained_file_with_every_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let a = small_run(tmp.path(), "a", "sim:comply", "none", &[]);
    let b = small_run(tmp.path(), "b", "sim:comply", "proxy", &[]);
    let html = tmp.path().join("report.html");
    cosec(&[
        "report",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    let page = std::fs::read_to_string(&html).unwrap();
    for needle in [
        "id=\"matrix\"",
        "id=\"heatmap-family\"",
        "id=\"heatmap-event\"",
        "id=\"paired-2\"",
        "id=\"differences\"",
        "id=\"t0-3\"",
        "id=\"t1-3\"",
        "\"guard_decision\":[",
        "<select id=\"f-changed\">",
    ] {
        assert!(page.contains(needle), "missing {needle}");
    }
    assert_plots(&page);
    // Nothing is fetched: no external scripts, styles, images or frames.
    for banned in ["<link", " src=", "@import", "url(", "https://"] {
        assert!(!page.contains(banned), "found {banned}");
    }
    assert_eq!(
        page.matches("http://").count(),
        page.matches("http://www.w3.org/2000/svg").count()
    );
}

/// The plots of a report of an unguarded run (R1) and a guarded one (R2), in the
/// generated page or in the DOM Chromium rendered: the forest plot has R2 - R1 on
/// PVR, CCPVR, BCR and STCR, the scatter a point per run, the guard bars the guarded
/// run's two layers, each mark with its numbers.
fn assert_plots(page: &str) {
    let svg = |id: &str| -> String {
        page.split(&format!("id=\"{id}\""))
            .nth(1)
            .and_then(|rest| rest.split("</svg>").next())
            .unwrap_or_else(|| panic!("no #{id}"))
            .to_owned()
    };
    let forest = svg("forest");
    assert_eq!(forest.matches("class=\"forest-row").count(), 4, "{forest}");
    for metric in ["PVR", "CCPVR", "BCR", "STCR"] {
        assert!(
            forest.contains(&format!("data-pair=\"R2 - R1\" data-metric=\"{metric}\"")),
            "{metric}: {forest}"
        );
    }
    assert_eq!(
        forest.matches("class=\"pt\"").count(),
        forest.matches("data-delta=").count()
    );
    assert!(forest.matches("data-delta=").count() >= 3, "{forest}");
    let scatter = svg("scatter-pvr-bcr");
    assert_eq!(scatter.matches("class=\"run-point\"").count(), 2);
    assert!(scatter.contains("data-run=\"R1\"") && scatter.contains("data-run=\"R2\""));
    let bars = svg("guard-bars");
    assert_eq!(bars.matches("class=\"guard-bar\"").count(), 2, "{bars}");
    assert!(bars.contains("data-run=\"R2\" data-layer=\"input\""));
    assert!(bars.contains("data-run=\"R2\" data-layer=\"output\""));
    let decided: u64 = bars
        .split("data-allowed=\"")
        .skip(1)
        .chain(bars.split("data-denied=\"").skip(1))
        .map(|rest| rest.split('"').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert!(decided > 0, "the guarded run decided something: {bars}");
}

/// Headless Chromium with no network, no profile and no background services.
fn chromium(profile: &Path) -> Command {
    let bin = std::env::var("COSEC_CHROMIUM").unwrap_or_else(|_| "chromium".to_owned());
    let mut cmd = Command::new(bin);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

#[test]
#[ignore = "tier browser: needs chromium"]
fn chromium_renders_the_table_the_plots_and_a_trace_opened_from_the_url() {
    let tmp = tempfile::tempdir().unwrap();
    let a = small_run(tmp.path(), "a", "sim:comply", "none", &[]);
    let b = small_run(tmp.path(), "b", "sim:comply", "proxy", &[]);
    let html = tmp.path().join("report.html");
    cosec(&[
        "report",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    let url = format!("file://{}#trace=2/{}", html.display(), SCENARIOS[0]);
    let profile = tempfile::tempdir().unwrap();
    let o = chromium(profile.path())
        .args(["--dump-dom", &url])
        .output()
        .expect("chromium runs (scripts/tiers/browser.sh installs it)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dom = String::from_utf8_lossy(&o.stdout);
    assert!(
        dom.contains("<table class=\"matrix\" id=\"matrix\">"),
        "no matrix table"
    );
    assert!(
        dom.contains("<svg class=\"heatmap\" id=\"heatmap-family\""),
        "no heatmap"
    );
    // The script ran: the trial list has a row per trial, and the trace in the URL is open.
    let rows = dom.matches("<tr data-r=\"0\"").count() + dom.matches("<tr data-r=\"1\"").count();
    assert_eq!(rows, 8, "trial rows");
    let title = dom
        .split("<h3 id=\"trace-title\">")
        .nth(1)
        .expect("the trace named in the URL is rendered");
    assert!(
        title.starts_with(&format!("R2 {}", SCENARIOS[0])),
        "{}",
        &title[..80.min(title.len())]
    );
    assert!(dom.contains("class=\"ev ev-delivery\"") && dom.contains("class=\"ev ev-reply\""));
    // The plots are in the rendered page with their data, and the trial list has the
    // changed-between-runs filter and column.
    assert_plots(&dom);
    assert!(
        dom.contains("<select id=\"f-changed\">"),
        "no changed filter"
    );
    assert!(dom.contains("<th>changed</th>"), "no changed column");
    // The packed trial was expanded: texts, not references into the string table.
    let trace = dom.split("id=\"trace-view\"").nth(1).unwrap_or_default();
    assert!(
        !trace.contains("<pre>@") && !trace.contains("<pre></pre>"),
        "packed references left in the trace"
    );
    if let Ok(shot) = std::env::var("COSEC_REPORT_SCREENSHOT") {
        let o = chromium(profile.path())
            .args([
                "--window-size=1280,1600",
                &format!("--screenshot={shot}"),
                &url,
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
}
