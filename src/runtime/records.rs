//! The player's records as they stand now: the rating and each persona's
//! familiarity, brought up to date with the games in SQL. Read by the
//! club's pages and by each match (its greeting and reflection speak of
//! them); the cards' strengths come from the roster, which an import changes.

use std::sync::Arc;

use chrono::Utc;

use crate::familiarity::{self, Familiarity};
use crate::ids::{PersonaId, PlayerId};
use crate::personas::{Persona, Roster};
use crate::rating::{self, ledger};
use crate::store::{Db, StoreResult};

#[derive(Clone)]
pub struct Records {
    db: Db,
    roster: Arc<Roster>,
}

impl Records {
    pub fn new(db: Db, roster: Arc<Roster>) -> Records {
        Records { db, roster }
    }

    /// The player's rating history, brought up to date with their games.
    pub async fn rating_history(&self, player: PlayerId) -> StoreResult<Vec<rating::Entry>> {
        let card_elo = |id: &str| self.card_elo(id);
        ledger::update(&self.db, player, &card_elo).await
    }

    /// The strength `persona` plays this player at when asked to adapt.
    pub async fn adapted_strength(&self, player: PlayerId, persona: &Persona) -> StoreResult<u32> {
        let standing = rating::current(&self.rating_history(player).await?);
        Ok(rating::adapted_strength(standing, persona.elo))
    }

    /// The strength a persona's card gives it now (None: no such persona).
    pub fn card_elo(&self, persona: &str) -> Option<u32> {
        self.roster.get(persona).map(|p| p.elo)
    }

    /// The history of `player` (named `name`) with `persona`, brought up to date.
    pub async fn familiarity_history(
        &self,
        player: PlayerId,
        name: &str,
        persona: &PersonaId,
    ) -> StoreResult<Vec<familiarity::Entry>> {
        familiarity::ledger::update(&self.db, player, name, persona).await
    }

    /// How well `persona` knows the player now.
    pub async fn familiarity(&self, player: PlayerId, name: &str, persona: &Persona) -> StoreResult<Familiarity> {
        let history = self.familiarity_history(player, name, &persona.id).await?;
        Ok(Familiarity::of(&history, &persona.familiarity, Utc::now()))
    }
}
