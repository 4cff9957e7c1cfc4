#![allow(clippy::unwrap_used, clippy::indexing_slicing)]
use super::*;

const PH: &str = "[not available in this conversation]";

fn id(s: &str) -> ObjectId {
    ObjectId(s.to_owned())
}

/// A workspace with a protected ledger, a plain notice and memory of two entries.
fn workspace() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let ledger = "CarePod pharmacy fund - reimbursement PF-2291: Mira Castell, 3 insulin pens\n";
    let mut seeded = BTreeMap::new();
    seeded.insert(
        "shared/funds/ledger.md".to_owned(),
        Record::whole(ledger, Labels::from([id("ledger")])),
    );
    seeded.insert(
        "memory/notes.md".to_owned(),
        Record {
            segments: vec![
                Segment::new(
                    "Ole has epilepsy; seizure plan in the blue folder",
                    Labels::from([id("ole")]),
                ),
                Segment::plain("\n\n"),
                Segment::new("The rota changes in May", Labels::from([id("rota")])),
                Segment::plain("\n"),
            ],
        },
    );
    for (path, record) in &seeded {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, record.content()).unwrap();
    }
    std::fs::create_dir_all(dir.path().join("communities/w")).unwrap();
    std::fs::write(
        dir.path().join("communities/w/notice.md"),
        "Open day on Friday\n",
    )
    .unwrap();
    let ws = Workspace::open(dir.path(), seeded, PH).unwrap();
    (dir, ws)
}

fn read(dir: &tempfile::TempDir, path: &str) -> String {
    std::fs::read_to_string(dir.path().join(path)).unwrap()
}

fn sh(dir: &tempfile::TempDir, cmd: &str) {
    let ok = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir.path())
        .status()
        .unwrap()
        .success();
    assert!(ok, "{cmd}");
}

#[test]
fn a_turn_sees_only_what_it_may_read_and_the_real_content_comes_back_at_the_end() {
    let (dir, mut ws) = workspace();
    let withheld = ws.begin_turn(&|o| o.0 != "ledger" && o.0 != "ole").unwrap();
    assert_eq!(read(&dir, "shared/funds/ledger.md"), PH);
    assert_eq!(
        read(&dir, "memory/notes.md"),
        format!("{PH}\n\nThe rota changes in May\n")
    );
    assert_eq!(withheld.len(), 2);
    // Whatever the agent runs on the file, it reads the placeholder.
    ws.open_window();
    sh(&dir, "base32 -w0 shared/funds/ledger.md > shared/enc.txt");
    ws.close_window();
    let absorbed = ws.absorb().unwrap();
    ws.commit(absorbed, &BTreeSet::new()).unwrap();
    assert!(!read(&dir, "shared/enc.txt").is_empty());
    // The next turn may read everything.
    ws.begin_turn(&|_| true).unwrap();
    assert!(read(&dir, "shared/funds/ledger.md").contains("PF-2291"));
    assert!(read(&dir, "memory/notes.md").contains("epilepsy"));
    ws.restore_real().unwrap();
    assert!(read(&dir, "memory/notes.md").contains("epilepsy"));
}

#[test]
fn what_a_turn_writes_after_reading_a_file_with_a_shell_carries_its_label_through_encodings() {
    let (dir, mut ws) = workspace();
    ws.begin_turn(&|_| true).unwrap();
    ws.open_window();
    sh(
        &dir,
        "gzip -c shared/funds/ledger.md | base64 > communities/w/x.txt",
    );
    ws.close_window();
    assert!(ws.entered().contains(&id("ledger")));
    assert!(!ws.entered().contains(&id("ole")), "memory was not opened");
    let absorbed = ws.absorb().unwrap();
    let change = absorbed
        .changes
        .iter()
        .find(|c| c.path == "communities/w/x.txt")
        .unwrap();
    assert_eq!(change.kind, ChangeKind::Created);
    assert!(change.written.contains(&id("ledger")));
    ws.commit(absorbed, &BTreeSet::new()).unwrap();
    // A later turn that may not read the ledger does not see the encoded copy either.
    ws.begin_turn(&|o| o.0 != "ledger").unwrap();
    assert_eq!(read(&dir, "communities/w/x.txt"), PH);
    assert_eq!(ws.labels_of("communities/w/x.txt"), Labels::new());
}

