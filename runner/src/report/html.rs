//! Small HTML building blocks of the report: JSON data islands and percentages. All
//! markup is built with `maud`, which escapes every interpolated value.

use maud::{html, Markup, PreEscaped};

/// A `<script type="application/json">` block holding `json`. A `<` can only occur
/// inside JSON strings, where `\u003c` means the same, so no text in the data can close
/// the script element or open a comment.
pub fn json_island(id: &str, json: &str) -> Markup {
    html! {
        script type="application/json" id=(id) {
            // Script content is raw text, not HTML: entities would reach the JSON parser
            // as they are. With every `<` written as `\u003c` the JSON is safe as it is.
            (PreEscaped(json.replace('<', "\\u003c")))
        }
    }
}

/// A rate in percent with one decimal, `-` when absent.
pub fn pct(rate: Option<f64>) -> String {
    rate.map_or_else(|| "-".to_owned(), |r| format!("{:.1}", r * 100.0))
}

/// A rate with its interval, as `12.3 <small>[9.1, 16.0]</small>`.
pub fn pct_ci(rate: Option<f64>, ci: Option<[f64; 2]>) -> Markup {
    html! {
        @match (rate, ci) {
            (Some(r), Some([lo, hi])) => {
                (format!("{:.1}", r * 100.0)) " "
                small { (format!("[{:.1}, {:.1}]", lo * 100.0, hi * 100.0)) }
            }
            (r, _) => (pct(r)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_islands_cannot_close_their_script() {
        let island =
            json_island("x", r#"{"t":"</script><script>alert(1)</script>"}"#).into_string();
        assert_eq!(island.matches("</script>").count(), 1);
        assert!(island.contains(r"\u003c/script>"));
        assert!(island.starts_with(r#"<script type="application/json" id="x">"#));
    }

    #[test]
    fn a_rate_shows_its_interval() {
        assert_eq!(
            pct_ci(Some(0.123), Some([0.091, 0.16])).into_string(),
            "12.3 <small>[9.1, 16.0]</small>"
        );
        assert_eq!(pct_ci(None, None).into_string(), "-");
    }
}
