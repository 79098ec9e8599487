//! The persona's reflection after a match (after_match): a summary, the key
//! moments (the largest odds swings, classed at Lichess's 5/10/15 points),
//! what it learned (memories saved or reinforced in the match), its mood, and
//! the head-to-head with its streak. The facts are computed, never guessed;
//! the scripted summary states them plainly, and a language model, when there
//! is one, may retell them in the persona's voice.

pub mod moments;
mod retelling;
pub mod review;
mod rows;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use retelling::retell;

use crate::chess::odds::{MoveClass, MoveOdds};
use crate::chess::{GameEnd, PlayedMove};
use crate::triggers::MatchHistory;

/// How many swings a reflection keeps.
const KEY_MOMENTS: usize = 3;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reflection {
    pub summary: String,
    /// `scripted` or the model that retold it.
    pub written_by: String,
    pub result: String,
    pub termination: String,
    /// "win", "loss" or "draw", from the persona's side.
    pub outcome: String,
    pub moves: usize,
    pub opening: Option<String>,
    pub key_moments: Vec<KeyMoment>,
    /// How many of the game's scored moves the deeper evaluation had
    /// checked when this was written (none in reflections written before
    /// it was counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deep_checked: Option<DeepChecked>,
    pub learned: Vec<Learned>,
    pub mood: String,
    pub head_to_head: HeadToHead,
    /// What the game did to the player's rating (None: not rated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<RatingChange>,
    /// The player's puzzles with this persona when the game ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub puzzles: Option<PuzzleProgress>,
    /// The review after the game ran (the player's mistakes searched, kept
    /// as puzzles, the better moves written here); false until it has, so
    /// a review a stop cut short is made at the next start.
    #[serde(default)]
    pub reviewed: bool,
    pub created_at: DateTime<Utc>,
}

/// Of a game's moves with odds, how many the deeper evaluation checked;
/// the others rest on the quick search's verdict alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DeepChecked {
    pub scored: usize,
    pub deep: usize,
}

impl DeepChecked {
    pub fn of(odds: &[Option<MoveOdds>]) -> DeepChecked {
        let scored = odds.iter().flatten();
        DeepChecked {
            scored: scored.clone().count(),
            deep: scored.filter(|o| o.deep).count(),
        }
    }
}

