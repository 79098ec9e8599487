//! What a player set for a persona's talk, and the notes on a game (its
//! hints) for the PGN. Both are written with their event by the journal.

use sqlx::Row;

use super::{Db, StoreResult};
use crate::ids::{MatchId, PersonaId, PlayerId};

/// A note on a game: before move `ply` (0-based), of `kind`, saying `text`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MatchNote {
    pub ply: usize,
    pub kind: String,
    pub text: String,
}

impl MatchNote {
    pub fn is(&self, kind: NoteKind) -> bool {
        self.kind == kind.as_str()
    }
}

/// A note's kind: a hint asked for, or a takeback granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter, strum::EnumString)]
#[strum(serialize_all = "snake_case")]
pub enum NoteKind {
    Hint,
    Takeback,
}

impl NoteKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl Db {
    /// The name of the talk mode the player asked of `persona` (None: they
    /// never asked); `runtime::talk_mode` reads it as a `TalkMode`.
    pub async fn talk_preference(&self, player: PlayerId, persona: &PersonaId) -> StoreResult<Option<String>> {
        let row = sqlx::query("SELECT mode FROM talk_preferences WHERE player_id = $1 AND persona_id = $2")
            .bind(player.to_string())
            .bind(persona)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.get("mode")))
    }

    /// A game's notes, in the order they were made.
    pub async fn match_notes(&self, id: MatchId) -> StoreResult<Vec<MatchNote>> {
        let rows = sqlx::query("SELECT ply, kind, text FROM match_notes WHERE match_id = $1 ORDER BY id")
            .bind(id.to_string())
            .fetch_all(&self.pool)
            .await?;
        Ok(rows
            .iter()
            .map(|r| MatchNote {
                ply: r.get::<i64, _>("ply").max(0) as usize,
                kind: r.get("kind"),
                text: r.get("text"),
            })
            .collect())
    }
}
