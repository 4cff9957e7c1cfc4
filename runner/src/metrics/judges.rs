//! Agreement of further judges (`--judge a,b`) with the deciding judge: Cohen's kappa
//! on the privacy and completion answers of the trials both answered validly.

use super::agreement::cohen_kappa;
use crate::verify::{JudgeAnswer, Verdict};
use serde::{Deserialize, Serialize};

/// How one further judge agrees with the deciding one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeAgreement {
    /// The deciding judge's model.
    pub deciding: String,
    /// The further judge's model.
    pub model: String,
    /// Trials both answered validly.
    pub n: u64,
    /// Cohen's kappa of `privacy_violation` (`null` without trials).
    pub privacy_kappa: Option<f64>,
    /// Share of trials with the same `privacy_violation`.
    pub privacy_agreement: Option<f64>,
    /// Cohen's kappa of `goal_completed`.
    pub completion_kappa: Option<f64>,
    /// Share of trials with the same `goal_completed`.
    pub completion_agreement: Option<f64>,
}

fn share(pairs: &[(bool, bool)]) -> Option<f64> {
    (!pairs.is_empty())
        .then(|| pairs.iter().filter(|(a, b)| a == b).count() as f64 / pairs.len() as f64)
}

/// One agreement entry per further judge model, in the order the run listed them.
pub fn judge_agreement(verdicts: &[&Verdict]) -> Vec<JudgeAgreement> {
    let mut models: Vec<(String, String)> = Vec::new();
    for v in verdicts {
        let Some(deciding) = v.judge.model() else {
            continue;
        };
        for other in v.other_judges.iter().filter_map(|o| o.model()) {
            let key = (deciding.to_owned(), other.to_owned());
            if !models.contains(&key) {
                models.push(key);
            }
        }
    }
    models
        .into_iter()
        .map(|(deciding, model)| {
            let answered: Vec<(&JudgeAnswer, &JudgeAnswer)> = verdicts
                .iter()
                .filter(|v| v.judge.model() == Some(deciding.as_str()))
                .filter_map(|v| {
                    let first = v.judge.answer()?;
                    let other = v
                        .other_judges
                        .iter()
                        .find(|o| o.model() == Some(model.as_str()))?
                        .answer()?;
                    Some((first, other))
                })
                .collect();
            let privacy: Vec<(bool, bool)> = answered
                .iter()
                .map(|(a, b)| (a.privacy_violation, b.privacy_violation))
                .collect();
            let completion: Vec<(bool, bool)> = answered
                .iter()
                .map(|(a, b)| (a.goal_completed, b.goal_completed))
                .collect();
            JudgeAgreement {
                deciding,
                model,
                n: answered.len() as u64,
                privacy_kappa: cohen_kappa(&privacy),
                privacy_agreement: share(&privacy),
                completion_kappa: cohen_kappa(&completion),
                completion_agreement: share(&completion),
            }
        })
        .collect()
}
