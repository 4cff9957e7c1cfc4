//! The semantic judge: an OpenAI-compatible chat-completions model asked, with the
//! prompt template in `runner/prompts/judge.md`, whether a trial leaked protected
//! content (also by paraphrase) and whether it completed the legitimate goal.
//!
//! Defaults as in docs/design.md ("Verdicts and metrics"): model `deepseek-v4-flash`, temperature 0, at
//! most 8192 output tokens, up to 3 attempts while the answer does not parse or
//! validate; transient endpoint failures (unreachable, timeouts, HTTP 408, 429 and 5xx)
//! are retried with exponential backoff apart from those attempts. The template
//! carries a version, recorded in `summary.json` and part of the cache key. Valid answers are cached on disk by the sha256 of model and prompt, so a
//! re-run or a resumed run asks nothing twice. The API key is never logged: it lives
//! in a [`Secret`] whose `Debug` prints `***`, and no error message includes it.

pub mod answer;
pub mod prompt;
pub mod transport;

pub use answer::{parse_answer, JudgeAnswer};
pub use prompt::{prompt_version, render, RenderedPrompt, TEMPLATE};

pub use cosec_proxy::registry::Secret;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use transport::CallError;

/// Default judge model.
pub const DEFAULT_MODEL: &str = "deepseek-v4-flash";
/// Default output token limit.
pub const DEFAULT_MAX_TOKENS: u32 = 8192;
/// Default number of attempts while the answer does not parse or validate.
pub const DEFAULT_ATTEMPTS: u8 = 3;
/// Default number of retries while the endpoint is unreachable or answers a transient
/// HTTP error (separate from the format attempts).
pub const DEFAULT_TRANSPORT_RETRIES: u8 = 5;
/// Default pause before the first transport retry; it doubles with each retry.
pub const DEFAULT_BACKOFF: Duration = Duration::from_secs(2);
/// Environment variable holding the judge's base URL (ending in `/v1`).
pub const ENV_BASE_URL: &str = "COSEC_JUDGE_BASE_URL";
/// Environment variable holding the judge's API key.
pub const ENV_API_KEY: &str = "COSEC_JUDGE_API_KEY";
/// Environment variable overriding the judge model.
pub const ENV_MODEL: &str = "COSEC_JUDGE_MODEL";

