//! Inline SVG plots of the report beside the heatmaps: a forest plot of paired
//! differences, a PVR-versus-BCR scatter of runs and guard decisions per layer as
//! bars. Every mark carries its numbers in `data-` attributes and a `<title>`, so the
//! page can be checked (and read) without measuring pixels.

use maud::{html, Markup};

/// One row of a forest plot: a paired difference with its interval, in rate units.
#[derive(Debug, Clone, PartialEq)]
pub struct ForestRow {
    /// Which runs, e.g. `R2 - R1`.
    pub pair: String,
    /// The metric, e.g. `PVR`.
    pub metric: String,
    /// Tooltip: the runs' full names.
    pub title: String,
    /// Pairs behind the difference.
    pub n: u64,
    /// `b - a`, absent when no pair counts.
    pub delta: Option<f64>,
    /// Its 95% interval.
    pub ci: Option<[f64; 2]>,
    /// Whether the difference is significant at the report's level.
    pub significant: bool,
}

/// One run of the scatter: its overall PVR and BCR with their intervals.
#[derive(Debug, Clone, PartialEq)]
pub struct ScatterPoint {
    /// Short run name (`R1`).
    pub run: String,
    /// Tooltip: the run's full name.
    pub title: String,
    /// Overall PVR and its interval.
    pub pvr: (f64, Option<[f64; 2]>),
    /// Overall BCR and its interval.
    pub bcr: (f64, Option<[f64; 2]>),
}

/// One bar: a run's decisions in one guard layer.
#[derive(Debug, Clone, PartialEq)]
pub struct GuardBar {
    /// Short run name.
    pub run: String,
    /// `input` or `output`.
    pub layer: String,
    /// Tooltip: the run's full name.
    pub title: String,
    /// Decisions that allowed the flow.
    pub allowed: u64,
    /// Decisions that denied it.
    pub denied: u64,
}

const LABEL_W: f64 = 150.0;
const PLOT_W: f64 = 360.0;
const VALUE_W: f64 = 170.0;
const ROW_H: f64 = 22.0;
const AXIS_H: f64 = 30.0;

/// A symmetric axis bound in percentage points that holds every interval: 10, 25, 50
/// or 100.
fn forest_bound(rows: &[ForestRow]) -> f64 {
    let widest = rows
        .iter()
        .flat_map(|r| {
            r.ci.map_or_else(|| r.delta.into_iter().collect(), |c| c.to_vec())
        })
        .map(|x| (x * 100.0).abs())
        .fold(0.0, f64::max);
    [10.0, 25.0, 50.0, 100.0]
        .into_iter()
        .find(|b| widest <= *b)
        .unwrap_or(100.0)
}

fn points(x: f64) -> String {
    format!("{:+.1}", x * 100.0)
}

/// A coordinate as the plots write it, to a tenth of a pixel.
fn px(x: f64) -> String {
    format!("{x:.1}")
}

/// A rate in a `data-` attribute, precise enough to check against the summaries.
fn rate(x: f64) -> String {
    format!("{x:.4}")
}

/// The forest plot: one row per pair and metric, the difference as a dot on its
/// interval, a line at zero. Rows without pairs are listed with no mark.
pub fn render_forest(rows: &[ForestRow]) -> Markup {
    let bound = forest_bound(rows);
    let width = LABEL_W + PLOT_W + VALUE_W;
    let height = AXIS_H + ROW_H * rows.len().max(1) as f64 + 8.0;
    let x_of = |d: f64| LABEL_W + (d * 100.0 + bound) / (2.0 * bound) * PLOT_W;
    html! {
        svg class="forest" id="forest" xmlns="http://www.w3.org/2000/svg" width=(width) height=(height)
            viewBox={ "0 0 " (width) " " (height) } role="img"
            aria-label="paired differences between runs with 95% intervals" {
            @for tick in [-bound, -bound / 2.0, 0.0, bound / 2.0, bound] {
                @let x = px(x_of(tick / 100.0));
                line x1=(x) y1=(AXIS_H - 8.0) x2=(x) y2=(height)
                    class=(if tick == 0.0 { "zero" } else { "grid" }) {}
                text x=(x) y="14" text-anchor="middle" class="tick" { (format!("{tick:+}")) }
            }
            @for (i, r) in rows.iter().enumerate() {
                (forest_row(r, AXIS_H + ROW_H * i as f64 + ROW_H / 2.0, x_of))
            }
        }
    }
}

