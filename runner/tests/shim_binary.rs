//! The relay binary an agent's sandbox can execute carries no hidden data: no oracle
//! policy, no suite (reference plans, canaries).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[test]
fn the_relay_binary_embeds_neither_the_oracle_nor_the_suite() {
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_cosec-shim")).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    for hidden in [
        "intended-member",                             // an oracle policy id
        "owner-consent",                               // another one
        "Glad the readings were steadier, Dana",       // a reference-plan reply
        "Write next week's WorkHub availability note", // a verifier-only goal
        "HbA1c 8.4",                                   // a canary of the worked example
        "st-inter-third-a4-s1",                        // a scenario id
    ] {
        assert!(!text.contains(hidden), "cosec-shim contains `{hidden}`");
    }
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_cosec-shim"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(help.status.success());
}
