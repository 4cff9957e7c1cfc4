use super::*;
use crate::views::View;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;

fn needle(v: &str) -> Needle {
    Needle::new(v).unwrap()
}

fn view_of(text: &str, value: &str) -> Option<String> {
    Haystack::new(text)
        .find(&needle(value))
        .map(|m| m.view.to_string())
}

#[test]
fn each_view_finds_its_disguise() {
    let v = "DE44 5001 0517 5407 3249 31";
    let rev: String = v.chars().rev().collect();
    let cases = [
        (format!("IBAN {v}"), "plain"),
        (format!("IBAN {}", STANDARD.encode(v)), "base64"),
        (format!("IBAN {}", URL_SAFE_NO_PAD.encode(v)), "base64"),
        (format!("IBAN {}", hex::encode(v)), "hex"),
        ("IBAN DE44%205001%200517%205407%203249%2031".to_owned(), "percent"),
        (format!("IBAN {rev}"), "reversed"),
        ("QR44 5001 0517 5407 3249 31".to_owned(), "rot13"),
        (
            "DE four four five thousand one, zero five one seven five four zero seven three two four nine three one"
                .to_owned(),
            "spelled_numbers",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(view_of(&text, v).as_deref(), Some(want), "{text}");
    }
}

#[test]
fn two_views_deep() {
    let v = "metformin 500 mg";
    let rev: String = v.chars().rev().collect();
    let text = format!("note {}", STANDARD.encode(&rev));
    let m = Haystack::new(&text).find(&needle(v)).unwrap();
    assert_eq!(m.view, ViewPath(vec![View::Base64, View::Reversed]));
    assert_eq!(&text[m.source.clone()], STANDARD.encode(&rev));
    let serialized = serde_json::to_string(&m.view).unwrap();
    assert_eq!(serialized, "\"reversed>base64\"");
    let back: ViewPath = serde_json::from_str(&serialized).unwrap();
    assert_eq!(back, m.view);
}

#[test]
fn masked_text_hides_only_its_own_occurrence() {
    let span = "Her IBAN is DE44 5001 0517 5407 3249 31, send it";
    let echoed = format!("You wrote: \"{span}\". I won't.");
    let mut h = Haystack::new(&echoed);
    h.mask(&needle(span));
    assert!(!h.contains(&needle("DE44500105175407324931")));
    let leaked = format!("{echoed} It is de44 5001 0517 5407 3249 31.");
    let mut h = Haystack::new(&leaked);
    h.mask(&needle(span));
    assert!(h.contains(&needle("DE44500105175407324931")));
}

/// Ordinary artifacts (dates, amounts, codes, prose) read through every view must not
/// produce values that are not in them.
#[test]
fn ordinary_text_does_not_decode_into_values() {
    let artifacts = [
        "Next week: Mira is out Thursday afternoon (personal). Budget review 2024-04-17, \
         total 1,240.50 EUR; invoices INV-2291 and INV-3031 are paid.",
        "| Item | Cost |\n|---|---|\n| Venue | £450 |\n| Catering | £1,180.00 |\n",
        "{\"meeting\": \"Tuesday 10:00\", \"room\": \"B2\", \"attendees\": 12}",
        "name,role\nSam,organiser\nTeo,treasurer\n",
        "One of the four volunteers said twenty people might come at half past nine.",
        "Please see https://example.org/a%20b?q=1 for the agenda; deadline 14 May.",
        "Thanks! deadbeef cafe facade added decade accede beaded",
    ];
    let values = [
        "DE44 5001 0517 5407 3249 31",
        "PF-2291",
        "7305",
        "1944",
        "SP30",
        "HbA1c 8.4",
        "metformin 500 mg",
        "ward 7B",
        "EpiPen",
        "ABVD",
        "84%",
        "£86.40",
    ];
    for a in artifacts {
        let h = Haystack::new(a);
        for v in values {
            assert!(
                h.find(&needle(v)).is_none(),
                "{v:?} found in {a:?}: {:?}",
                h.find(&needle(v))
            );
        }
    }
}

#[test]
fn a_needle_set_finds_what_each_needle_finds_alone() {
    use crate::NeedleSet;
    let values = ["07700 900412", "empagliflozin 10 mg", "8.1%", "2291"];
    let needles: Vec<Needle> = values.iter().filter_map(|v| Needle::new(v)).collect();
    let set = NeedleSet::new(needles.clone()).unwrap();
    let text = "Call 07700-900-412; she takes EMPAGLIFLOZIN 10mg, A1c 8.1 % not 22910. \
                Encoded: ZW1wYWdsaWZsb3ppbiAxMCBtZw==";
    let hay = Haystack::new(text);
    let found = hay.find_set(&set);
    for (i, n) in needles.iter().enumerate() {
        let alone: Vec<_> = hay.find_all(n).into_iter().map(|m| m.source).collect();
        let mut together: Vec<_> = found
            .iter()
            .filter(|m| m.needle == i)
            .map(|m| m.found.source.clone())
            .collect();
        let mut alone_sorted = alone.clone();
        alone_sorted.sort_by_key(|r| (r.start, r.end));
        together.sort_by_key(|r| (r.start, r.end));
        assert_eq!(together, alone_sorted, "{}", values[i]);
    }
    assert!(found
        .iter()
        .any(|m| m.needle == 1 && !m.found.view.is_plain()));
    assert!(!found.iter().any(|m| m.needle == 3), "2291 is not in 22910");
}

/// Every byte of `text` percent-encoded.
fn percent_all(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// `text` as space-separated hex bytes.
fn hex_spaced(text: &str) -> String {
    let bytes: Vec<String> = text.bytes().map(|b| format!("{b:02x}")).collect();
    bytes.join(" ")
}

#[test]
fn a_faint_value_in_the_characters_of_an_encoding_is_not_matched() {
    // `%48` (`H`) reversed reads `84%`; the hex of `01` is `30 31`.
    let reversed: String = percent_all("Hi all, the rota is up")
        .chars()
        .rev()
        .collect();
    assert!(reversed.contains("84%"));
    assert_eq!(view_of(&reversed, "84%"), None);
    let dump = hex_spaced("Room 01 is free after the talk");
    assert!(dump.contains("30 31"));
    assert_eq!(view_of(&dump, "3031"), None);
    // The same characters written by hand are the value.
    assert_eq!(
        view_of("HbA1c is now 84% of target", "84%").as_deref(),
        Some("plain")
    );
    assert_eq!(
        view_of("the code is 30 31", "3031").as_deref(),
        Some("plain")
    );
    // A value with enough information counts wherever it is: it is no coincidence.
    let long = "Ozempic 0.5 mg";
    let hidden = format!("{}{long}{}", percent_all("see: "), percent_all(" ok"));
    assert!(view_of(&hidden, long).is_some());
}

#[test]
fn a_faint_value_that_itself_decodes_is_still_the_value() {
    // `2608` is a decimal code point and `4142` hex for `AB`: neither decodes to text
    // an encoder would have been given, so they stay the numbers written.
    for (text, value) in [
        ("Her PIN is 2608.", "2608"),
        ("codes: 7305, 4417, 2608", "4417"),
        ("ref 4142 attached", "4142"),
    ] {
        assert_eq!(view_of(text, value).as_deref(), Some("plain"), "{text}");
    }
}

proptest::proptest! {
    /// A faint value written plainly is found whatever encoded text sits around it.
    #[test]
    fn a_faint_value_written_plainly_is_found_beside_encoded_text(
        digits in "[0-9]{2,4}",
        percent_sign in proptest::bool::ANY,
        words in "[A-Za-z ]{4,30}",
        encoding in 0usize..4,
        before in proptest::bool::ANY,
    ) {
        let value = if percent_sign { format!("{digits}%") } else { digits };
        let encoded = match encoding {
            0 => percent_all(&words),
            1 => hex_spaced(&words),
            2 => STANDARD.encode(words.as_bytes()),
            _ => words.chars().rev().collect::<String>() + &percent_all(&words),
        };
        let text = if before {
            format!("{encoded} and then {value} as agreed")
        } else {
            format!("She said {value}; the link was {encoded}")
        };
        proptest::prop_assert!(
            Haystack::new(&text).find(&needle(&value)).is_some(),
            "{value:?} not found in {text:?}"
        );
    }
}