/// One row of the forest plot at height `y`, its numbers in `data-` attributes.
fn forest_row(r: &ForestRow, y: f64, x_of: impl Fn(f64) -> f64) -> Markup {
    let value = match (r.delta, r.ci) {
        (Some(d), Some([lo, hi])) => {
            format!("{} [{}, {}] n={}", points(d), points(lo), points(hi), r.n)
        }
        (Some(d), None) => format!("{} n={}", points(d), r.n),
        _ => "no pairs".to_owned(),
    };
    html! {
        g class={ "forest-row" @if r.significant { " sig" } } data-pair=(r.pair) data-metric=(r.metric)
            data-n=(r.n) data-delta=[r.delta.map(rate)] data-lo=[r.ci.map(|c| rate(c[0]))]
            data-hi=[r.ci.map(|c| rate(c[1]))] {
            title { (r.title) ": " (r.metric) " " (value) }
            text x=(LABEL_W - 8.0) y=(px(y + 4.0)) text-anchor="end" class="lbl" { (r.pair) " " (r.metric) }
            @if let Some([lo, hi]) = r.ci {
                line class="ci" x1=(px(x_of(lo))) y1=(px(y)) x2=(px(x_of(hi))) y2=(px(y)) {}
            }
            @if let Some(d) = r.delta {
                circle class="pt" cx=(px(x_of(d))) cy=(px(y)) r="4" {}
            }
            text x=(LABEL_W + PLOT_W + 8.0) y=(px(y + 4.0)) class="val" { (value) }
        }
    }
}

const SIDE: f64 = 300.0;
const MARGIN: f64 = 40.0;

/// The scatter of runs: overall PVR (x, lower is better) against overall BCR (y,
/// higher is better), each with its Wilson interval as whiskers; the best corner is
/// top left.
pub fn render_scatter(points: &[ScatterPoint]) -> Markup {
    let size = SIDE + 2.0 * MARGIN;
    let x_of = |v: f64| MARGIN + v.clamp(0.0, 1.0) * SIDE;
    let y_of = |v: f64| MARGIN + (1.0 - v.clamp(0.0, 1.0)) * SIDE;
    let middle = px(MARGIN + SIDE / 2.0);
    html! {
        svg class="scatter" id="scatter-pvr-bcr" xmlns="http://www.w3.org/2000/svg" width=(size) height=(size)
            viewBox={ "0 0 " (size) " " (size) } role="img"
            aria-label="PVR against BCR, one point per run" {
            rect x=(MARGIN) y=(MARGIN) width=(SIDE) height=(SIDE) class="frame" {}
            @for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
                text x=(px(x_of(tick))) y=(px(MARGIN + SIDE + 14.0)) text-anchor="middle" class="tick" { (tick * 100.0) }
                text x=(px(MARGIN - 4.0)) y=(px(y_of(tick) + 4.0)) text-anchor="end" class="tick" { (tick * 100.0) }
            }
            text x=(middle) y=(px(size - 6.0)) text-anchor="middle" class="axis" { "PVR (%)" }
            text x="12" y=(middle) text-anchor="middle" class="axis"
                transform={ "rotate(-90 12 " (middle) ")" } { "BCR (%)" }
            @for p in points {
                @let (x, y) = (x_of(p.pvr.0), y_of(p.bcr.0));
                g class="run-point" data-run=(p.run) data-pvr=(rate(p.pvr.0)) data-bcr=(rate(p.bcr.0)) {
                    title { (p.title) ": PVR " (px(p.pvr.0 * 100.0)) "%, BCR " (px(p.bcr.0 * 100.0)) "%" }
                    @if let Some([lo, hi]) = p.pvr.1 {
                        line class="ci" x1=(px(x_of(lo))) y1=(px(y)) x2=(px(x_of(hi))) y2=(px(y)) {}
                    }
                    @if let Some([lo, hi]) = p.bcr.1 {
                        line class="ci" x1=(px(x)) y1=(px(y_of(lo))) x2=(px(x)) y2=(px(y_of(hi))) {}
                    }
                    circle class="pt" cx=(px(x)) cy=(px(y)) r="5" {}
                    text x=(px(x + 7.0)) y=(px(y - 6.0)) class="lbl" { (p.run) }
                }
            }
        }
    }
}

const BAR_W: f64 = 420.0;

