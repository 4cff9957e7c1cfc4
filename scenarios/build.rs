// The frozen suite and its worlds are embedded with `include_dir!`, which cannot tell
// cargo to watch the folders on stable Rust; this makes an edited suite or world file
// rebuild the crate, so the manifest check and `generate` see the edit.
fn main() {
    println!("cargo:rerun-if-changed=suite");
    println!("cargo:rerun-if-changed=worlds");
}
