//! The price file (`--prices prices.toml`): per model, the price of a million input,
//! output and cached-input tokens.
//!
//! ```toml
//! currency = "USD"                 # optional, default USD
//! [models."openai:gpt-5-mini"]     # the run's --model spelling (the `openai:` prefix may be left out)
//! input = 0.25
//! output = 2.0
//! cached_input = 0.025             # optional
//! ```

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Errors reading a price file.
#[derive(Debug, thiserror::Error)]
pub enum PriceError {
    /// The file could not be read.
    #[error("--prices {path}: {source}")]
    Io {
        /// The price file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// The file is not a valid price table.
    #[error("--prices {path}: {}\n  expected: currency = \"USD\" and one [models.\"MODEL\"] table per model with input = and output = (per million tokens), cached_input = optional", source.to_string().trim_end())]
    Parse {
        /// The price file.
        path: PathBuf,
        /// toml's error, with line and column.
        #[source]
        source: toml::de::Error,
    },
    /// A price is negative or not a number.
    #[error("--prices {path}: [models.\"{model}\"] {field} = {value} is not a price; use a number >= 0 (per million tokens)")]
    BadPrice {
        /// The price file.
        path: PathBuf,
        /// The model table.
        model: String,
        /// The field.
        field: &'static str,
        /// The value given.
        value: f64,
    },
    /// The run's model has no entry.
    #[error("--prices {path} has no [models.\"{model}\"] table; add one with input = and output = (per million tokens)")]
    NoPrice {
        /// The price file.
        path: PathBuf,
        /// The model.
        model: String,
    },
}

/// Prices of one model, per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Input (prompt) tokens.
    pub input: f64,
    /// Output (completion) tokens.
    pub output: f64,
    /// Cached input tokens, when the provider bills them apart.
    #[serde(default)]
    pub cached_input: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceFile {
    #[serde(default = "default_currency")]
    currency: String,
    #[serde(default)]
    models: BTreeMap<String, ModelPrice>,
}

fn default_currency() -> String {
    "USD".to_owned()
}

/// A loaded price file.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceTable {
    /// Where it was read from.
    pub path: PathBuf,
    /// Currency of every price.
    pub currency: String,
    /// Prices by model name.
    pub models: BTreeMap<String, ModelPrice>,
}

impl PriceTable {
    /// Reads and checks a price file.
    pub fn load(path: &Path) -> Result<Self, PriceError> {
        let text = std::fs::read_to_string(path).map_err(|source| PriceError::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Parses the text of a price file (`path` names it in errors).
    pub fn parse(text: &str, path: &Path) -> Result<Self, PriceError> {
        let file: PriceFile = toml::from_str(text).map_err(|source| PriceError::Parse {
            path: path.to_owned(),
            source,
        })?;
        for (model, p) in &file.models {
            let fields = [
                ("input", Some(p.input)),
                ("output", Some(p.output)),
                ("cached_input", p.cached_input),
            ];
            for (field, value) in fields {
                if let Some(value) = value.filter(|v| !v.is_finite() || *v < 0.0) {
                    return Err(PriceError::BadPrice {
                        path: path.to_owned(),
                        model: model.clone(),
                        field,
                        value,
                    });
                }
            }
        }
        Ok(PriceTable {
            path: path.to_owned(),
            currency: file.currency,
            models: file.models,
        })
    }

    /// The prices of a model given as the run spells it; `openai:NAME` also matches an
    /// entry for plain `NAME`.
    pub fn price_for(&self, model: &str) -> Option<&ModelPrice> {
        self.models.get(model).or_else(|| {
            model
                .strip_prefix("openai:")
                .and_then(|bare| self.models.get(bare))
        })
    }

    /// Like [`PriceTable::price_for`], an error naming the missing table.
    pub fn require(&self, model: &str) -> Result<&ModelPrice, PriceError> {
        self.price_for(model).ok_or_else(|| PriceError::NoPrice {
            path: self.path.clone(),
            model: model.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_models_and_defaults_the_currency() {
        let t = PriceTable::parse(
            "[models.\"openai:gpt-x\"]\ninput = 1.25\noutput = 10\n[models.other]\ninput = 0\noutput = 0.5\ncached_input = 0.1\n",
            Path::new("p.toml"),
        )
        .unwrap();
        assert_eq!(t.currency, "USD");
        assert_eq!(t.price_for("openai:gpt-x").unwrap().output, 10.0);
        assert_eq!(t.price_for("openai:other").unwrap().cached_input, Some(0.1));
        assert!(t.price_for("sim:comply").is_none());
        let err = t.require("sim:comply").unwrap_err().to_string();
        assert!(err.contains("[models.\"sim:comply\"]"), "{err}");
    }

    #[test]
    fn a_negative_price_or_a_typo_is_an_error_naming_it() {
        let err = PriceTable::parse("[models.m]\ninput = -1\noutput = 1\n", Path::new("p.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("input = -1"), "{err}");
        let err = PriceTable::parse("[models.m]\ninptu = 1\noutput = 1\n", Path::new("p.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("p.toml") && err.contains("inptu"), "{err}");
    }
}
