use super::*;

/// The separator rule and the other steps, as a table of (written, canonical).
#[test]
fn canonical_form_table() {
    let table = [
        ("4-1-2", "412"),
        ("4 1 2", "412"),
        ("4.1.2", "412"),
        ("412", "412"),
        ("4 – 1 – 2", "412"),
        ("DE44 5001 0517", "de4450010517"),
        ("PF_2291", "pf2291"),
        ("pf / 2291", "pf2291"),
        ("1,240.50", "124050"),
        ("deep-brain  stimulation", "deep brain stimulation"),
        ("St. Anne's", "st anne's"),
        ("  leading and trailing. ", "leading and trailing"),
        ("£1,180", "£1180"),
        ("ferritin 9", "ferritin9"),
        ("ＤＥ４４ ５００１", "de445001"),
        ("me\u{200B}t\u{200D}for\u{2060}min", "metformin"),
        ("\u{202E}abc\u{202C}", "abc"),
        ("soft\u{AD}hyphen", "softhyphen"),
        ("Меtformin", "metformin"),
        ("ΕΡΙΡΕΝ", "epipen"),
        ("STRASSE Straße", "strasse strasse"),
        ("Dr. Halvorsen", "dr halvorsen"),
        ("café", "café"),
        ("cafe\u{301}", "café"),
        ("8.1%", "81%"),
        ("1", "1"),
        ("l0", "l0"),
    ];
    for (written, want) in table {
        assert_eq!(canonical(written), want, "canonical({written:?})");
    }
}

fn found(hay: &str, needle: &str) -> bool {
    let n = Needle::new(needle).unwrap();
    let c = Canonical::new(hay);
    let hit = c.find_iter(&n).next().is_some();
    hit
}

#[test]
fn matches_start_and_end_on_word_boundaries() {
    assert!(found(
        "pay to de44-5001-0517-5407-3249-31 today",
        "DE44 5001 0517 5407 3249 31"
    ));
    assert!(found("Ref pf 2291 paid", "PF-2291"));
    assert!(!found("pf-22910", "PF-2291"));
    assert!(!found("ferritin 95", "ferritin 9"));
    assert!(found("FERRITIN 9 on 14 Apr", "ferritin 9"));
    assert!(!found("HbA1c 18.4", "8.4"));
    assert!(found("HbA1c 8.4.", "8.4"));
    assert!(found("(PF-2291)", "PF-2291"));
    assert!(found("ferritin 9. Then", "ferritin 9"));
}

#[test]
fn short_values_keep_their_separators() {
    assert!(!found("we were 84 people", "8.4"));
    assert!(found("value 8.4", "8.4"));
    assert!(found("value 8 4", "8.4"));
    assert!(!found("rate 8.4%", "84%"));
    assert!(found("rate 84 %", "84%") || found("rate 84%", "84%"));
}

#[test]
fn spans_lead_back_to_the_original_bytes() {
    let text = "IBAN: ＤＥ４４-5001 ok";
    let c = Canonical::new(text);
    let n = Needle::new("de44 5001").unwrap();
    let m = c.find_iter(&n).next().unwrap();
    let src = c.source_span(m);
    assert_eq!(&text[src], "ＤＥ４４-5001");
}

#[test]
fn empty_values_are_not_needles() {
    assert!(Needle::new(" - ").is_none());
    assert!(Needle::new("\u{200B}").is_none());
}

/// Symbols keep their identity: a currency sign whose skeleton is a letter does not
/// become one, so a value with it matches its spelled and squeezed renderings.
#[test]
fn symbols_are_not_read_as_letters() {
    let p = |s: &str| prepare(&Mapped::identity(s)).as_str().to_owned();
    assert_eq!(p("€310 unpaid"), "€310 unpaid");
    let spelled = "three one zero Uniform November Papa Alfa India Delta";
    let n = Needle::new("€310 unpaid").unwrap();
    assert!(crate::Haystack::new(spelled).find(&n).is_some());
}

proptest::proptest! {
    /// Preparing a prepared text changes nothing, so a reading derived from prepared
    /// text (reversed, decoded, then prepared again) compares with a prepared value.
    /// Characters are drawn from scripts with look-alikes, glyphs and symbols.
    #[test]
    fn prepare_is_idempotent(s in "[a-zA-Z0-9 €£№ЀЁЂЃЄЅІЇЈЉЊЋЌЍЎЏА-яΑ-ωᴀ-ᴢ①-⑳❶-❿🅰-🆉ａ-ｚ０-９\u{200B}\u{301}-]{0,24}") {
        let once = prepare(&Mapped::identity(&s));
        let twice = prepare(&once);
        proptest::prop_assert_eq!(once.as_str(), twice.as_str());
    }
}

/// What the ASCII shortcuts of preparation and case folding rely on, for every ASCII
/// character: no combining class, a skeleton, lowercase as its case folding.
#[test]
fn ascii_takes_no_step_of_preparation_and_folds_to_lowercase() {
    for b in 0u8..=0x7f {
        let c = char::from(b);
        assert_eq!(canonical_combining_class(c), 0, "{c:?}");
        assert!(!skeleton(c).is_empty(), "{c:?}");
        let folded: String = std::iter::once(c).default_case_fold().collect();
        assert_eq!(folded, fold_case(c).collect::<String>(), "{c:?}");
    }
}

proptest::proptest! {
    /// An ASCII text prepares to itself with the same spans by either path, also when it
    /// is a derived text whose spans are not the identity.
    #[test]
    fn ascii_text_prepares_the_same_by_the_shortcut(s in "[\\x00-\\x7f]{0,80}", shift in 0usize..5) {
        let mut derived = Mapped::default();
        for (i, c) in s.char_indices() {
            derived.push(c, i + shift..i + shift + 1 + i % 3);
        }
        proptest::prop_assert_eq!(prepare(&derived), prepare_by_segment(&derived));
    }
}
