//! The club's personas, loaded from `personas/*.toml`. A persona is data:
//! who it is, how it speaks, how strong it plays, what it does when idle.

mod load;
mod model;

pub use load::{PersonaError, load_dir};

/// The personas shipped in the repository, for tests. Read at run time: `cargo test` sets
/// CARGO_MANIFEST_DIR, and a binary built in a shared target dir from another clone would
/// otherwise look in that clone.
#[cfg(test)]
pub(crate) fn shipped_dir() -> std::path::PathBuf {
    let repo = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into());
    std::path::PathBuf::from(repo).join("personas")
}
pub use model::{BrainKind, IdlePolicy, Line, LineEvent, Lines, Persona, PersonaLlm};
