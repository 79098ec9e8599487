//! Opening a match: the player's unfinished one against the persona, or a
//! new one (its colour, start position and strength as asked, within the
//! player's cap on live matches and the engine's admission), stored, held
//! under this node's lease and seated in its actor.

use rand::Rng;

use super::{Opened, Outcome, Runtime, RuntimeError};
use crate::chess::Game;
use crate::ids::{MatchId, PlayerId};
use crate::store::NewMatch;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ColorChoice {
    White,
    Black,
    Random,
}

/// What a player asks for when a match is opened.
#[derive(Debug, Clone, Copy)]
pub struct MatchRequest<'a> {
    pub persona_id: &'a str,
    pub color: ColorChoice,
    /// A set start position (None: the initial one).
    pub fen: Option<&'a str>,
    /// Minutes east of UTC where the player is.
    pub utc_offset_minutes: Option<i32>,
    /// The persona plays at the player's own strength, within its card's
    /// range (`rating::adapted_strength`); the game is then not rated.
    pub adaptive: bool,
    /// Played on another site under its own limits (a Lichess game, bounded
    /// by the account's `max_games`): not held back by
    /// `limits.live_matches_per_player`, which would abort a game the
    /// player has already begun there.
    pub uncapped: bool,
}

impl<'a> MatchRequest<'a> {
    /// From the initial position, as White, the player's offset unknown.
    pub fn new(persona_id: &'a str) -> Self {
        MatchRequest {
            persona_id,
            color: ColorChoice::White,
            fen: None,
            utc_offset_minutes: None,
            adaptive: false,
            uncapped: false,
        }
    }
}

impl Runtime {
    /// A match to play against `persona_id`: the player's unfinished one
    /// against it, if there is one and no set position is asked for
    /// (`resumed`), else a new one, unless the player already holds
    /// `limits.live_matches_per_player` unfinished matches, or the engine
    /// is too far behind to take a new one (`admission.rs`).
    pub async fn open_match(&self, player_id: PlayerId, req: MatchRequest<'_>) -> Result<Opened, RuntimeError> {
        let db = &self.svc.db;
        if req.fen.is_none()
            && let Some(id) = db.active_match(player_id, &req.persona_id.into()).await?
        {
            let state = self.state(id).await?;
            let outcome = Outcome {
                events: Vec::new(),
                state,
            };
            return Ok(Opened { outcome, resumed: true });
        }
        let cap = self.svc.config.limits.live_matches_per_player;
        if cap > 0 && db.active_match_count(player_id).await? >= i64::from(cap) {
            return Err(RuntimeError::TooManyMatches { cap });
        }
        self.admit_new_match()?;
        let outcome = self.create_match(player_id, req).await?;
        Ok(Opened {
            outcome,
            resumed: false,
        })
    }

    pub async fn create_match(&self, player_id: PlayerId, req: MatchRequest<'_>) -> Result<Outcome, RuntimeError> {
        let MatchRequest {
            persona_id,
            color,
            fen,
            utc_offset_minutes,
            adaptive,
            uncapped,
        } = req;
        if let Some(m) = utc_offset_minutes.filter(|m| !(-720..=840).contains(m)) {
            return Err(RuntimeError::BadUtcOffset(m));
        }
        let persona = self
            .svc
            .persona(persona_id)
            .ok_or_else(|| RuntimeError::UnknownPersona(persona_id.chars().take(64).collect()))?;
        self.player(player_id).await?;
        let game = Game::new(fen).map_err(|e| RuntimeError::InvalidFen(e.to_string()))?;
        if game.end().is_some() {
            return Err(RuntimeError::InvalidFen(
                "the game is already over in that position".into(),
            ));
        }
        let persona_elo = match adaptive {
            true => self.svc.records().adapted_strength(player_id, &persona).await?,
            false => persona.elo,
        };
        let user_white = match color {
            ColorChoice::White => true,
            ColorChoice::Black => false,
            ColorChoice::Random => rand::thread_rng().r#gen(),
        };
        let new = NewMatch {
            id: MatchId::new(),
            player_id,
            persona_id: persona.id.clone(),
            user_color: if user_white { "white" } else { "black" },
            start_fen: game.start_fen().to_string(),
            emotion: persona.default_emotion().to_string(),
            utc_offset_minutes,
            persona_elo,
            adapted: adaptive,
            // A language model's moves have no calibrated strength (with no
            // model configured, such a persona plays with its engine).
            calibrated: persona.brain == crate::personas::BrainKind::Engine || self.svc.moves.llm.is_none(),
        };
        // Held before it exists: another node looking for matches nobody
        // holds must not find it between its row and its lease.
        let lease = match &self.svc.leases {
            Some(leases) => Some((leases, leases.claim(new.id).await?)),
            None => None,
        };
        // The cap is checked again as the row goes in: concurrent creations
        // all passed `open_match`'s look before any of them was stored.
        let cap = match uncapped {
            true => 0,
            false => self.svc.config.limits.live_matches_per_player,
        };
        let inserted = self.svc.db.insert_match_capped(&new, cap).await;
        if !matches!(inserted, Ok(Some(_))) {
            if let Some((leases, epoch)) = lease {
                leases.release(new.id, epoch).await;
            }
            return Err(match inserted {
                Err(e) => e.into(),
                _ => RuntimeError::TooManyMatches { cap },
            });
        }
        let (_, begun) = self.spawn(new.id, true).await?;
        let begun = begun.ok_or(RuntimeError::Unavailable)?;
        begun.await.map_err(|_| RuntimeError::GameOver)?
    }
}
