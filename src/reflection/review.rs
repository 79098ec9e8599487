//! A finished game laid out to look back at, in lichess's analysis
//! conventions: every move with White's win chance after it, the engine's
//! score and the glyph its drop earns (`?!`, `?`, `??` at 5 / 10 / 15 points
//! of win chance, lichess's thresholds), what the persona said after it,
//! and the key moments with the persona's comment and the better move.
//! Built from what was stored; no engine runs here.

use serde::Serialize;
use shakmaty::Chess;
use shakmaty::san::San;
use shakmaty::uci::UciMove;

use super::{DeepChecked, KeyMoment, Reflection, turning_points};
use crate::chess::Game;
use crate::chess::odds::{Eval, MoveClass, MoveOdds};
use crate::ids::MatchId;
use crate::puzzles::PuzzleRow;

/// A finished game as the review page shows it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct GameReview {
    pub match_id: MatchId,
    #[schema(value_type = String)]
    pub persona_id: crate::ids::PersonaId,
    pub persona_name: String,
    pub white: String,
    pub black: String,
    /// "white" or "black".
    pub user_color: String,
    pub result: Option<String>,
    pub termination: Option<String>,
    pub start_fen: String,
    pub moves: Vec<ReviewedMove>,
    /// How many of the scored moves the deeper evaluation checked.
    pub deep_checked: DeepChecked,
    pub key_moments: Vec<ReviewMoment>,
    /// The persona's reflection (none if the match stopped before it was
    /// written: the moves and moments are shown all the same).
    #[schema(value_type = Option<Object>)]
    pub reflection: Option<Reflection>,
    /// The puzzles this game's mistakes became.
    pub puzzles: Vec<PuzzleRow>,
}

/// One move of the game as the review shows it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ReviewedMove {
    /// 1 for the first move of the game.
    pub ply: usize,
    /// "12. Nf3" or "12... Nf6".
    pub label: String,
    pub san: String,
    pub uci: String,
    /// The position after the move.
    pub fen: String,
    /// "player" or "persona".
    pub by: &'static str,
    /// White's win chance (0..=100) after the move; none if it was not scored.
    pub white_win: Option<f64>,
    /// The engine's score after the move, from White's side.
    pub eval: Option<Eval>,
    pub class: Option<MoveClass>,
    /// "?!", "?" or "??".
    pub glyph: Option<&'static str>,
    /// The deeper evaluation checked these odds (else the quick search's).
    pub deep: bool,
    /// What the persona said after the move.
    pub said: Vec<String>,
}

/// The engine's better move at a key moment, to draw as an arrow.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct BetterMove {
    pub san: String,
    pub uci: String,
}

/// A turning point, with the persona's comment on it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ReviewMoment {
    pub ply: usize,
    pub label: String,
    pub by: String,
    pub class: MoveClass,
    /// Win-chance points the mover lost (negative).
    pub delta: f64,
    pub comment: String,
    pub better: Option<BetterMove>,
    /// The moment rests on the quick evaluation only (the comment says so).
    pub quick_only: bool,
}

/// What a review is built from.
pub struct ReviewParts<'a> {
    pub game: &'a Game,
    pub odds: &'a [Option<MoveOdds>],
    pub user_is_white: bool,
    /// What the persona said after each ply.
    pub said: &'a [(usize, String)],
    /// The reflection, if it was written (an unclean stop may have lost it).
    pub reflection: Option<&'a Reflection>,
}

