//! The club's personas, loaded from `personas/*.toml`. A persona is data:
//! who it is, how it speaks, how strong it plays, what it does when idle.

mod load;
mod model;

pub use load::{PersonaError, load_dir};
pub use model::{BrainKind, IdlePolicy, Line, LineEvent, Lines, Persona, PersonaLlm};
