//! Inline SVG heatmaps: one row per factor level, one column per run, each cell shaded
//! by its rate (white 0% to dark red 100%, grey when the run has no trial there).

use maud::{html, Markup};

/// One heatmap cell: a rate and its sample size.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HeatCell {
    /// The rate, `None` for an empty sample.
    pub rate: Option<f64>,
    /// Valid trials behind it.
    pub n: u64,
}

/// A heatmap ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    /// Element id and caption.
    pub id: String,
    /// What the rows are, e.g. `family`.
    pub title: String,
    /// Row labels.
    pub rows: Vec<String>,
    /// Column labels (short run names) and their tooltips (full run labels).
    pub columns: Vec<(String, String)>,
    /// `cells[row][column]`.
    pub cells: Vec<Vec<HeatCell>>,
}

const CELL_W: usize = 58;
const CELL_H: usize = 26;
const LABEL_W: usize = 130;
const HEAD_H: usize = 24;

/// White to `#b2182b` by rate.
fn shade(rate: f64) -> String {
    let r = rate.clamp(0.0, 1.0);
    let mix = |from: f64, to: f64| (from + (to - from) * r).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(255.0, 178.0),
        mix(255.0, 24.0),
        mix(255.0, 43.0)
    )
}

/// One cell: its shade, its value and, as a tooltip, its row, run, rate and size.
fn heat_cell(x: usize, y: usize, tip: &str, cell: &HeatCell) -> Markup {
    let (fill, text, ink) = match cell.rate {
        Some(rate) => (
            shade(rate),
            format!("{:.0}", rate * 100.0),
            if rate > 0.55 { "#fff" } else { "#222" },
        ),
        None => ("#e6e6e6".to_owned(), "-".to_owned(), "#777"),
    };
    html! {
        g {
            title { (tip) }
            rect x=(x) y=(y) width=(CELL_W) height=(CELL_H) fill=(fill) stroke="#fff" {}
            text x=(x + CELL_W / 2) y=(y + CELL_H / 2 + 4) text-anchor="middle" fill=(ink) class="hm-val" { (text) }
        }
    }
}

/// The heatmap as an `<svg>` element (no scripts, no external references).
pub fn render_heatmap(h: &Heatmap) -> Markup {
    let width = LABEL_W + CELL_W * h.columns.len().max(1) + 2;
    let height = HEAD_H + CELL_H * h.rows.len().max(1) + 2;
    html! {
        svg class="heatmap" id=(h.id) xmlns="http://www.w3.org/2000/svg" width=(width) height=(height)
            viewBox={ "0 0 " (width) " " (height) } role="img" aria-label=(h.title) {
            @for (c, (short, full)) in h.columns.iter().enumerate() {
                text x=(LABEL_W + c * CELL_W + CELL_W / 2) y="16" text-anchor="middle" class="hm-col" {
                    title { (full) }
                    (short)
                }
            }
            @for (r, label) in h.rows.iter().enumerate() {
                @let y = HEAD_H + r * CELL_H;
                text x=(LABEL_W - 8) y=(y + CELL_H / 2 + 4) text-anchor="end" class="hm-row" { (label) }
                @for (c, cell) in h.cells.get(r).into_iter().flatten().enumerate() {
                    @let tip = format!(
                        "{label} x {}: {} (n = {})",
                        h.columns.get(c).map_or("", |col| col.1.as_str()),
                        cell.rate.map_or_else(
                            || "no valid trial".to_owned(),
                            |v| format!("{:.1}%", v * 100.0)
                        ),
                        cell.n
                    );
                    (heat_cell(LABEL_W + c * CELL_W, y, &tip, cell))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_shaded_by_rate_and_labelled() {
        let h = Heatmap {
            id: "hm".to_owned(),
            title: "PVR by family".to_owned(),
            rows: vec!["A1".to_owned(), "A<2".to_owned()],
            columns: vec![("R1".to_owned(), "run one".to_owned())],
            cells: vec![
                vec![HeatCell {
                    rate: Some(1.0),
                    n: 4,
                }],
                vec![HeatCell { rate: None, n: 0 }],
            ],
        };
        let svg = render_heatmap(&h).into_string();
        assert!(svg.contains("fill=\"#b2182b\""), "{svg}");
        assert!(svg.contains(">100</text>"));
        assert!(svg.contains("fill=\"#e6e6e6\""));
        assert!(svg.contains("A&lt;2") && !svg.contains("A<2"));
        assert_eq!(shade(0.0), "#ffffff");
    }
}
