//! The player's rating in a match: brought up to date when the game ends
//! (a `rating` event says what the game did to it, or why it did not
//! count), and read as facts for the persona at the start and the end.

use super::{Events, MatchActor};
use crate::events::Rating;
use crate::rating::{self, Entry};
use crate::runtime::error::RuntimeError;
use crate::store::DomainWrite;
use crate::triggers::{Adapted, Standing};

impl MatchActor {
    /// After the end is stored and the history read back (which brought the
    /// rating up to date, `standing`): a `rating` event tells what the game
    /// did to it, or why it did not count.
    pub(super) async fn tell_rating(&mut self, events: &mut Events) -> Result<(), RuntimeError> {
        let standing = &self.history.rating;
        let tenths = |x: f64| Some((x * 10.0).round() / 10.0);
        let told = match (standing.this_match, &standing.progress) {
            (Some(change), Some(p)) => Rating {
                rated: true,
                rating: tenths(p.rating),
                deviation: tenths(p.deviation),
                change: tenths(change),
                rated_games: Some(p.games),
                why: None,
            },
            _ => Rating {
                rated: false,
                rating: None,
                deviation: None,
                change: None,
                rated_games: None,
                why: Some(self.why_unrated().to_string()),
            },
        };
        events.push(self.emitter.emit(told, DomainWrite::Nothing).await?);
        Ok(())
    }

    /// Why a finished game with a result was not rated: adapted, from a
    /// set position, or its moves were not the calibrated engine's.
    fn why_unrated(&self) -> &'static str {
        if self.history.rating.adapted.is_some() {
            "the persona adapted its strength to yours"
        } else if !self.table.game().is_standard_start() {
            "the game began from a set position"
        } else if self.persona.brain != crate::personas::BrainKind::Engine {
            "a language model chose the persona's moves, of no calibrated strength"
        } else {
            // The rating could not be read (a warning says why).
            "the rating could not be brought up to date; it will be with your next game"
        }
    }

    /// The player's rating and this match's strength, as facts.
    pub(super) async fn standing(&self) -> Result<Standing, RuntimeError> {
        let history = self.node.records.rating_history(self.player.id).await?;
        let row = self.node.db.match_row(self.id).await?;
        let card_elo = self.node.records.card_elo(&self.persona.id).unwrap_or(self.persona.elo);
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