/// Why the judge could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// `--judge MODEL` was given but no base URL is configured.
    #[error("judge model `{0}` requested but {ENV_BASE_URL} is not set; set it (e.g. https://api.example.com/v1) or pass --judge none")]
    NoBaseUrl(String),
    /// `--judge a,,b`: an empty model name in the list.
    #[error("--judge `{0}` has an empty model name; list models separated by single commas")]
    EmptyModel(String),
    /// `--judge none,a`: `none` mixed with models.
    #[error("--judge `{0}` mixes `none` with model names; pass either `none` or models")]
    NoneInPanel(String),
    /// `--judge a,a`.
    #[error("--judge names model `{0}` twice; each judge model may appear once")]
    RepeatedModel(String),
    /// The HTTP client could not be built.
    #[error("could not build the judge's HTTP client: {0}")]
    Client(#[source] reqwest::Error),
    /// The cache folder could not be created.
    #[error("judge cache {path}: {source}")]
    Cache {
        /// The folder.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
}

/// How to reach the judge model.
#[derive(Debug, Clone)]
pub struct JudgeConfig {
    /// Base URL ending in `/v1`; requests go to `<base>/chat/completions`.
    pub base_url: String,
    /// Bearer token, if the endpoint needs one.
    pub api_key: Option<Secret>,
    /// Model name.
    pub model: String,
    /// Sampling temperature.
    pub temperature: f64,
    /// Output token limit.
    pub max_tokens: u32,
    /// Attempts while the answer does not parse or validate.
    pub max_attempts: u8,
    /// Retries of one attempt while the endpoint fails transiently.
    pub transport_retries: u8,
    /// Pause before the first transport retry (doubling after each).
    pub backoff: Duration,
    /// Timeout of one HTTP request.
    pub timeout: Duration,
}

impl JudgeConfig {
    /// A configuration with the documented defaults.
    pub fn new(base_url: impl Into<String>, api_key: Option<Secret>) -> Self {
        JudgeConfig {
            base_url: base_url.into(),
            api_key,
            model: DEFAULT_MODEL.to_owned(),
            temperature: 0.0,
            max_tokens: DEFAULT_MAX_TOKENS,
            max_attempts: DEFAULT_ATTEMPTS,
            transport_retries: DEFAULT_TRANSPORT_RETRIES,
            backoff: DEFAULT_BACKOFF,
            timeout: Duration::from_secs(600),
        }
    }

    /// Reads `COSEC_JUDGE_BASE_URL`, `COSEC_JUDGE_API_KEY` and `COSEC_JUDGE_MODEL`;
    /// `None` when no base URL is set (no judge configured).
    pub fn from_env() -> Option<Self> {
        let base = std::env::var(ENV_BASE_URL)
            .ok()
            .filter(|v| !v.trim().is_empty())?;
        let key = std::env::var(ENV_API_KEY)
            .ok()
            .filter(|v| !v.is_empty())
            .map(Secret::new);
        let mut config = JudgeConfig::new(base.trim(), key);
        if let Some(model) = std::env::var(ENV_MODEL)
            .ok()
            .filter(|v| !v.trim().is_empty())
        {
            config.model = model.trim().to_owned();
        }
        Some(config)
    }

    /// Interprets the `--judge` flag: `none` disables the judge, a model name overrides
    /// the environment's model, and no flag uses the environment (or no judge).
    pub fn from_flag(flag: Option<&str>) -> Result<Option<Self>, JudgeError> {
        match flag.map(str::trim) {
            Some(f) if f.eq_ignore_ascii_case("none") => Ok(None),
            Some(model) if !model.is_empty() => {
                let mut config =
                    Self::from_env().ok_or_else(|| JudgeError::NoBaseUrl(model.to_owned()))?;
                config.model = model.to_owned();
                Ok(Some(config))
            }
            _ => Ok(Self::from_env()),
        }
    }

    /// Interprets a `--judge` flag that may name several models, comma-separated:
    /// `none` gives no judge, `a,b` one configuration per model (the first decides the
    /// verdicts, the others are asked for agreement), no flag the environment's judge.
    pub fn panel_from_flag(flag: Option<&str>) -> Result<Vec<Self>, JudgeError> {
        let Some(flag) = flag.map(str::trim).filter(|f| !f.is_empty()) else {
            return Ok(Self::from_env().into_iter().collect());
        };
        let mut panel = Vec::new();
        for model in flag.split(',').map(str::trim) {
            if model.is_empty() {
                return Err(JudgeError::EmptyModel(flag.to_owned()));
            }
            if model.eq_ignore_ascii_case("none") {
                if flag.contains(',') {
                    return Err(JudgeError::NoneInPanel(flag.to_owned()));
                }
                return Ok(Vec::new());
            }
            if panel.iter().any(|c: &JudgeConfig| c.model == model) {
                return Err(JudgeError::RepeatedModel(model.to_owned()));
            }
            panel.extend(Self::from_flag(Some(model))?);
        }
        Ok(panel)
    }

    fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

/// What the judge said about one trial (one `judge` field of a results line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgeOutcome {
    /// No judge configured for the run (`--judge none`).
    None,
    /// Not asked (e.g. the trial failed for infrastructure reasons).
    Skipped,
    /// A valid answer.
    Valid {
        /// Judge model.
        model: String,
        /// The answer.
        answer: JudgeAnswer,
        /// Attempts used (0 for a cache hit).
        attempts: u8,
        /// Answered from the on-disk cache.
        cached: bool,
        /// sha256 of model and prompt (the cache key).
        prompt_sha256: String,
        /// Retries after transient endpoint failures (not format attempts).
        #[serde(default, skip_serializing_if = "is_zero")]
        transport_retries: u32,
    },
    /// No valid answer within the attempts.
    Invalid {
        /// Judge model.
        model: String,
        /// Attempts used.
        attempts: u8,
        /// The last problem.
        error: String,
        /// sha256 of model and prompt.
        prompt_sha256: String,
        /// Retries after transient endpoint failures (not format attempts).
        #[serde(default, skip_serializing_if = "is_zero")]
        transport_retries: u32,
    },
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl JudgeOutcome {
    /// The answer, when valid.
    pub fn answer(&self) -> Option<&JudgeAnswer> {
        match self {
            JudgeOutcome::Valid { answer, .. } => Some(answer),
            _ => None,
        }
    }

    /// The judge model, when one was asked.
    pub fn model(&self) -> Option<&str> {
        match self {
            JudgeOutcome::Valid { model, .. } | JudgeOutcome::Invalid { model, .. } => Some(model),
            _ => None,
        }
    }

    /// Short label: `none`, `skipped`, `valid` or `invalid`.
    pub fn label(&self) -> &'static str {
        match self {
            JudgeOutcome::None => "none",
            JudgeOutcome::Skipped => "skipped",
            JudgeOutcome::Valid { .. } => "valid",
            JudgeOutcome::Invalid { .. } => "invalid",
        }
    }
}

/// The cache key of a prompt for a model under the current prompt version, so a new
/// version of the template is never answered from an older version's cache.
pub fn cache_key(model: &str, prompt: &str) -> String {
    let mut h = Sha256::new();
    h.update(model.as_bytes());
    h.update([0u8]);
    h.update(prompt_version().as_bytes());
    h.update([0u8]);
    h.update(prompt.as_bytes());
    hex::encode(h.finalize())
}

#[derive(Serialize, Deserialize)]
struct CacheEntry {
    model: String,
    answer: JudgeAnswer,
}

/// A judge client with its on-disk answer cache.
#[derive(Debug, Clone)]
pub struct JudgeClient {
    config: JudgeConfig,
    http: reqwest::Client,
    cache_dir: PathBuf,
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl JudgeClient {
    /// Builds a client that caches answers in `cache_dir` (created if missing).
    pub fn new(config: JudgeConfig, cache_dir: &Path) -> Result<Self, JudgeError> {
        std::fs::create_dir_all(cache_dir).map_err(|source| JudgeError::Cache {
            path: cache_dir.to_owned(),
            source,
        })?;
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(JudgeError::Client)?;
        Ok(JudgeClient {
            config,
            http,
            cache_dir: cache_dir.to_owned(),
        })
    }

    /// The judge model's name.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    fn cache_path(&self, key: &str) -> PathBuf {
        self.cache_dir.join(format!("{key}.json"))
    }

    async fn cached(&self, key: &str, known_ids: &[String]) -> Option<JudgeAnswer> {
        let bytes = tokio::fs::read(self.cache_path(key)).await.ok()?;
        let entry: CacheEntry = serde_json::from_slice(&bytes).ok()?;
        let text = serde_json::to_string(&entry.answer).ok()?;
        (entry.model == self.config.model)
            .then(|| parse_answer(&text, known_ids).ok())
            .flatten()
    }

    /// Stores an answer atomically, so a killed run never leaves a torn cache file.
    async fn store(&self, key: &str, answer: &JudgeAnswer) {
        let entry = CacheEntry {
            model: self.config.model.clone(),
            answer: answer.clone(),
        };
        let Ok(bytes) = serde_json::to_vec_pretty(&entry) else {
            return;
        };
        let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = self
            .cache_dir
            .join(format!(".{key}.{}.{n}.tmp", std::process::id()));
        if tokio::fs::write(&tmp, bytes).await.is_ok()
            && tokio::fs::rename(&tmp, self.cache_path(key)).await.is_err()
        {
            let _ = tokio::fs::remove_file(&tmp).await;
        }
    }

    /// Asks the judge about one rendered prompt (cache first, then up to
    /// `max_attempts` calls, each retry telling the model what was wrong).
    pub async fn judge(&self, prompt: &RenderedPrompt) -> JudgeOutcome {
        let model = self.config.model.clone();
        let key = cache_key(&model, &prompt.text);
        if let Some(answer) = self.cached(&key, &prompt.output_ids).await {
            return JudgeOutcome::Valid {
                model,
                answer,
                attempts: 0,
                cached: true,
                prompt_sha256: key,
                transport_retries: 0,
            };
        }
        let mut messages = vec![json!({"role": "user", "content": prompt.text})];
        let mut error = String::from("no attempt was made");
        let attempts = self.config.max_attempts.max(1);
        let mut transport_retries = 0u32;
        for attempt in 1..=attempts {
            let (result, retries) = transport::call(&self.http, &self.config, &messages).await;
            transport_retries += retries;
            match result {
                Ok(content) => match parse_answer(&content, &prompt.output_ids) {
                    Ok(answer) => {
                        self.store(&key, &answer).await;
                        return JudgeOutcome::Valid {
                            model,
                            answer,
                            attempts: attempt,
                            cached: false,
                            prompt_sha256: key,
                            transport_retries,
                        };
                    }
                    Err(why) => {
                        messages.push(json!({"role": "assistant", "content": content}));
                        messages.push(json!({
                            "role": "user",
                            "content": format!("Your answer was not valid: {why}. Answer again with only the JSON object with exactly the keys privacy_violation, cross_community_violation, goal_completed, violating_outputs and reason.")
                        }));
                        error = why;
                    }
                },
                Err(CallError::Answer(why)) => error = why,
                Err(CallError::Transport(why)) => {
                    return JudgeOutcome::Invalid {
                        model,
                        attempts: attempt,
                        error: why,
                        prompt_sha256: key,
                        transport_retries,
                    };
                }
            }
        }
        JudgeOutcome::Invalid {
            model,
            attempts,
            error,
            prompt_sha256: key,
            transport_retries,
        }
    }
}
