//! Small HTML building blocks: escaping, JSON data islands and percentages.

/// Escapes text for HTML element content and attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A `<script type="application/json">` block holding `json`. A `<` can only occur
/// inside JSON strings, where `\u003c` means the same, so no text in the data can close
/// the script element or open a comment.
pub fn json_island(id: &str, json: &str) -> String {
    format!(
        "<script type=\"application/json\" id=\"{}\">{}</script>\n",
        esc(id),
        json.replace('<', "\\u003c")
    )
}

/// A rate in percent with one decimal, `-` when absent.
pub fn pct(rate: Option<f64>) -> String {
    rate.map_or_else(|| "-".to_owned(), |r| format!("{:.1}", r * 100.0))
}

/// A rate with its interval, as `12.3 <small>[9.1, 16.0]</small>`.
pub fn pct_ci(rate: Option<f64>, ci: Option<[f64; 2]>) -> String {
    match (rate, ci) {
        (Some(r), Some([lo, hi])) => format!(
            "{:.1} <small>[{:.1}, {:.1}]</small>",
            r * 100.0,
            lo * 100.0,
            hi * 100.0
        ),
        (r, _) => pct(r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_islands_cannot_close_their_script() {
        let island = json_island("x", r#"{"t":"</script><script>alert(1)</script>"}"#);
        assert_eq!(island.matches("</script>").count(), 1);
        assert!(island.contains(r"\u003c/script>"));
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }
}