/// Guard decisions as horizontal bars, one per run and layer: allowed and denied
/// stacked, all bars on one scale.
pub fn render_guard_bars(bars: &[GuardBar]) -> Markup {
    let most = bars
        .iter()
        .map(|b| b.allowed + b.denied)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let width = 110.0 + BAR_W + 170.0;
    let height = ROW_H * bars.len().max(1) as f64 + 24.0;
    let legend = ROW_H * bars.len().max(1) as f64 + 16.0;
    html! {
        svg class="bars" id="guard-bars" xmlns="http://www.w3.org/2000/svg" width=(width) height=(height)
            viewBox={ "0 0 " (width) " " (height) } role="img"
            aria-label="guard decisions per run and layer: allowed and denied" {
            @for (i, b) in bars.iter().enumerate() {
                @let y = ROW_H * i as f64 + 2.0;
                @let wa = b.allowed as f64 / most * BAR_W;
                @let wd = b.denied as f64 / most * BAR_W;
                @let label_y = px(y + ROW_H / 2.0 + 2.0);
                g class="guard-bar" data-run=(b.run) data-layer=(b.layer) data-allowed=(b.allowed) data-denied=(b.denied) {
                    title { (b.title) " " (b.layer) ": " (b.allowed) " allowed, " (b.denied) " denied" }
                    text x="102" y=(label_y) text-anchor="end" class="lbl" { (b.run) " " (b.layer) }
                    rect class="allowed" x="110" y=(px(y)) width=(px(wa)) height=(px(ROW_H - 6.0)) {}
                    rect class="denied" x=(px(110.0 + wa)) y=(px(y)) width=(px(wd)) height=(px(ROW_H - 6.0)) {}
                    text x=(px(110.0 + wa + wd + 6.0)) y=(label_y) class="val" { (b.allowed) " allowed, " (b.denied) " denied" }
                }
            }
            rect class="allowed" x="110" y=(px(legend - 9.0)) width="10" height="10" {}
            text x="124" y=(px(legend)) class="val" { "allowed" }
            rect class="denied" x="190" y=(px(legend - 9.0)) width="10" height="10" {}
            text x="204" y=(px(legend)) class="val" { "denied (withheld, redacted, blocked, restored or shadow)" }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(delta: Option<f64>, ci: Option<[f64; 2]>) -> ForestRow {
        ForestRow {
            pair: "R2 - R1".to_owned(),
            metric: "PVR".to_owned(),
            title: "b vs a".to_owned(),
            n: 5,
            delta,
            ci,
            significant: false,
        }
    }

    #[test]
    fn the_forest_axis_holds_every_interval_and_rows_without_pairs_have_no_mark() {
        let rows = [
            row(Some(-0.2), Some([-0.6, 0.3])),
            row(None, None),
            row(Some(0.05), Some([-0.02, 0.12])),
        ];
        assert_eq!(forest_bound(&rows), 100.0);
        assert_eq!(forest_bound(&rows[2..]), 25.0);
        let svg = render_forest(&rows).into_string();
        assert_eq!(svg.matches("<circle class=\"pt\"").count(), 2);
        assert_eq!(svg.matches("<line class=\"ci\"").count(), 2);
        assert_eq!(svg.matches("class=\"forest-row").count(), 3);
        assert!(svg.contains("data-delta=\"-0.2000\" data-lo=\"-0.6000\" data-hi=\"0.3000\""));
        assert!(svg.contains("no pairs"));
        // Zero sits in the middle of the plot.
        assert!(svg.contains(&format!("x1=\"{:.1}\"", LABEL_W + PLOT_W / 2.0)));
    }

    #[test]
    fn scatter_points_sit_where_their_rates_say() {
        let svg = render_scatter(&[ScatterPoint {
            run: "R1".to_owned(),
            title: "a <run>".to_owned(),
            pvr: (0.25, Some([0.1, 0.4])),
            bcr: (1.0, None),
        }])
        .into_string();
        assert!(svg.contains(&format!(
            "cx=\"{:.1}\" cy=\"{:.1}\"",
            MARGIN + 0.25 * SIDE,
            MARGIN
        )));
        assert_eq!(svg.matches("<line class=\"ci\"").count(), 1);
        assert!(svg.contains("a &lt;run&gt;"));
    }

    #[test]
    fn guard_bars_share_one_scale() {
        let bar = |layer: &str, allowed, denied| GuardBar {
            run: "R1".to_owned(),
            layer: layer.to_owned(),
            title: "r".to_owned(),
            allowed,
            denied,
        };
        let svg = render_guard_bars(&[bar("input", 30, 10), bar("output", 5, 15)]).into_string();
        assert!(svg.contains(&format!("width=\"{:.1}\"", 30.0 / 40.0 * BAR_W)));
        assert!(svg.contains(&format!("width=\"{:.1}\"", 15.0 / 40.0 * BAR_W)));
        assert_eq!(svg.matches("class=\"guard-bar\"").count(), 2);
    }
}
