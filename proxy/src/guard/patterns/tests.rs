//! Which patterns `text_patterns` finds, and which ordinary words it leaves alone.

use super::*;

fn of(text: &str, kind: PatternKind) -> Vec<String> {
    text_patterns(text)
        .into_iter()
        .filter(|(_, k)| *k == kind)
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn codes_keep_their_separators_units_and_labels() {
    let c = of(
        "Ingrid's number is 07700 900412. Ref LAB-2025-0417, HbA1c 8.1% and 3.2 mmol/L, EDSS 2.5 on 2 Jan.",
        PatternKind::Code,
    );
    for want in [
        "07700 900412",
        "LAB-2025-0417",
        "8.1%",
        "3.2 mmol/L",
        "EDSS 2.5",
        "HbA1c",
    ] {
        assert!(c.contains(&want.to_owned()), "{want}: {c:?}");
    }
    let units = of(
        "pulse 96 bpm, 140 mmHg, 500 mg twice, sodium 140 mEq; stock 46 red, 30 blue",
        PatternKind::Code,
    );
    for want in ["96 bpm", "140 mmHg", "500 mg", "140 mEq"] {
        assert!(units.contains(&want.to_owned()), "{want}: {units:?}");
    }
    assert!(
        !units.iter().any(|t| t == "46 red" || t == "30 blue"),
        "a count followed by an ordinary word is not a measurement: {units:?}"
    );
    let money = of("paid €45 instead of £180, ward 7B", PatternKind::Code);
    assert!(
        money.contains(&"€45".to_owned()) && money.contains(&"£180".to_owned()),
        "{money:?}"
    );
    assert_eq!(of("ward 7B", PatternKind::ShortCode), vec!["7B".to_owned()]);
    assert!(of("ward 7B", PatternKind::Code).contains(&"ward 7B".to_owned()));
    assert!(!c.iter().any(|t| t == "2" || t == "Jan"), "{c:?}");
    let times = of(
        "Open 10:00-13:00, again at 18:30 and 9:15.",
        PatternKind::Code,
    );
    assert!(times.is_empty(), "{times:?}");
}

#[test]
fn names_are_shaped_like_names_and_ordinary_long_words_are_not() {
    let n = of(
        "Ole takes levetiracetam and an EpiPen from Keel Street Clinic. The treasurer has \
         availability in an emergency, per ABVD and Dr. Halvorsen on Monday, 45,000 EUR, \
         adjustments.",
        PatternKind::Name,
    );
    for want in [
        "levetiracetam",
        "EpiPen",
        "Keel Street Clinic",
        "ABVD",
        "Halvorsen",
        "Dr. Halvorsen",
    ] {
        assert!(n.contains(&want.to_owned()), "{want}: {n:?}");
    }
    for not in [
        "treasurer",
        "availability",
        "emergency",
        "Monday",
        "Ole",
        "The",
        "EUR",
        "adjustments",
    ] {
        assert!(!n.contains(&not.to_owned()), "{not}: {n:?}");
    }
}

#[test]
fn phrases_are_content_word_pairs() {
    let p = of(
        "She is on home oxygen, due in October, after the egg retrieval. 14 weeks; ferritin 9. \
         Her EDSS is 2.5 now.",
        PatternKind::Phrase,
    );
    for want in [
        "home oxygen",
        "due in October",
        "egg retrieval",
        "14 weeks",
        "ferritin 9",
        "EDSS is 2.5",
    ] {
        assert!(p.contains(&want.to_owned()), "{want}: {p:?}");
    }
    assert!(!p.iter().any(|x| x == "is on" || x == "after the"), "{p:?}");
    assert!(PatternKind::Code.is_strong() && !PatternKind::Phrase.is_strong());
}

#[test]
fn passages_are_long_lines_and_sentences() {
    let p = of(
        "Check-in\n- My HbA1c came back high this month. Told nobody at work yet.\nok",
        PatternKind::Passage,
    );
    assert!(
        p.contains(&"My HbA1c came back high this month. Told nobody at work yet.".to_owned()),
        "{p:?}"
    );
    assert!(
        p.contains(&"My HbA1c came back high this month.".to_owned()),
        "{p:?}"
    );
    assert!(!p.iter().any(|x| x == "Check-in" || x == "ok"), "{p:?}");
}
