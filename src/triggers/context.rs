//! The game context: match metadata, game state, match history
//! and the time, as facts the agents can rely on.

use chrono::{DateTime, Utc};
use serde::Serialize;
use shakmaty::Color;

use crate::chess::notation::role_name;
use crate::chess::odds::MoveOdds;
use crate::chess::openings::{self, Opening};
use crate::chess::{Game, GameEnd, PlayedMove};
use crate::familiarity::Familiarity;
use crate::ids::{MatchId, PersonaId, PlayerId};
use crate::memory::PositionTag;
use crate::memory::strength::LiveBoard;
use crate::rating::Progress;

/// One move, told from the match's point of view.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MoveFact {
    pub ply: usize,
    pub san: String,
    pub uci: String,
    pub by_user: bool,
    /// The captured piece's name, if any.
    pub captured: Option<String>,
    pub check: bool,
    /// The engine's verdict, when the move was evaluated in time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub odds: Option<MoveOdds>,
    /// The position it was played in (empty where unknown): the board
    /// tools read why it was played from it.
    #[serde(skip)]
    pub fen_before: String,
}

impl MoveFact {
    pub fn new(ply: usize, m: &PlayedMove, user_color: Color) -> MoveFact {
        MoveFact {
            ply,
            san: m.san.clone(),
            uci: m.uci.clone(),
            by_user: m.mover == user_color,
            captured: m.capture.map(|r| role_name(r).to_string()),
            check: m.check,
            odds: None,
            fen_before: String::new(),
        }
    }

    /// The same, with the position it was played in.
    pub fn played_in(self, fen_before: String) -> MoveFact {
        MoveFact { fen_before, ..self }
    }
}

/// Earlier finished matches between this player and persona.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct MatchHistory {
    pub played: u32,
    pub user_wins: u32,
    pub user_losses: u32,
    pub draws: u32,
    /// "user_won", "user_lost" or "drew", with how many in a row.
    pub streak: Option<(String, u32)>,
    /// The families the player chose in their latest games with this
    /// match's colour, most often first.
    pub usual_openings: Vec<UsualOpening>,
    /// The latest of those games.
    pub last_game: Option<LastGame>,
    /// The player's rating, and the strength the persona plays at.
    pub rating: Standing,
    /// How well the persona knows the player (this game counted once it ended).
    pub familiarity: Familiarity,
    /// How many of those games ended on the (UTC) day the latest did, if
    /// that is today: the second game of a day is told as such, not in the
    /// first one's very words.
    pub played_today: u32,
}

/// The player's rating as the persona may speak of it (computed facts,
/// `rating::progress`), and how strong the persona plays in this match.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Standing {
    /// None before the player's first rated game.
    pub progress: Option<Progress>,
    /// What this match did to the rating, once it was rated.
    pub this_match: Option<f64>,
    /// The strength the persona adapted to for this player (the match is
    /// not rated), and its card's own.
    pub adapted: Option<Adapted>,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Adapted {
    pub plays_at: u32,
    pub card_elo: u32,
    /// The player's rating it was adapted to (1500 for a newcomer).
    pub player_rating: f64,
}

/// The player's latest finished game with this persona.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LastGame {
    pub user_color: String,
    /// The named opening it passed through, from the start position only.
    pub opening: Option<String>,
    /// Some(true): the player won; None: a draw.
    pub user_won: Option<bool>,
    /// "checkmate", "resignation", ...
    pub termination: String,
    /// Full moves played.
    pub moves: usize,
}

/// An opening family the player chose in `games` of their last `of` games
/// (from the start position) with one colour.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UsualOpening {
    pub family: String,
    pub games: u32,
    pub of: u32,
}

