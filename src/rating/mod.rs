//! How strong a player is, from their games against personas of known
//! strength: a Glicko-2 rating per player (`glicko2.rs`), updated after
//! every rated game and kept with its history (`ledger.rs`, over SQL), which
//! personas promise a fair game (`pairing.rs`), and the facts of their
//! progress the persona may speak of (`progress.rs`).
//!
//! Each game is its own rating period (as on most chess servers), and the
//! time between two games grows the deviation by `IDLE_PERIOD_DAYS` periods.
//! A persona's rating is its card's Elo, which `kibitz calibrate` measured
//! within ±150 of its play; its deviation is that calibration's error.

pub mod glicko2;
pub mod ledger;
pub mod pairing;
pub mod progress;
mod rows;

use chrono::{DateTime, Utc};
use serde::Serialize;

pub use glicko2::Rating;
pub use pairing::{Pairing, adapted_strength, pairing};
pub use progress::Progress;

use crate::ids::{MatchId, PersonaId};

/// Where every player starts: the centre of the scale, as unsure as can be.
pub const START: Rating = Rating {
    rating: 1500.0,
    deviation: MAX_DEVIATION,
    volatility: 0.06,
};
/// The largest deviation: a player about whom nothing is known.
pub const MAX_DEVIATION: f64 = 350.0;
/// Glicko-2's system constant: how fast the volatility may change.
pub const TAU: f64 = 0.5;
/// A persona's deviation: the calibration's standard error (its 95%
/// margins were ±106 to ±132 over 60 games each).
pub const PERSONA_DEVIATION: f64 = 60.0;
/// How many idle days make one rating period without play.
pub const IDLE_PERIOD_DAYS: f64 = 30.0;
/// Below this many rated games a rating is provisional.
pub const PROVISIONAL_GAMES: usize = 5;

/// A finished game that counts for the player's rating: from the standard
/// start, played to a result, with the persona at its own strength.
#[derive(Debug, Clone, PartialEq)]
pub struct RatedGame {
    pub match_id: MatchId,
    pub persona_id: PersonaId,
    /// The persona's rating when the game was played.
    pub persona_rating: f64,
    /// The player's score: 1 a win, 0.5 a draw, 0 a loss.
    pub score: f64,
    pub played_at: DateTime<Utc>,
}

/// One step of a player's rating history: a game and the rating after it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[schema(as = RatingEntry)]
pub struct Entry {
    pub match_id: MatchId,
    pub persona_id: PersonaId,
    pub persona_rating: f64,
    pub score: f64,
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
    pub played_at: DateTime<Utc>,
}

impl Entry {
    pub fn standing(&self) -> Rating {
        Rating {
            rating: self.rating,
            deviation: self.deviation,
            volatility: self.volatility,
        }
    }
}

/// The player's score in a finished game, if it had a result.
pub fn score(result: &str, user_is_white: bool) -> Option<f64> {
    let white = match result {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" => 0.5,
        _ => return None,
    };
    Some(if user_is_white { white } else { 1.0 - white })
}

/// The rating after `game`, from the entry before it (None: the start).
pub fn step(before: Option<&Entry>, game: &RatedGame) -> Entry {
    let standing = match before {
        Some(entry) => {
            let idle_days = (game.played_at - entry.played_at).num_seconds().max(0) as f64 / 86_400.0;
            entry.standing().idle(idle_days / IDLE_PERIOD_DAYS, MAX_DEVIATION)
        }
        None => START,
    };
    let outcome = glicko2::Outcome {
        opponent: game.persona_rating,
        opponent_deviation: PERSONA_DEVIATION,
        score: game.score,
    };
    let after = standing.after(&[outcome], TAU);
    Entry {
        match_id: game.match_id,
        persona_id: game.persona_id.clone(),
        persona_rating: game.persona_rating,
        score: game.score,
        rating: after.rating,
        deviation: after.deviation.min(MAX_DEVIATION),
        volatility: after.volatility,
        played_at: game.played_at,
    }
}

/// The history `games` (in the order played) make, after `before`.
pub fn replay(before: Option<&Entry>, games: &[RatedGame]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::with_capacity(games.len());
    for game in games {
        let entry = step(entries.last().or(before), game);
        entries.push(entry);
    }
    entries
}

/// The player's standing now: the last entry's, or the start.
pub fn current(history: &[Entry]) -> Rating {
    history.last().map_or(START, Entry::standing)
}

/// A rating as a player reads it: "1,340".
pub fn figure(rating: f64) -> String {
    let n = rating.round() as i64;
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

#[cfg(test)]
mod tests;
pub use rows::FinishedGame;
