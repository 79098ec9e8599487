//! The review page's data for a finished match (`reflection::review` lays
//! it out): read from the store alone, so a benchmark can time the very
//! work the route does.

use super::review::persona_lines;
use super::{Runtime, RuntimeError, color_of, stored_game};
use crate::ids::{MatchId, PersonaId};
use crate::reflection::DeepChecked;
use crate::reflection::review::{GameReview, ReviewParts, review_moments, reviewed_moves};
use crate::store::{Db, MatchStatus};

impl Runtime {
    /// The finished match laid out for the review page.
    pub async fn review(&self, id: MatchId) -> Result<GameReview, RuntimeError> {
        let named = |persona: &PersonaId| {
            self.svc
                .persona(persona)
                .map_or(persona.to_string(), |p| p.name.clone())
        };
        game_review(&self.svc.db, id, named).await
    }
}

/// The review of match `id`; `persona_name` names its persona.
pub async fn game_review(
    db: &Db,
    id: MatchId,
    persona_name: impl Fn(&PersonaId) -> String,
) -> Result<GameReview, RuntimeError> {
    let (row, game, odds) = stored_game(db, id).await?;
    if row.status != MatchStatus::Finished {
        return Err(RuntimeError::NotOver);
    }
    let persona_name = persona_name(&row.persona_id);
    let persona_name = persona_name.as_str();
    let player = db
        .player(row.player_id)
        .await?
        .ok_or_else(|| RuntimeError::NotFound(format!("player {}", row.player_id)))?;
    let reflection = db.reflection(id).await?;
    let said = persona_lines(db, id, &game).await?;
    let user_is_white = color_of(&row).is_white();
    let parts = ReviewParts {
        game: &game,
        odds: &odds,
        user_is_white,
        said: &said,
        reflection: reflection.as_ref(),
    };
    let (moves, key_moments) = (reviewed_moves(&parts), review_moments(&parts, persona_name));
    let puzzles = db
        .puzzles_of(row.player_id, Some(&row.persona_id))
        .await?
        .into_iter()
        .filter(|p| p.match_id == id)
        .collect();
    let (white, black) = match user_is_white {
        true => (player.name, persona_name.to_string()),
        false => (persona_name.to_string(), player.name),
    };
    Ok(GameReview {
        match_id: id,
        persona_id: row.persona_id.clone(),
        persona_name: persona_name.to_string(),
        white,
        black,
        user_color: row.user_color.clone(),
        result: row.result.clone(),
        termination: row.termination.clone(),
        start_fen: game.start_fen().to_string(),
        moves,
        deep_checked: DeepChecked::of(&odds),
        key_moments,
        reflection,
        puzzles,
    })
}
