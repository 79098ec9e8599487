//! The player's rating in a match: brought up to date when the game ends
//! (a `rating` event says what the game did to it, or why it did not
//! count), and read as facts for the persona at the start and the end.

use serde_json::json;

use super::{Events, MatchActor};
use crate::rating::{self, Entry};
use crate::runtime::error::RuntimeError;
use crate::store::DomainWrite;
use crate::triggers::{Adapted, Standing};

impl MatchActor {
    /// After the end is stored: the rating brought up to date, and told.
    pub(super) async fn rate(&mut self, events: &mut Events) -> Result<(), RuntimeError> {
        let history = self.svc.rating_history(self.player.id).await?;
        let data = match history.iter().position(|e| e.match_id == self.id) {
            Some(i) => rated_event(&history[..=i]),
            None => json!({ "rated": false, "why": self.why_unrated().await? }),
        };
        events.push(self.emitter.emit("rating", data, DomainWrite::Nothing).await?);
        Ok(())
    }

    async fn why_unrated(&self) -> Result<&'static str, RuntimeError> {
        let row = self.svc.db.match_row(self.id).await?;
        Ok(match row {
            Some(row) if row.adapted => "the persona adapted its strength to yours",
            Some(row) if !row.calibrated => "a language model chose the persona's moves, of no calibrated strength",
            _ if !self.game.is_standard_start() => "the game began from a set position",
            _ => "the game had no result",
        })
    }

    /// The player's rating and this match's strength, as facts.
    pub(super) async fn standing(&self) -> Result<Standing, RuntimeError> {
        let history = self.svc.rating_history(self.player.id).await?;
        let row = self.svc.db.match_row(self.id).await?;
        let card_elo = self.svc.persona(&self.persona.id).map_or(self.persona.elo, |p| p.elo);
        let adapted = row.filter(|r| r.adapted).map(|r| Adapted {
            plays_at: r.persona_elo.unwrap_or(card_elo),
            card_elo,
            player_rating: rating::current(&history).rating,
        });
        let this_match = history
            .iter()
            .position(|e| e.match_id == self.id)
            .map(|i| change_at(&history[..=i]));
        Ok(Standing {
            progress: rating::progress::progress(&history, chrono::Utc::now()),
            this_match,
            adapted,
        })
    }
}

/// What the last game of `history` changed.
fn change_at(history: &[Entry]) -> f64 {
    let before = match history.len() {
        0 | 1 => rating::START.rating,
        n => history[n - 2].rating,
    };
    history.last().map_or(0.0, |e| e.rating - before)
}

fn rated_event(history: &[Entry]) -> serde_json::Value {
    let last = history.last().expect("a rated game");
    json!({
        "rated": true,
        "rating": (last.rating * 10.0).round() / 10.0,
        "deviation": (last.deviation * 10.0).round() / 10.0,
        "change": (change_at(history) * 10.0).round() / 10.0,
        "rated_games": history.len(),
    })
}
