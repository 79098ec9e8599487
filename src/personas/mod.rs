//! The club's personas, loaded from `personas/*.toml`. A persona is data:
//! who it is, how it speaks, how strong it plays, what it does when idle.

mod brain;
pub mod card;
mod install;
mod load;
mod model;
mod roster;

pub use install::{InstallError, Installed, Prepared, install, prepare, read_files, to_toml};
pub(crate) use load::validate;
pub use load::{MAX_LORE_CHARS, PersonaError, assets_dir, load_dir, load_file};
pub use roster::Roster;

/// The personas shipped in the repository, for tests. Read at run time: `cargo test` sets
/// CARGO_MANIFEST_DIR, and a binary built in a shared target dir from another clone would
/// otherwise look in that clone.
#[cfg(test)]
pub(crate) fn shipped_dir() -> std::path::PathBuf {
    let repo = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into());
    std::path::PathBuf::from(repo).join("personas")
}
pub use brain::{AgentKind, BrainKind};
pub use model::{
    CardOrigin, IdlePolicy, LichessLimits, Line, LineEvent, Lines, Lore, Persona, PersonaLlm, StageEvent, StageLines,
    TakebackPolicy, said_from,
};