/// The moves, each with its figures and words.
pub fn reviewed_moves(p: &ReviewParts<'_>) -> Vec<ReviewedMove> {
    p.game
        .moves()
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let odds = p.odds.get(i).copied().flatten();
            ReviewedMove {
                ply: i + 1,
                label: p.game.move_label(i).unwrap_or_else(|| m.san.clone()),
                san: m.san.clone(),
                uci: m.uci.clone(),
                fen: m.fen_after.clone(),
                by: if m.mover.is_white() == p.user_is_white {
                    "player"
                } else {
                    "persona"
                },
                white_win: odds.map(|o| (o.white * 10.0).round() / 10.0),
                eval: odds.and_then(|o| o.eval),
                class: odds.map(|o| o.class),
                glyph: odds.and_then(|o| glyph(o.class)),
                deep: odds.is_some_and(|o| o.deep),
                said: p
                    .said
                    .iter()
                    .filter(|(ply, _)| *ply == i + 1)
                    .map(|(_, l)| l.clone())
                    .collect(),
            }
        })
        .collect()
}

/// The reflection's key moments, or, if none was written, the same choice
/// made from the stored odds; each with the better move and a comment.
pub fn review_moments(p: &ReviewParts<'_>, persona_name: &str) -> Vec<ReviewMoment> {
    let fallback;
    let moments: &[KeyMoment] = match p.reflection {
        Some(r) => &r.key_moments,
        None => {
            fallback = moments_from_odds(p);
            &fallback
        }
    };
    moments
        .iter()
        .map(|k| {
            let better = k.better.as_deref().and_then(|san| better_move(p.game, k.ply, san));
            ReviewMoment {
                ply: k.ply,
                label: k.move_label.clone(),
                by: k.by.clone(),
                class: k.class,
                delta: k.delta,
                comment: comment(k, better.as_ref(), persona_name),
                better,
                quick_only: k.quick_only,
            }
        })
        .collect()
}

pub fn glyph(class: MoveClass) -> Option<&'static str> {
    match class {
        MoveClass::Good => None,
        MoveClass::Inaccuracy => Some("?!"),
        MoveClass::Mistake => Some("?"),
        MoveClass::Blunder => Some("??"),
    }
}

fn moments_from_odds(p: &ReviewParts<'_>) -> Vec<KeyMoment> {
    turning_points(p.game.moves(), p.odds, p.user_is_white, |i| p.game.move_label(i))
}

/// `san` read in the position before ply `ply`, as UCI for the arrow.
fn better_move(game: &Game, ply: usize, san: &str) -> Option<BetterMove> {
    let before: Chess = match ply.checked_sub(2) {
        None => game.start_position().clone(),
        Some(i) => {
            let fen: shakmaty::fen::Fen = game.moves().get(i)?.fen_after.parse().ok()?;
            fen.into_position(shakmaty::CastlingMode::Standard).ok()?
        }
    };
    let m = san.parse::<San>().ok()?.to_move(&before).ok()?;
    Some(BetterMove {
        san: san.to_string(),
        uci: UciMove::from_standard(m).to_string(),
    })
}

/// The persona on one turning point, in the first person, and whether the
/// figure is only the quick evaluation's.
fn comment(k: &KeyMoment, better: Option<&BetterMove>, persona_name: &str) -> String {
    let mut text = verdict(k, better, persona_name);
    if k.quick_only {
        text.push_str(" (The quick evaluation's figure: the deeper one did not check this move.)");
    }
    text
}

fn verdict(k: &KeyMoment, better: Option<&BetterMove>, persona_name: &str) -> String {
    let lost = -k.delta.min(0.0);
    let what = match k.class {
        MoveClass::Blunder => "the blunder of the game",
        MoveClass::Mistake => "a real mistake",
        _ => "a small slip",
    };
    match (k.by.as_str(), better) {
        ("player", Some(b)) => format!(
            "{}: {what}, it cost you {lost:.0} points of your chances. {} was the move. Look for it next time we play.",
            k.san, b.san
        ),
        ("player", None) => format!("{}: {what}, it cost you {lost:.0} points of your chances.", k.san),
        _ => format!(
            "{}: my own {}, it gave you {lost:.0} points. Even {persona_name} has those days.",
            k.san,
            class_name(k.class)
        ),
    }
}

fn class_name(c: MoveClass) -> &'static str {
    match c {
        MoveClass::Blunder => "blunder",
        MoveClass::Mistake => "mistake",
        _ => "inaccuracy",
    }
}
