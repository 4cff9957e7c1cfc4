#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
use super::*;
use cosec_scenarios::ObjectId;
use proptest::prelude::*;

const PH: &[u8] = b"[not available]";

fn labels(ids: &[&str]) -> Labels {
    ids.iter().map(|i| ObjectId((*i).to_owned())).collect()
}

fn visible_except(hidden: &'static [&'static str]) -> impl Fn(&ObjectId) -> bool {
    move |o: &ObjectId| !hidden.contains(&o.0.as_str())
}

fn one(
    path: &str,
    record: Record,
    hidden: &'static [&'static str],
) -> (BTreeMap<String, Record>, BTreeMap<String, Rendered>) {
    let rendered = record.render(&visible_except(hidden), PH);
    (
        BTreeMap::from([(path.to_owned(), record)]),
        BTreeMap::from([(path.to_owned(), rendered)]),
    )
}

fn run(
    records: &BTreeMap<String, Record>,
    rendered: &BTreeMap<String, Rendered>,
    entered: &Labels,
    after: &[(&str, &[u8])],
) -> Absorbed {
    let turn = Turn {
        records,
        rendered,
        entered,
        placeholder: PH,
    };
    let after = after
        .iter()
        .map(|(p, b)| ((*p).to_owned(), b.to_vec()))
        .collect();
    absorb(&turn, &after)
}

#[test]
fn an_unchanged_file_keeps_its_record_and_is_no_change() {
    let record = Record::whole("the pharmacy ledger of Mira", labels(&["ledger"]));
    let (records, rendered) = one("shared/l.md", record.clone(), &[]);
    let out = run(
        &records,
        &rendered,
        &labels(&["x"]),
        &[("shared/l.md", b"the pharmacy ledger of Mira")],
    );
    assert_eq!(out.records["shared/l.md"], record);
    assert!(out.changes.is_empty());
}

#[test]
fn a_new_file_carries_everything_that_entered_the_turn() {
    let (records, rendered) = one("a.md", Record::whole("x", Labels::new()), &[]);
    let out = run(
        &records,
        &rendered,
        &labels(&["ledger", "post"]),
        &[("a.md", b"x"), ("b.md", b"KRUGKIDROVUWG2ZA")],
    );
    assert_eq!(out.records["b.md"].labels(), labels(&["ledger", "post"]));
    assert_eq!(out.changes.len(), 1);
    assert_eq!(out.changes[0].kind, ChangeKind::Created);
    assert_eq!(out.changes[0].written, labels(&["ledger", "post"]));
}

#[test]
fn a_move_without_reading_carries_the_labels_of_what_it_moved() {
    let secret = "CarePod pharmacy fund - reimbursement PF-2291: Mira Castell";
    let (records, rendered) = one(
        "shared/funds/ledger.md",
        Record::whole(secret, labels(&["ledger"])),
        &[],
    );
    let out = run(
        &records,
        &rendered,
        &Labels::new(),
        &[("communities/w/x.md", secret.as_bytes())],
    );
    assert_eq!(
        out.records["communities/w/x.md"].labels(),
        labels(&["ledger"])
    );
    let created = out
        .changes
        .iter()
        .find(|c| c.kind == ChangeKind::Created)
        .unwrap();
    assert!(created.copied_from.contains("shared/funds/ledger.md"));
    assert!(out.changes.iter().any(|c| c.kind == ChangeKind::Deleted));
}

#[test]
fn an_append_keeps_the_labels_of_the_lines_before_it() {
    let record = Record {
        segments: vec![
            Segment::new("entry one about plot 4 and the key-safe", labels(&["plot"])),
            Segment::plain("\n\n"),
            Segment::new("entry two: the rota", Labels::new()),
            Segment::plain("\n"),
        ],
    };
    let (records, rendered) = one("memory/notes.md", record.clone(), &[]);
    let mut after = record.content();
    after.extend_from_slice(b"a new note\n");
    let out = run(
        &records,
        &rendered,
        &labels(&["other"]),
        &[("memory/notes.md", &after)],
    );
    let new = &out.records["memory/notes.md"];
    assert_eq!(new.content(), after);
    assert_eq!(new.segments[0].labels, labels(&["plot"]));
    assert_eq!(new.segments.last().unwrap().labels, labels(&["other"]));
    assert_eq!(out.changes[0].written, labels(&["other"]));
}