impl UsualOpening {
    /// Counts the family chosen in each game (none: the player chose none
    /// the book names), most often first, ties by the latest game.
    pub fn count(chosen: &[Option<String>]) -> Vec<UsualOpening> {
        let mut counted: Vec<UsualOpening> = Vec::new();
        for family in chosen.iter().flatten() {
            match counted.iter_mut().find(|u| &u.family == family) {
                Some(u) => u.games += 1,
                None => counted.push(UsualOpening {
                    family: family.clone(),
                    games: 1,
                    of: chosen.len() as u32,
                }),
            }
        }
        // Stable: among equals, the one met first (the latest game) leads.
        counted.sort_by_key(|u| std::cmp::Reverse(u.games));
        counted
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct GameContext {
    pub match_id: MatchId,
    pub player_id: PlayerId,
    pub player_name: String,
    pub persona_id: PersonaId,
    pub persona_elo: u32,
    pub user_color: &'static str,
    pub started_at: DateTime<Utc>,
    pub now: DateTime<Utc>,
    pub fen: String,
    /// The position before the last move (the start, before any).
    #[serde(skip)]
    pub fen_before_last: String,
    pub move_count: usize,
    pub last_moves: Vec<MoveFact>,
    /// The move the persona is about to play (`before_agent_move` only).
    pub planned_move: Option<MoveFact>,
    /// Material in pawns from the persona's side.
    pub persona_material: i32,
    pub end: Option<EndFact>,
    pub history: MatchHistory,
    /// The first moves in numbered SAN.
    pub opening: String,
    /// Whether the game began at the standard start: only then were its
    /// first moves an opening the player chose.
    pub standard_start: bool,
    /// The named opening the game passed through, if any.
    pub opening_name: Option<Opening>,
    /// Zobrist hash of the current position (16 hex digits); None at the
    /// standard start, which says nothing about this game.
    pub position_key: Option<String>,
    /// The player's local weekday and time, when their client gave its offset.
    pub player_local_time: Option<String>,
    /// How long the player thought over their last move, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_think_secs: Option<f64>,
    /// What the persona said in this match so far, oldest first (the
    /// latest `SAID_KEPT`): a line is not said twice while others remain.
    #[serde(skip)]
    pub said: std::sync::Arc<Vec<String>>,
    /// How much the player wants the persona to talk.
    pub talk: super::TalkMode,
}

/// How many of the persona's latest messages a match keeps to avoid repeats.
pub const SAID_KEPT: usize = 64;

#[derive(Debug, Clone, Serialize)]
pub struct EndFact {
    pub result: &'static str,
    pub termination: &'static str,
    /// Some(true) if the user won, Some(false) if the persona won.
    pub user_won: Option<bool>,
}

impl EndFact {
    pub fn new(end: GameEnd, user_color: Color) -> EndFact {
        EndFact {
            result: end.result(),
            termination: end.termination(),
            user_won: end.winner().map(|w| w == user_color),
        }
    }
}

const LAST_MOVES: usize = 8;
const OPENING_PLIES: usize = 8;

/// Everything but the per-match identity, which the runtime fills in.
pub struct ContextParts<'a> {
    pub match_id: MatchId,
    pub player_id: PlayerId,
    pub player_name: &'a str,
    pub persona_id: &'a PersonaId,
    pub persona_elo: u32,
    pub user_color: Color,
    pub started_at: DateTime<Utc>,
    pub history: &'a MatchHistory,
    /// Per ply (may be shorter than the game).
    pub odds: &'a [Option<MoveOdds>],
}

impl GameContext {
    pub fn build(parts: ContextParts<'_>, game: &Game) -> GameContext {
        let moves = game.moves();
        let first = moves.len().saturating_sub(LAST_MOVES);
        GameContext {
            match_id: parts.match_id,
            player_id: parts.player_id,
            player_name: parts.player_name.to_string(),
            persona_id: parts.persona_id.clone(),
            persona_elo: parts.persona_elo,
            user_color: if parts.user_color.is_white() { "white" } else { "black" },
            started_at: parts.started_at,
            now: Utc::now(),
            fen: game.fen(),
            fen_before_last: match moves.len() {
                0 | 1 => game.start_fen().to_string(),
                n => moves[n - 2].fen_after.clone(),
            },
            move_count: moves.len(),
            last_moves: moves[first..]
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let before = match first + i {
                        0 => game.start_fen().to_string(),
                        k => moves[k - 1].fen_after.clone(),
                    };
                    MoveFact {
                        odds: parts.odds.get(first + i).copied().flatten(),
                        ..MoveFact::new(first + i + 1, m, parts.user_color).played_in(before)
                    }
                })
                .collect(),
            planned_move: None,
            persona_material: game.material_balance(!parts.user_color),
            end: game.end().map(|e| EndFact::new(e, parts.user_color)),
            history: parts.history.clone(),
            opening: opening_line(game),
            standard_start: game.is_standard_start(),
            opening_name: openings::book().classify(game).cloned(),
            position_key: (!moves.is_empty() || !game.is_standard_start())
                .then(|| openings::position_key(game.position())),
            player_local_time: None,
            said: Default::default(),
            talk: Default::default(),
            user_think_secs: None,
        }
    }

    /// Where the game stands, as stored with a memory made now.
    pub fn position_tag(&self) -> Option<PositionTag> {
        Some(PositionTag {
            key: self.position_key.clone()?,
            eco: self.opening_name.as_ref().map(|o| o.eco.clone()),
            opening: self.opening_name.as_ref().map(|o| o.name.clone()),
        })
    }

    /// The same, as the subconscious compares it with stored memories.
    pub fn live_board(&self) -> LiveBoard {
        LiveBoard {
            position_key: self.position_key.clone(),
            eco: self.opening_name.as_ref().map(|o| o.eco.clone()),
            opening: self.opening_name.as_ref().map(|o| o.name.clone()),
        }
    }

    pub fn last_move(&self) -> Option<&MoveFact> {
        self.last_moves.last()
    }
}

