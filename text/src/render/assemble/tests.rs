use super::*;
use base64::Engine;

fn assemble(values: &[&str], texts: &[String]) -> Vec<Option<Assembly>> {
    let needles: Vec<Needle> = values.iter().map(|v| Needle::new(v).unwrap()).collect();
    let pieces = Pieces::new(&needles);
    let held: Vec<Vec<Held>> = texts
        .iter()
        .map(|t| pieces.held(&Haystack::new(t)))
        .collect();
    (0..values.len())
        .map(|v| pieces.assemble(&held, v))
        .collect()
}

fn texts(t: &[&str]) -> Vec<String> {
    t.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn halves_in_reverse_order_with_words_around_are_assembled_at_the_second() {
    let iban = "DE44 5001 0517 5407 3249 31";
    let found = assemble(
        &[iban],
        &texts(&[
            "the rest first: 0517 5407 3249 31, more tomorrow",
            "Unrelated words about the picnic.",
            "and it starts with DE44 5001 as promised",
        ]),
    );
    let a = found[0].as_ref().unwrap();
    assert_eq!(a.completed_by, 2);
    let order: Vec<usize> = a.parts.iter().map(|p| p.text).collect();
    assert_eq!(order, vec![2, 0]);
}

#[test]
fn each_piece_may_carry_its_own_rendering() {
    let value = "PIP-33019-K hydroxychloroquine";
    let b64 = base64::engine::general_purpose::STANDARD.encode("PIP-3301");
    let found = assemble(
        &[value],
        &texts(&[
            &format!("part one {b64} ok"),
            "then 9-K hydroxy",
            "and finally: chloroquine",
        ]),
    );
    let a = found[0].as_ref().expect("three pieces, one base64");
    assert_eq!(a.completed_by, 2);
    assert_eq!(a.parts.len(), 3);
    assert!(a.parts.iter().any(|p| !p.view.is_plain()), "{a:?}");
}

#[test]
fn one_text_alone_never_assembles_and_short_values_are_not_cut() {
    let iban = "DE44 5001 0517 5407 3249 31";
    let one = assemble(
        &[iban],
        &texts(&["DE44 5001 and then 0517 5407 3249 31", "hi"]),
    );
    assert!(one[0].is_none());
    let short = assemble(&["PF-2291"], &texts(&["PF", "2291"]));
    assert!(short[0].is_none());
}

#[test]
fn whole_words_without_digits_are_not_pieces_but_cuts_inside_them_are() {
    let value = "type 1 diabetes";
    let words = assemble(
        &[value],
        &texts(&["type 1 is common here", "diabetes care"]),
    );
    assert!(words[0].is_none(), "ordinary words assemble: {words:?}");
    let cut = assemble(&[value], &texts(&["type 1 dia", "betes"]));
    assert!(cut[0].is_some());
}

#[test]
fn more_pieces_than_the_limit_are_not_assembled() {
    let value = "hydroxychloroquine 200 mg";
    let five = texts(&["hydro", "xychl", "oroqu", "ine 2", "00 mg"]);
    assert!(assemble(&[value], &five)[0].is_none());
    let four = texts(&["hydroxy", "chlor", "oquine 2", "00 mg"]);
    assert!(assemble(&[value], &four)[0].is_some());
}

fn around(text: &str, parts: &[&str], texts: &[String]) -> Vec<usize> {
    let value = (
        Needle::new(text).unwrap(),
        parts.iter().map(|p| Needle::new(p).unwrap()).collect(),
    );
    let pieces = Pieces::around(&[value]);
    let held: Vec<Vec<Held>> = texts
        .iter()
        .map(|t| pieces.held(&Haystack::new(t)))
        .collect();
    pieces
        .completed_by_last(&held, 0, |_, _, _| true)
        .into_iter()
        .map(|a| a.target)
        .collect()
}

#[test]
fn a_part_is_covered_by_pieces_that_reach_into_the_text_around_it() {
    let text = "she had a cortisone injection on 18 Apr";
    // `e` alone is no piece; `e injection on` is, and it ends `cortisone`.
    let covered = around(
        text,
        &["cortisone"],
        &texts(&["first: cortison (part 1)", "then e injection on (part 2)"]),
    );
    assert_eq!(covered, vec![0]);
    let b64 = base64::engine::general_purpose::STANDARD.encode("e injection on");
    let rendered = around(
        text,
        &["cortisone"],
        &texts(&["first: cortison (part 1)", &format!("then {b64} (part 2)")]),
    );
    assert_eq!(rendered, vec![0]);
    // The text around the part alone, in any number of outputs, covers nothing.
    let beside = around(
        text,
        &["cortisone"],
        &texts(&["she had a", "injection on 18 Apr"]),
    );
    assert!(beside.is_empty());
}

#[test]
fn only_the_parts_a_stream_covers_are_completed_and_only_by_its_last_text() {
    let text = "ocrelizumab 600 mg and EDSS 2.5";
    let parts = ["ocrelizumab", "600 mg"];
    let name = around(text, &parts, &texts(&["ocreli", "zumab 6"]));
    assert_eq!(name, vec![0]);
    let both = around(text, &parts, &texts(&["ocreli", "zumab 6", "00 mg and"]));
    assert_eq!(both, vec![1], "the name was completed before the last text");
    let one_text = around(text, &parts, &texts(&["ocreli zumab 6"]));
    assert!(one_text.is_empty());
}

/// The letters and digits of `value` dealt over `ways` strides.
fn deal(value: &str, ways: usize) -> Vec<String> {
    let chars: Vec<char> = value
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    (0..ways)
        .map(|r| chars.iter().skip(r).step_by(ways).collect())
        .collect()
}

#[test]
fn characters_dealt_over_texts_in_any_order_and_rendering_are_assembled() {
    let iban = "DE44 5001 0517 5407 3249 31";
    let [odd, even] = <[String; 2]>::try_from(deal(iban, 2)).unwrap();
    let found = assemble(
        &[iban],
        &texts(&[
            &format!("second half: {even}."),
            &format!("first: {odd} ok"),
        ]),
    );
    let a = found[0].as_ref().expect("dealt in reverse order");
    assert_eq!((a.completed_by, a.dealt), (1, Some(2)));
    let order: Vec<usize> = a.parts.iter().map(|p| p.text).collect();
    assert_eq!(order, vec![1, 0], "parts in residue order");
    let b64 = base64::engine::general_purpose::STANDARD.encode(&even);
    let three = deal(iban, 3);
    let rendered = assemble(
        &[iban],
        &texts(&[
            &format!("a: {}", three[2]),
            &format!("b: {b64}"),
            &format!("c: {} and {}", three[0], three[1]),
            &format!("d: {odd}"),
        ]),
    );
    let a = rendered[0].as_ref().expect("strides, one of them base64");
    assert_eq!(a.completed_by, 2, "three ways complete first");
    assert_eq!(a.dealt, Some(3));
}

#[test]
fn every_stride_is_needed_and_one_text_alone_deals_nothing() {
    let value = "PIP-33019-K hydroxychloroquine";
    let [odd, even] = <[String; 2]>::try_from(deal(value, 2)).unwrap();
    let one = assemble(&[value], &texts(&[&format!("{odd} {even}"), "hi"]));
    assert!(one[0].is_none(), "{one:?}");
    let half = assemble(&[value], &texts(&[&odd, "and the rest later"]));
    assert!(half[0].is_none(), "{half:?}");
    // Strides of a value too short to be searched in pieces are not searched.
    let short = deal("PF-2291", 2);
    assert!(assemble(&["PF-2291"], &texts(&[&short[0], &short[1]]))[0].is_none());
}

#[test]
fn a_part_dealt_over_texts_is_completed_by_the_last() {
    let text = "she had a cortisone injection on 18 Apr";
    let dealt = deal("cortisone", 2);
    let covered = around(
        text,
        &["cortisone"],
        &texts(&[
            &format!("odd: {}", dealt[0]),
            &format!("even: {}", dealt[1]),
        ]),
    );
    assert_eq!(covered, vec![0]);
    // The writer deals what it holds: the name with the words after it.
    let dealt = deal("cortisone injection on 18 Apr", 3);
    let stretch = around(
        text,
        &["cortisone"],
        &texts(&[&dealt[1], &dealt[2], &format!("and {} too", dealt[0])]),
    );
    assert_eq!(stretch, vec![0]);
    // Strides of different stretches do not join.
    let a = deal("cortisone injection", 2);
    let b = deal("had a cortisone", 2);
    let mixed = around(text, &["cortisone"], &texts(&[&a[0], &b[1]]));
    assert!(mixed.is_empty(), "{mixed:?}");
}
