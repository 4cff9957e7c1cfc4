use crate::{Haystack, Needle};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use std::io::Write;

fn label(text: &str, value: &str) -> Option<String> {
    Haystack::new(text)
        .find(&Needle::new(value).unwrap())
        .map(|m| m.view.to_string())
}

fn caesar(s: &str, k: u8) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='z' => char::from(b'a' + (c as u8 - b'a' + k) % 26),
            'A'..='Z' => char::from(b'A' + (c as u8 - b'A' + k) % 26),
            _ => c,
        })
        .collect()
}

#[test]
fn each_family_finds_its_rendering() {
    let v = "DE44 5001 0517 5407 3249 31";
    let gz = {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(format!("iban {v}").as_bytes()).unwrap();
        STANDARD.encode(e.finish().unwrap())
    };
    let entities: String = v.chars().map(|c| format!("&#{};", c as u32)).collect();
    let uescapes: String = v.chars().map(|c| format!("\\u{:04x}", c as u32)).collect();
    let spaced_hex: String = v.bytes().map(|b| format!("{b:02X} ")).collect();
    let lines: String = v
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| format!("{c}\n"))
        .collect();
    let dotted: String = v
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| format!("{c}."))
        .collect();
    let keycaps: String = "44500105175407324931"
        .chars()
        .map(|c| format!("{c}\u{FE0F}\u{20E3}"))
        .collect();
    let cases = [
        (format!("x {entities} y"), "escapes"),
        (format!("x \"{uescapes}\" y"), "escapes"),
        (format!("b32 {}", data_encoding::BASE32.encode(v.as_bytes())), "base32"),
        (format!("bytes: {spaced_hex}"), "hex"),
        (format!("shifted {}", caesar(v, 3)), "caesar(+3)"),
        (format!("spelled:\n{lines}"), "spaced"),
        (format!("dotted {dotted}"), "spaced"),
        (format!("DE {keycaps}"), "plain"),
        ("Delta Echo four four five zero zero one zero five one seven five four zero seven three two four nine three one".to_owned(), "nato"),
        ("D E quatre quatre cinq zéro zéro un zéro cinq un sept cinq quatre zéro sept trois deux quatre neuf trois un".to_owned(), "spelled(fr)"),
        (format!("payload {gz}"), "gzip>base64"),
    ];
    for (text, want) in cases {
        assert_eq!(label(&text, v).as_deref(), Some(want), "{text}");
    }
    assert_eq!(
        label("take l3v371r4c374m daily", "levetiracetam").as_deref(),
        Some("leet")
    );
    assert_eq!(
        label("Maybe Enough Time For One RoundMan In New", "metformin").as_deref(),
        None,
        "too short for initials"
    );
}

/// The ASCII shortcut of the projections' character normalisation gives what the
/// decomposing path gives, for every ASCII character.
#[test]
fn ascii_normalises_the_same_by_the_shortcut() {
    for b in 0u8..=0x7f {
        let c = char::from(b);
        let quick: String = super::project::norm(c).collect();
        let full: String = super::project::norm_decomposed(c).collect();
        assert_eq!(quick, full, "{c:?}");
    }
}
