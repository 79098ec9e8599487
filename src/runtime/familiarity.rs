//! How well each persona knows a player, as the club shows it: brought up
//! to date with the games they ended together, now and after each game.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Runtime, RuntimeError};
use crate::familiarity::{Familiarity, Stage};
use crate::ids::{MatchId, PersonaId, PlayerId};

/// `GET /api/players/{id}`: the player, and how well each persona knows them.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PlayerProfile {
    pub id: PlayerId,
    pub name: String,
    pub created_at: DateTime<Utc>,
    /// One per persona of the club, the best known first.
    pub familiarity: Vec<PersonaFamiliarity>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct PersonaFamiliarity {
    pub persona_id: PersonaId,
    pub persona_name: String,
    /// Now: the stage, the points (faded by the time apart), games together.
    pub now: Familiarity,
    /// The points and stage after each game together, oldest first.
    pub history: Vec<StageStep>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct StageStep {
    pub match_id: MatchId,
    pub played_at: DateTime<Utc>,
    pub finished: bool,
    pub points: f64,
    pub stage: Stage,
}

impl Runtime {
    pub async fn player_profile(&self, id: PlayerId) -> Result<PlayerProfile, RuntimeError> {
        let player = self.player(id).await?;
        let mut familiarity = Vec::new();
        for persona in self.svc.personas.list() {
            let history = self
                .svc
                .records()
                .familiarity_history(id, &player.name, &persona.id)
                .await?;
            let thresholds = &persona.familiarity;
            familiarity.push(PersonaFamiliarity {
                persona_id: persona.id.clone(),
                persona_name: persona.name.clone(),
                now: Familiarity::of(&history, thresholds, Utc::now()),
                history: history
                    .iter()
                    .map(|e| StageStep {
                        match_id: e.game.match_id,
                        played_at: e.game.played_at,
                        finished: e.game.finished,
                        points: (e.points * 100.0).round() / 100.0,
                        stage: thresholds.stage(e.points),
                    })
                    .collect(),
            });
        }
        familiarity.sort_by(|a, b| b.now.points.total_cmp(&a.now.points));
        Ok(PlayerProfile {
            id,
            name: player.name,
            created_at: player.created_at,
            familiarity,
        })
    }
}