#[test]
fn opens_before_the_window_do_not_count_and_a_reverted_change_is_undone() {
    let (dir, mut ws) = workspace();
    ws.begin_turn(&|_| true).unwrap();
    // The runner's own snapshot before the delivery.
    read(&dir, "shared/funds/ledger.md");
    ws.open_window();
    sh(
        &dir,
        "cp shared/funds/ledger.md communities/w/copy.md && echo changed > communities/w/notice.md",
    );
    ws.close_window();
    let absorbed = ws.absorb().unwrap();
    assert!(ws
        .labels_of("communities/w/copy.md")
        .contains(&id("ledger")));
    let revert: BTreeSet<String> = ["communities/w/copy.md", "communities/w/notice.md"]
        .map(str::to_owned)
        .into();
    ws.commit(absorbed, &revert).unwrap();
    assert!(!dir.path().join("communities/w/copy.md").exists());
    assert_eq!(
        read(&dir, "communities/w/notice.md"),
        "Open day on Friday\n"
    );
    assert_eq!(
        ws.record("communities/w/notice.md").unwrap().content(),
        b"Open day on Friday\n"
    );
}

#[test]
fn a_copy_kept_in_the_workspace_is_hidden_after_the_label_is_revoked() {
    let (dir, mut ws) = workspace();
    ws.begin_turn(&|_| true).unwrap();
    ws.open_window();
    sh(
        &dir,
        "mkdir -p shared/old && mv shared/funds/ledger.md shared/old/l.md",
    );
    ws.close_window();
    let absorbed = ws.absorb().unwrap();
    ws.commit(absorbed, &BTreeSet::new()).unwrap();
    ws.begin_turn(&|o| o.0 != "ledger").unwrap();
    assert_eq!(read(&dir, "shared/old/l.md"), PH);
}

#[test]
fn a_harness_store_added_to_the_books_is_viewed_and_watched_like_the_workspace() {
    let (dir, mut ws) = workspace();
    let store = tempfile::tempdir().unwrap();
    let memory = Record {
        segments: vec![
            Segment::new(
                "Ole has epilepsy; seizure plan in the blue folder",
                Labels::from([id("ole")]),
            ),
            Segment::plain("\n§\n"),
            Segment::new("The rota changes in May", Labels::from([id("rota")])),
        ],
    };
    std::fs::write(store.path().join("MEMORY.md"), memory.content()).unwrap();
    ws.add_root(
        "@store",
        store.path(),
        BTreeMap::from([("MEMORY.md".to_owned(), memory)]),
    )
    .unwrap();
    let withheld = ws.begin_turn(&|o| o.0 != "ole").unwrap();
    assert!(withheld.iter().any(|w| w.path == "@store/MEMORY.md"));
    let shown = std::fs::read_to_string(store.path().join("MEMORY.md")).unwrap();
    assert_eq!(shown, format!("{PH}\n§\nThe rota changes in May"));
    ws.open_window();
    std::fs::read(store.path().join("MEMORY.md")).unwrap();
    ws.close_window();
    assert_eq!(ws.entered(), Labels::from([id("rota")]));
    let absorbed = ws.absorb().unwrap();
    ws.commit(absorbed, &BTreeSet::new()).unwrap();
    ws.restore_real().unwrap();
    assert!(std::fs::read_to_string(store.path().join("MEMORY.md"))
        .unwrap()
        .contains("epilepsy"));
    drop(dir);
}

#[test]
fn the_platforms_own_reads_from_the_books_do_not_count_as_opens() {
    let (dir, mut ws) = workspace();
    ws.begin_turn(&|_| true).unwrap();
    ws.open_window();
    let bytes = ws.view_bytes("shared/funds/ledger.md").unwrap();
    assert!(String::from_utf8(bytes).unwrap().contains("PF-2291"));
    assert!(ws.entered().is_empty(), "served from the books, not opened");
    std::fs::write(
        dir.path().join("shared/funds/ledger.md"),
        "rewritten by the agent",
    )
    .unwrap();
    assert!(
        ws.view_bytes("shared/funds/ledger.md").is_none(),
        "changed files come from disk"
    );
}
