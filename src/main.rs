//! The `switchboard` binary.
fn main() {
    eprintln!("switchboard: not built yet");
    std::process::exit(2);
}
