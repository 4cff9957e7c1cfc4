// The frozen suite is embedded with `include_dir!`, which cannot tell cargo to watch the
// folder on stable Rust; this makes an edited suite file rebuild the crate, so the
// manifest check sees the edit.
fn main() {
    println!("cargo:rerun-if-changed=suite");
}
