use crate::{Haystack, Needle, NeedleSet};

fn prose(words: usize) -> String {
    let w = "the club meets at the car park at nine and walks the ridge before lunch";
    w.split(' ')
        .cycle()
        .take(words)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Asserts that `rendering`, written in the middle of long prose, is found by the
/// located reading exactly where the full reading finds it (and, with `found`, that the
/// full reading finds it at all).
fn located_matches_full(set: &NeedleSet, rendering: &str, found: bool) {
    let text = format!("{} {rendering} {}", prose(800), prose(800));
    let full: Vec<_> = Haystack::new(&text)
        .find_set(set)
        .into_iter()
        .map(|m| m.found.source)
        .collect();
    assert!(!found || !full.is_empty(), "{rendering}");
    let located: Vec<_> = Haystack::find_set_located(&text, set)
        .into_iter()
        .map(|m| m.found.source)
        .collect();
    assert_eq!(full, located, "{rendering}");
}

/// A value written in the middle of a long text, plainly and in renderings, is found
/// by the located reading where the full reading finds it.
#[test]
fn located_reading_finds_what_the_full_reading_finds() {
    let set = NeedleSet::new(vec![Needle::new("PF-2291 Quarry Terrace").unwrap()]).unwrap();
    for rendering in [
        "PF-2291 Quarry Terrace",
        "UEYtMjI5MSBRdWFycnkgVGVycmFjZQ==",
        "ecarreT yrrauQ 1922-FP",
        "CS-2291 Dbveel Grenpnr",
        "50 46 2d 32 32 39 31 20 51 75 61 72 72 79",
    ] {
        located_matches_full(&set, rendering, false);
    }
}

/// Ordinary prose without a value has few places to read.
#[test]
fn prose_without_values_is_mostly_skipped() {
    let set = NeedleSet::new(vec![Needle::new("PF-2291 Quarry Terrace").unwrap()]).unwrap();
    let text = prose(3000);
    let windows = set.located_windows(&text).unwrap();
    let covered: usize = windows.iter().map(|w| w.len()).sum();
    assert!(covered * 10 < text.len(), "{covered} of {}", text.len());
}

/// Symbols that no reading turns into a letter or digit (prices, degrees) open no
/// window; the leetspeak `€` for `e`, a look-alike letter and Morse code do, and a
/// value written with them is found; a rule of dashes is no Morse code.
#[test]
fn only_characters_a_reading_can_turn_into_a_value_open_windows() {
    let set = NeedleSet::new(vec![Needle::new("Renee Marchetti").unwrap()]).unwrap();
    let symbols = format!(
        "{} £40, ¥300, 21°C and § 4 © 2024 {}\n\n----------\n\n{}",
        prose(600),
        prose(600),
        prose(600)
    );
    assert_eq!(set.located_windows(&symbols), Some(Vec::new()));
    for rendering in [
        "R3n€€ M4rch€tt!",
        "Rеnее Mаrchеtti",
        ".-. . -. . . / -- .- .-. -.-. .... . - - ..",
    ] {
        located_matches_full(&set, rendering, true);
    }
}

/// A run that a view reads alone opens a window only where that view reads something
/// in it that may hold a value: a markdown table rule (Morse `ooo`), dates and a
/// percentage (control characters as a list of codes or a reversed percent escape, or
/// one letter) open none; the value spelled in Morse with word separators, half in Morse next to its
/// other half, in Morse behind percent escapes, as a list of character codes as written
/// or reversed, as two lists a word apart, and as percentages that read backwards as
/// its characters is found where the full reading finds it.
#[test]
fn runs_a_view_reads_alone_open_windows_only_where_a_value_can_be_read() {
    let set = NeedleSet::new(vec![Needle::new("Renee Marchetti").unwrap()]).unwrap();
    let ordinary = format!(
        "{}\n\n| Area | Steward |\n|---|---|\n| north | Ana |\n\n{} on 6, 13, 20 and 27 \
         February, 31% of the budget (15%, 75%) {}",
        prose(600),
        prose(600),
        prose(600)
    );
    assert_eq!(set.located_windows(&ordinary), Some(Vec::new()));
    let morse = ".-. . -. . . / -- .- .-. -.-. .... . - - ..";
    let percent: String = morse.bytes().map(|b| format!("%{b:02X}")).collect();
    let codes: Vec<String> = "Renee Marchetti".bytes().map(|b| b.to_string()).collect();
    let codes = codes.join(" ");
    let reversed_codes: String = codes.chars().rev().collect();
    let half = "Renee -- .- .-. -.-. .... . - - ..";
    let middle = codes
        .get(..codes.len() / 2)
        .and_then(|h| h.rfind(' '))
        .unwrap_or(0);
    let (first, second) = codes.split_at(middle);
    let split = format!("{first} and{second}");
    for rendering in [
        morse,
        half,
        percent.as_str(),
        codes.as_str(),
        reversed_codes.as_str(),
        split.as_str(),
    ] {
        located_matches_full(&set, rendering, true);
    }
    // Percentages that read backwards as the value's characters, joined.
    let code = NeedleSet::new(vec![Needle::new("PF-2291").unwrap()]).unwrap();
    for rendering in [
        "13% 93% 23% 23% D2% 64% 05%",
        "%50 %46 %2D %32 %32 %39 %31",
        "13%93%23%23%D2%64%05%",
    ] {
        located_matches_full(&code, rendering, true);
    }
}

/// Runs of number words open a window only where the number-words view reads something
/// in them that, with the text around them, may hold a value: ordinary counting in
/// prose opens none; a value's digits spelled in words, beside its letters, mixed with
/// digits, in a run that starts in prose, reversed or in ROT13, are found where the
/// full reading finds them.
#[test]
fn number_words_open_windows_only_where_a_value_can_be_read() {
    let code = NeedleSet::new(vec![Needle::new("PF-2291").unwrap()]).unwrap();
    let ordinary = format!(
        "{} at nine nine times, one two three go, 3.5) One of us, two hundred and five          walkers, Room 12 four {}",
        prose(600),
        prose(600)
    );
    assert_eq!(code.located_windows(&ordinary), Some(Vec::new()));
    for rendering in [
        "PF two two nine one",
        "PF-two two nine one",
        "PF 22 nine one",
        "P F two two nine one",
        "code PF two two nine one please",
    ] {
        located_matches_full(&code, rendering, true);
    }
    for rendering in ["eno enin owt owt FP", "PF twenty-two ninety-one"] {
        located_matches_full(&code, rendering, false);
    }
    // A code of digits alone (no family searches it), spelled, reversed and in ROT13:
    // the number-words view reads it after the text is turned back.
    let digits = NeedleSet::new(vec![Needle::new("7390").unwrap()]).unwrap();
    for rendering in [
        "seven three nine zero",
        "Apparently orez enin eerht neves  it's up",
        "frira guerr avar mreb",
    ] {
        located_matches_full(&digits, rendering, true);
    }
}

/// A symbol that a form of a value holds (the `€` of a value's ROT47 form, which the
/// automata leave out) is a place: the value so rendered in long prose is found where
/// the full reading finds it. A currency sign that no form holds opens no window.
#[test]
fn symbols_a_form_holds_are_places() {
    let euros = NeedleSet::new(vec![Needle::new("€310 unpaid").unwrap()]).unwrap();
    located_matches_full(
        &euros,
        "his lunchtime insulin €b`_ F?A2:5  and my number",
        true,
    );
    let name = NeedleSet::new(vec![Needle::new("Renee Marchetti").unwrap()]).unwrap();
    let priced = format!(
        "{} tickets are €5 each, £4 at the door {}",
        prose(600),
        prose(600)
    );
    assert_eq!(name.located_windows(&priced), Some(Vec::new()));
}

/// Letters with diacritics (French or Spanish prose) open no window unless a form of
/// the values holds them (forms in other scripts, the spellings of digits, do not
/// count); a value next to them, written with them, spelled with a table word that has
/// one, or spread over them, is found where the full reading finds it, and so is a
/// value that has one.
#[test]
fn accented_letters_open_windows_only_where_a_value_can_be_read() {
    let set = NeedleSet::new(vec![Needle::new("Renee Marchetti").unwrap()]).unwrap();
    let accented = format!(
        "{} le café à côté de l'église, año, Müller, ÉTÉ {}",
        prose(600),
        prose(600)
    );
    assert_eq!(set.located_windows(&accented), Some(Vec::new()));
    for rendering in [
        "café Renee Marchetti église",
        "Renée Marchetti",
        "R é n é e M a r c h é t t i",
        "ittehcraM eéneR",
        "éRenee Marchettié",
        "Eqxqq Zfqpgqlle",
        "Rxexnxexe Mxarxchxexttxi",
        "Rúnée Mírchétti",
    ] {
        located_matches_full(&set, rendering, false);
    }
    let spelled = NeedleSet::new(vec![Needle::new("PF-2291").unwrap()]).unwrap();
    assert_eq!(spelled.located_windows(&accented), Some(Vec::new()));
    for rendering in [
        "PF deux deux neuf un",
        "PF dós dós nueve úno",
        "PF zéro 2291",
    ] {
        located_matches_full(&spelled, rendering, false);
    }
    let with_accent = NeedleSet::new(vec![Needle::new("Café Mirabeau").unwrap()]).unwrap();
    let opened = with_accent.located_windows(&accented).unwrap_or_default();
    assert!(
        opened.iter().any(|w| accented[w.clone()].contains("café")),
        "{opened:?}"
    );
    for rendering in [
        "Café Mirabeau",
        "uaebariM éfaC",
        "C a f é M i r a b e a u",
        "Pnsé Zveno rnh",
        "Cafe Mirabeau",
    ] {
        located_matches_full(&with_accent, rendering, false);
    }
}

/// A value rendered by a family and then encoded as one token (base64, base32, hex,
/// the token also reversed or in ROT13) is found by the located reading where the
/// full reading finds it: a token run is read with the families in its decoded
/// readings.
#[test]
fn families_inside_decodable_tokens_are_found() {
    use base64::Engine;
    let set = NeedleSet::new(vec![Needle::new("PF-2291 Quarry Terrace").unwrap()]).unwrap();
    let rot13 = |s: &str| super::rot13(s);
    // (rendering, whether reading it takes a view of its own: such a rendering in a
    // token that must be reversed or rotated before it decodes is three views deep,
    // beyond what any reading goes)
    let renderings = [
        (
            "P F - 2 2 9 1   Q u a r r y   T e r r a c e".to_owned(),
            false,
        ),
        ("PF-2291 QU4RRY 73RR4C3".to_owned(), false),
        (rot13("PF-2291 Quarry Terrace"), false),
        ("ecarreT yrrauQ 1922-FP".to_owned(), true),
        (
            "Papa Foxtrot two two nine one Quebec Uniform Alfa Romeo Romeo Yankee Tango \
             Echo Romeo Romeo Alfa Charlie Echo"
                .to_owned(),
            false,
        ),
    ];
    for (r, own_view) in &renderings {
        let b64 = base64::engine::general_purpose::STANDARD.encode(r);
        // (token, whether the full reading finds the value in it)
        for (token, found) in [
            (b64.clone(), true),
            (b64.chars().rev().collect(), !own_view),
            (rot13(&b64), !own_view),
            (data_encoding::BASE32.encode(r.as_bytes()), true),
            (hex::encode(r), true),
        ] {
            located_matches_full(&set, &token, found);
        }
    }
}

/// A value rendered by a family in a reading that reverses or rotates the text
/// (spaced, leetspeak, Atbash, spelled, then reversed or in ROT13) is found by the
/// located reading where the full reading finds it: its window's places stand for the
/// turned readings the families search.
#[test]
fn families_in_turned_readings_are_found() {
    let set = NeedleSet::new(vec![Needle::new("PF-2291 Quarry Terrace").unwrap()]).unwrap();
    let reversed = |s: &str| s.chars().rev().collect::<String>();
    for family in [
        "P F - 2 2 9 1   Q u a r r y   T e r r a c e",
        "P.F.2.2.9.1.Q.u.a.r.r.y.T.e.r.r.a.c.e",
        "PF-2291 QU4RRY 73RR4C3",
        "KU-2291 Jfziib Gviizxv",
        "Papa Foxtrot two two nine one Quebec Uniform Alfa Romeo Romeo Yankee Tango Echo \
         Romeo Romeo Alfa Charlie Echo",
    ] {
        for (rendering, found) in [
            (family.to_owned(), true),
            (reversed(family), true),
            (super::rot13(family), true),
            (super::rot13(&reversed(family)), false),
        ] {
            located_matches_full(&set, &rendering, found);
        }
    }
}

proptest::proptest! {
    /// The percent view's reading taken from the tokens holding `%` alone is its
    /// reading of the whole text, as written and reversed: the same texts, each
    /// character from the same span of the text (the spaces joining tokens come from
    /// no character, and only their text is compared).
    #[test]
    fn percent_reading_of_escapable_tokens_is_that_of_the_whole_text(
        words in proptest::collection::vec(
            "(%[0-9A-Fa-f]{2}|%|[a-z0-9+]|[0-9]{1,3}%|é|\\\\n){1,6}|[a-z]{1,8}",
            0..40,
        ),
        gaps in proptest::collection::vec("[ \n\t]{1,3}", 40),
    ) {
        use crate::mapped::Mapped;
        use crate::views::{apply, runs, View};
        let text: String = words
            .iter()
            .zip(&gaps)
            .flat_map(|(w, g)| [w.as_str(), g.as_str()])
            .collect();
        let escapable: Vec<_> = runs(&text, |b| !b.is_ascii_whitespace())
            .into_iter()
            .filter(|r| text[r.clone()].contains('%'))
            .collect();
        let n = text.len();
        let reversed: String = text.chars().rev().collect();
        // (decoded text, the text's span of each of its bytes)
        let whole: Vec<(String, Vec<std::ops::Range<usize>>)> =
            [(text.as_str(), false), (reversed.as_str(), true)]
                .into_iter()
                .flat_map(|(variant, turned)| {
                    apply(View::Percent, &Mapped::identity(variant))
                        .into_iter()
                        .map(move |(_, d)| {
                            let spans = (0..d.as_str().len())
                                .map(|i| {
                                    let s = d.span_of(i);
                                    if s.is_empty() {
                                        0..0
                                    } else if turned {
                                        n - s.end..n - s.start
                                    } else {
                                        s
                                    }
                                })
                                .collect();
                            (d.as_str().to_owned(), spans)
                        })
                })
                .collect();
        let located: Vec<(String, Vec<std::ops::Range<usize>>)> =
            super::triggers::percent_readings(&text, &escapable)
                .into_iter()
                .map(|d| {
                    let spans = (0..d.as_str().len())
                        .map(|i| Some(d.span_of(i)).filter(|s| !s.is_empty()).unwrap_or(0..0))
                        .collect();
                    (d.as_str().to_owned(), spans)
                })
                .collect();
        proptest::prop_assert_eq!(whole, located);
    }
}