/// The first moves in numbered SAN, e.g. "1. e4 c5 2. Nf3 d6".
fn opening_line(game: &Game) -> String {
    let black_first = game.start_fen().split(' ').nth(1) == Some("b");
    let mut text = String::new();
    for (i, m) in game.moves().iter().take(OPENING_PLIES).enumerate() {
        let ply = i + usize::from(black_first);
        if ply % 2 == 0 {
            text.push_str(&format!("{}. ", ply / 2 + 1));
        } else if i == 0 {
            text.push_str("1... ");
        }
        text.push_str(&m.san);
        text.push(' ');
    }
    text.trim_end().to_string()
}

impl MatchHistory {
    /// From finished results seen from the user's side, newest first.
    pub fn from_results(user_results: &[Option<bool>]) -> MatchHistory {
        let label = |r: &Option<bool>| match r {
            Some(true) => "user_won",
            Some(false) => "user_lost",
            None => "drew",
        };
        let streak = user_results.first().map(|first| {
            let n = user_results.iter().take_while(|r| *r == first).count() as u32;
            (label(first).to_string(), n)
        });
        MatchHistory {
            played: user_results.len() as u32,
            user_wins: user_results.iter().filter(|r| **r == Some(true)).count() as u32,
            user_losses: user_results.iter().filter(|r| **r == Some(false)).count() as u32,
            draws: user_results.iter().filter(|r| r.is_none()).count() as u32,
            streak,
            usual_openings: Vec::new(),
            last_game: None,
            rating: Standing::default(),
            familiarity: Familiarity::default(),
            played_today: 0,
        }
    }
}

/// A context for tests: Ann (White) against Pip after `sans`, with `odds` per ply.
#[cfg(test)]
pub fn test_context(sans: &[&str], odds: &[Option<MoveOdds>]) -> GameContext {
    let mut game = Game::new(None).unwrap();
    for san in sans {
        let mv = game.parse(san).unwrap();
        game.play(mv);
    }
    let history = MatchHistory::default();
    let parts = ContextParts {
        match_id: MatchId::new(),
        player_id: PlayerId::new(),
        player_name: "Ann",
        persona_id: &"pip".into(),
        persona_elo: 1200,
        user_color: Color::White,
        started_at: Utc::now(),
        history: &history,
        odds,
    };
    GameContext::build(parts, &game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_openings_are_counted_most_often_first() {
        let chosen = |f: &[Option<&str>]| f.iter().map(|o| o.map(String::from)).collect::<Vec<_>>();
        let usual = UsualOpening::count(&chosen(&[
            Some("French Defense"),
            Some("Sicilian Defense"),
            None,
            Some("Sicilian Defense"),
        ]));
        let seen: Vec<(&str, u32, u32)> = usual.iter().map(|u| (u.family.as_str(), u.games, u.of)).collect();
        assert_eq!(seen, [("Sicilian Defense", 2, 4), ("French Defense", 1, 4)]);
        assert!(UsualOpening::count(&[]).is_empty());
    }

    #[test]
    fn streak_counts_the_newest_run() {
        let h = MatchHistory::from_results(&[Some(false), Some(false), Some(true), None]);
        assert_eq!((h.played, h.user_wins, h.user_losses, h.draws), (4, 1, 2, 1));
        assert_eq!(h.streak, Some(("user_lost".to_string(), 2)));
        assert_eq!(MatchHistory::from_results(&[]).streak, None);
    }

    #[test]
    fn opening_line_numbers_moves() {
        let mut game = Game::new(None).unwrap();
        for m in ["e4", "c5", "Nf3"] {
            let mv = game.parse(m).unwrap();
            game.play(mv);
        }
        assert_eq!(opening_line(&game), "1. e4 c5 2. Nf3");
    }
}
