//! The words the subconscious searches by on a move: the kind of move, the
//! stage of the game and the opening family, from a closed vocabulary. The
//! vocabulary is small (under 5,000 sentences), so every sentence can be
//! embedded once at start-up (`vocabulary`) and no move ever waits for the
//! embedding model.

use crate::chess::openings;
use crate::triggers::{GameContext, MoveFact};

/// Pieces a move can be made with, and pieces a capture can take.
const MOVERS: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];
const CAPTURED: [&str; 5] = ["pawn", "knight", "bishop", "rook", "queen"];
const STAGES: [&str; 3] = ["opening", "middlegame", "endgame"];

/// Plies, a rough stage clock: the context holds no material count of both sides.
const OPENING_PLIES: usize = 20;
const ENDGAME_PLIES: usize = 70;

/// The fixed sentences of the triggers that are not about a move.
pub const RETURNING: &str =
    "The player came back to play again. Our previous matches: how they opened, results, habits.";
pub const DRAW_OFFERED: &str = "The player offers a draw.";
pub const IDLE: &str = "The player is taking a long time to move.";
pub const MATCH_OVER: &str = "The match with the player is over: results and streaks.";
pub const SOMETHING: &str = "The player did something.";
pub const USER_MOVED: &str = "The player moved.";
/// A chat line's query when the model is too busy to embed its words.
pub const CHATTING: &str = "The player is chatting with me.";

pub fn user_move(m: &MoveFact, ctx: &GameContext) -> String {
    user_sentence(&move_words(m), &setting(ctx))
}

pub fn agent_move(planned: Option<&MoveFact>, ctx: &GameContext) -> String {
    agent_sentence(planned.map(move_words).as_deref(), &setting(ctx))
}

fn user_sentence(words: &str, setting: &str) -> String {
    format!("The player {words} {setting}.")
}

fn agent_sentence(words: Option<&str>, setting: &str) -> String {
    match words {
        Some(words) => format!("My move against the player: I {words} {setting}."),
        None => format!("My move against the player {setting}."),
    }
}

/// The kind of move, in words: "captured a knight", "castled", "moved a bishop".
fn move_words(m: &MoveFact) -> String {
    if let Some(piece) = &m.captured {
        return format!("captured a {piece}");
    }
    if m.check {
        return "gave check".into();
    }
    if m.san.starts_with("O-O") {
        return "castled".into();
    }
    if m.san.contains('=') {
        return "promoted a pawn".into();
    }
    let piece = match m.san.chars().next() {
        Some('N') => "knight",
        Some('B') => "bishop",
        Some('R') => "rook",
        Some('Q') => "queen",
        Some('K') => "king",
        _ => "pawn",
    };
    format!("moved a {piece}")
}

/// The stage of the game and its opening family: "in the middlegame of the Sicilian Defense".
fn setting(ctx: &GameContext) -> String {
    let stage = match ctx.move_count {
        0..OPENING_PLIES => STAGES[0],
        OPENING_PLIES..ENDGAME_PLIES => STAGES[1],
        _ => STAGES[2],
    };
    setting_words(stage, ctx.opening_name.as_ref().map(|o| o.family()))
}

fn setting_words(stage: &str, family: Option<&str>) -> String {
    match family {
        Some(family) => format!("in the {stage} of the {family}"),
        None => format!("in the {stage}"),
    }
}

/// Where the vocabulary's vectors are kept: beside the model they came from,
/// so every server and benchmark on that model shares them.
pub fn cache_path(models_dir: &std::path::Path) -> std::path::PathBuf {
    models_dir.join("situations.vec")
}

/// Every sentence a move, a draw offer, an idle wait or a match's start or
/// end can be searched by (chat lines are the player's own words, not here).
pub fn vocabulary() -> Vec<String> {
    let mut words: Vec<String> = MOVERS.iter().map(|p| format!("moved a {p}")).collect();
    words.extend(CAPTURED.iter().map(|p| format!("captured a {p}")));
    words.extend(["gave check", "castled", "promoted a pawn"].map(String::from));
    let families = std::iter::once(None).chain(openings::book().family_names().map(Some));
    let mut settings = Vec::new();
    for family in families {
        settings.extend(STAGES.iter().map(|stage| setting_words(stage, family)));
    }
    let mut all: Vec<String> = [
        RETURNING,
        DRAW_OFFERED,
        IDLE,
        MATCH_OVER,
        SOMETHING,
        USER_MOVED,
        CHATTING,
    ]
    .map(String::from)
    .into();
    for setting in &settings {
        all.push(agent_sentence(None, setting));
        for w in &words {
            all.push(user_sentence(w, setting));
            all.push(agent_sentence(Some(w), setting));
        }
    }
    all
}