/// How the player's old mistakes stand, as puzzles, with this persona.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PuzzleProgress {
    /// Solved twice: learned.
    pub retired: usize,
    /// Still to come back.
    pub open: usize,
    /// The puzzle offered in this game, if it was answered: right or not.
    pub answered_here: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatingChange {
    pub before: f64,
    pub after: f64,
    pub deviation: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyMoment {
    pub ply: usize,
    /// "12. Nf3" or "12... Nf6".
    pub move_label: String,
    pub san: String,
    /// "player" or "persona".
    pub by: String,
    /// Win% points the mover lost (negative) or gained.
    pub delta: f64,
    pub class: MoveClass,
    /// The position after the move, to show it.
    pub fen_after: String,
    /// The engine's better move there (SAN), for the player's mistakes the
    /// analysis after the game found one for (none until it has run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub better: Option<String>,
    /// Its odds are the quick search's: the deeper evaluation had not
    /// checked the move (false in reflections written before this was kept).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quick_only: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Learned {
    pub memory_id: String,
    pub content: String,
    pub memory_type: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeadToHead {
    pub played: u32,
    pub player_wins: u32,
    pub player_losses: u32,
    pub draws: u32,
    pub streak: Option<String>,
}

/// What the reflection is made from.
pub struct MatchFacts<'a> {
    pub persona_name: &'a str,
    pub player_name: &'a str,
    pub user_is_white: bool,
    pub end: GameEnd,
    pub moves: &'a [PlayedMove],
    /// The start position's move number and whether White moved first.
    pub start_fullmove: u32,
    pub start_white: bool,
    pub odds: &'a [Option<MoveOdds>],
    pub opening: Option<String>,
    pub learned: Vec<Learned>,
    pub mood: &'a str,
    /// Including this match.
    pub history: &'a MatchHistory,
    pub puzzles: Option<PuzzleProgress>,
}

/// The moves that swung the odds most, worst first (only those that lost at
/// least an inaccuracy's worth, or the largest swings if none did).
pub fn key_moments(f: &MatchFacts<'_>) -> Vec<KeyMoment> {
    turning_points(f.moves, f.odds, f.user_is_white, |i| move_label(f, i))
}

/// Up to `KEY_MOMENTS` moves that lost an inaccuracy's worth or more, in
/// the game's order; `label` numbers move `i` as a score sheet does.
pub fn turning_points(
    moves: &[PlayedMove],
    odds: &[Option<MoveOdds>],
    user_is_white: bool,
    label: impl Fn(usize) -> Option<String>,
) -> Vec<KeyMoment> {
    let mut swings: Vec<(usize, MoveOdds)> = odds
        .iter()
        .enumerate()
        .filter_map(|(i, o)| o.map(|o| (i, o)))
        .filter(|(_, o)| o.class != MoveClass::Good)
        .collect();
    swings.sort_by(|a, b| a.1.delta.total_cmp(&b.1.delta));
    swings.truncate(KEY_MOMENTS);
    swings.sort_by_key(|(i, _)| *i);
    swings
        .into_iter()
        .filter_map(|(i, o)| {
            let m = moves.get(i)?;
            let by_user = m.mover.is_white() == user_is_white;
            Some(KeyMoment {
                ply: i + 1,
                move_label: label(i)?,
                san: m.san.clone(),
                by: if by_user { "player" } else { "persona" }.into(),
                delta: (o.delta * 10.0).round() / 10.0,
                class: o.class,
                fen_after: m.fen_after.clone(),
                better: None,
                quick_only: !o.deep,
            })
        })
        .collect()
}

/// Move `i` as a score sheet numbers it ("23... Qxb2"), from the start
/// position (a set-up game may begin at move 30, Black to play).
fn move_label(f: &MatchFacts<'_>, i: usize) -> Option<String> {
    let m = f.moves.get(i)?;
    let number = f.start_fullmove as usize + (i + usize::from(!f.start_white)) / 2;
    let dots = if m.mover.is_white() { "." } else { "..." };
    Some(format!("{number}{dots} {}", m.san))
}

pub fn head_to_head(h: &MatchHistory) -> HeadToHead {
    HeadToHead {
        played: h.played,
        player_wins: h.user_wins,
        player_losses: h.user_losses,
        draws: h.draws,
        streak: h.streak.as_ref().map(|(kind, n)| format!("{kind} x{n}")),
    }
}

/// The plain, factual reflection (the scripted brain's, and every model's base).
pub fn write(f: &MatchFacts<'_>) -> Reflection {
    let outcome = match f.end.winner() {
        None => "draw",
        Some(w) if w.is_white() == f.user_is_white => "loss",
        Some(_) => "win",
    };
    let key_moments = key_moments(f);
    let h2h = head_to_head(f.history);
    let summary = scripted_summary(f, outcome, &key_moments, &h2h);
    Reflection {
        summary,
        written_by: "scripted".into(),
        result: f.end.result().into(),
        termination: f.end.termination().into(),
        outcome: outcome.into(),
        moves: f.moves.len().div_ceil(2),
        opening: f.opening.clone(),
        key_moments,
        deep_checked: Some(DeepChecked::of(f.odds)),
        learned: f.learned.clone(),
        mood: f.mood.to_string(),
        head_to_head: h2h,
        rating: rating_change(f.history),
        puzzles: f.puzzles,
        reviewed: false,
        created_at: Utc::now(),
    }
}

fn scripted_summary(f: &MatchFacts<'_>, outcome: &str, moments: &[KeyMoment], h2h: &HeadToHead) -> String {
    let verb = match outcome {
        "win" => "beat",
        "loss" => "lost to",
        _ => "drew with",
    };
    let how = f.end.termination().replace('_', " ");
    let n = f.moves.len().div_ceil(2);
    let moves = if n == 1 { "move" } else { "moves" };
    let mut text = format!("{} {verb} {} by {how} after {n} {moves}", f.persona_name, f.player_name);
    if let Some(opening) = &f.opening {
        text.push_str(&format!(" in the {opening}"));
    }
    text.push('.');
    match moments.iter().min_by(|a, b| a.delta.total_cmp(&b.delta)) {
        Some(m) => {
            let class = class_word(m.class);
            let article = if class.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            text.push_str(&format!(
                " The turning point: {} by the {}, {article} {class} ({:+.1} points).",
                m.move_label, m.by, m.delta
            ))
        }
        None => text.push_str(" No move lost more than five points: a clean game."),
    }
    text.push_str(&depth_sentence(moments, DeepChecked::of(f.odds)));
    match f.learned.len() {
        0 => {}
        1 => text.push_str(" One thing learned about the player."),
        n => text.push_str(&format!(" {n} things learned about the player.")),
    }
    text.push_str(&format!(
        " Head to head: {} played, {} won by the player, {} lost, {} drawn.",
        h2h.played, h2h.player_wins, h2h.player_losses, h2h.draws
    ));
    text.push_str(&rating_sentence(f));
    text.push_str(&puzzle_sentence(f));
    text
}

/// Whether the key moments rest on the quick evaluation only: " These
/// moments rest on the quick evaluation only (the deeper one checked 3 of
/// 40 moves).", or how many of them do; empty when every one was checked.
fn depth_sentence(moments: &[KeyMoment], checked: DeepChecked) -> String {
    let quick = moments.iter().filter(|m| m.quick_only).count();
    let how_many = format!("the deeper one checked {} of {} moves", checked.deep, checked.scored);
    match (quick, moments.len()) {
        (0, _) => String::new(),
        (1, 1) => format!(" That moment rests on the quick evaluation only ({how_many})."),
        (q, n) if q == n => format!(" These moments rest on the quick evaluation only ({how_many})."),
        (1, n) => format!(" One of these {n} moments rests on the quick evaluation only ({how_many})."),
        (q, n) => format!(" {q} of these {n} moments rest on the quick evaluation only ({how_many})."),
    }
}

/// " Ann solved the puzzle from an old game. Her puzzles: 2 learned, 1 to
/// come back.", from the figures; empty when she has none.
fn puzzle_sentence(f: &MatchFacts<'_>) -> String {
    let Some(p) = f
        .puzzles
        .filter(|p| p.retired + p.open > 0 || p.answered_here.is_some())
    else {
        return String::new();
    };
    let mut text = match p.answered_here {
        Some(true) => format!(" {} solved the puzzle from an old mistake.", f.player_name),
        Some(false) => format!(
            " {} missed the puzzle from an old mistake; it will come back.",
            f.player_name
        ),
        None => String::new(),
    };
    text.push_str(&format!(
        " Puzzles from {}'s mistakes: {} learned (solved twice), {} to come back.",
        f.player_name, p.retired, p.open
    ));
    text
}

fn rating_change(history: &MatchHistory) -> Option<RatingChange> {
    let (change, now) = (history.rating.this_match?, history.rating.progress.as_ref()?);
    Some(RatingChange {
        before: now.rating - change,
        after: now.rating,
        deviation: now.deviation,
    })
}

/// " Ann's rating went from 1,340 to 1,352 (+12).", or why it was not rated.
fn rating_sentence(f: &MatchFacts<'_>) -> String {
    use crate::rating::{figure, progress::signed};
    if let Some(r) = rating_change(f.history) {
        return format!(
            " {}'s rating went from {} to {} ({}).",
            f.player_name,
            figure(r.before),
            figure(r.after),
            signed(r.after - r.before)
        );
    }
    match f.history.rating.adapted {
        Some(a) => format!(
            " Not rated: {} played at {}, adapted to {}.",
            f.persona_name,
            figure(f64::from(a.plays_at)),
            f.player_name
        ),
        None => String::new(),
    }
}

fn class_word(c: MoveClass) -> &'static str {
    match c {
        MoveClass::Good => "good move",
        MoveClass::Inaccuracy => "inaccuracy",
        MoveClass::Mistake => "mistake",
        MoveClass::Blunder => "blunder",
    }
}

#[cfg(test)]
mod tests;