#[test]
fn a_placeholder_kept_by_an_edit_keeps_the_withheld_segment_behind_it() {
    let record = Record {
        segments: vec![
            Segment::new("Ole's epilepsy post", labels(&["ole"])),
            Segment::plain("\n\nshared rota\n"),
        ],
    };
    let (records, rendered) = one("memory/notes.md", record, &["ole"]);
    assert_eq!(
        rendered["memory/notes.md"].bytes,
        b"[not available]\n\nshared rota\n"
    );
    let out = run(
        &records,
        &rendered,
        &Labels::new(),
        &[("memory/notes.md", b"[not available]\n\nrota changed\n")],
    );
    let new = &out.records["memory/notes.md"];
    assert_eq!(new.content(), b"Ole's epilepsy post\n\nrota changed\n");
    assert_eq!(new.labels(), labels(&["ole"]));
    // Removing the placeholder removes what it stood for.
    let out = run(
        &records,
        &rendered,
        &Labels::new(),
        &[("memory/notes.md", b"rota only\n")],
    );
    assert_eq!(out.records["memory/notes.md"].content(), b"rota only\n");
    assert!(out.records["memory/notes.md"].labels().is_empty());
}

/// A random record: segments with random bytes and labels from a small set.
fn record_strategy() -> impl Strategy<Value = Record> {
    prop::collection::vec(
        (
            prop::collection::vec(prop::sample::select(b"abcdefgh \n".to_vec()), 0..40),
            prop::collection::btree_set(prop::sample::select(vec!["a", "b", "c"]), 0..2),
        ),
        0..6,
    )
    .prop_map(|parts| Record {
        segments: parts
            .into_iter()
            .map(|(bytes, ls)| {
                Segment::new(
                    bytes,
                    ls.into_iter().map(|l| ObjectId(l.to_owned())).collect(),
                )
            })
            .collect(),
    })
}

/// A random edit of a byte string: keep a prefix and a suffix, put new bytes between.
fn edit_strategy() -> impl Strategy<Value = (prop::sample::Index, prop::sample::Index, Vec<u8>)> {
    (
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        prop::collection::vec(prop::sample::select(b"xyz \n".to_vec()), 0..30),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever the agent does to a file, the next view of the same turn's state shows
    /// exactly what it wrote; every byte it wrote carries what entered the turn; every
    /// visible labeled run it kept or copied keeps its labels.
    #[test]
    fn absorbed_records_render_back_to_what_was_written_and_keep_every_label(
        record in record_strategy(),
        hide_b in any::<bool>(),
        (cut_a, cut_b, inserted) in edit_strategy(),
        keep_placeholder in any::<bool>(),
    ) {
        let hidden: &'static [&'static str] = if hide_b { &["b"] } else { &[] };
        let (records, rendered) = one("f.md", record.clone(), hidden);
        let view = rendered["f.md"].bytes.clone();
        let a = cut_a.index(view.len() + 1);
        let b = cut_b.index(view.len() + 1).max(a);
        let mut after = view[..a].to_vec();
        after.extend_from_slice(&inserted);
        if keep_placeholder && !view[a..b].windows(PH.len()).any(|w| w == PH) {
            // leave the middle as it was when asked to keep placeholders
            after.extend_from_slice(&view[a..b]);
        }
        after.extend_from_slice(&view[b..]);
        let entered = labels(&["e"]);
        let out = run(&records, &rendered, &entered, &[("f.md", &after)]);
        let new = &out.records["f.md"];
        // Rendering under the same visibility gives back what the agent wrote.
        prop_assert_eq!(new.render(&visible_except(hidden), PH).bytes, after.clone());
        // Every segment is an original one or carries what entered the turn.
        for s in new.segments.iter().filter(|s| !s.bytes.is_empty()) {
            let original = contains(&record.content(), &s.bytes)
                && record.segments.iter().any(|o| o.labels == s.labels);
            prop_assert!(original || entered.is_subset(&s.labels), "segment {:?} lost the turn's labels", s);
        }
        // A visible labeled segment found whole in the new content keeps its labels.
        for o in record.segments.iter().filter(|o| o.labels.iter().all(visible_except(hidden))) {
            if o.bytes.len() >= MIN_INHERITED_BYTES && contains(&new.content(), &o.bytes) {
                prop_assert!(o.labels.is_subset(&new.labels()));
            }
        }
    }
}
