//! Puzzles as the store keeps them: one row a mistake, with its history of
//! answers.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Found, SOLVED_TO_RETIRE};
use crate::chess::odds::MoveClass;
pub use crate::ids::PuzzleId;
use crate::ids::{MatchId, PersonaId, PlayerId};
use crate::store::{Db, StoreResult, parse_id, parse_ts, ts};

/// Where a puzzle stands.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, strum::EnumString, strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum PuzzleStatus {
    /// Not yet solved twice: it comes back.
    Open,
    /// Solved twice.
    Retired,
    /// The player asked never to see it again.
    Dismissed,
}

/// A kept puzzle.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct PuzzleRow {
    pub id: PuzzleId,
    pub player_id: PlayerId,
    #[schema(value_type = String)]
    pub persona_id: PersonaId,
    /// The match the mistake was made in, and its ply (1: the first move).
    pub match_id: MatchId,
    pub ply: i64,
    /// The position to solve, the player to move.
    pub fen: String,
    /// What they played there.
    pub played_san: String,
    pub class: MoveClass,
    /// The engine's better move (hidden from the player until answered).
    #[serde(skip)]
    pub solution_uci: String,
    #[serde(skip)]
    pub solution_san: String,
    /// Win% points the better move kept above the move played.
    pub gain: f64,
    pub solved: i64,
    pub failed: i64,
    pub status: PuzzleStatus,
    pub created_at: DateTime<Utc>,
    pub last_tried_at: Option<DateTime<Utc>>,
}

const COLUMNS: &str = "id, player_id, persona_id, match_id, ply, fen, played_san, class, solution_uci, \
                       solution_san, gain, solved, failed, status, created_at, last_tried_at";

impl Db {
    /// Keeps a game's puzzles (a mistake already kept is not kept twice).
    pub async fn save_puzzles(
        &self,
        (player, persona, game): (PlayerId, &PersonaId, MatchId),
        found: &[Found],
    ) -> StoreResult<()> {
        let now = ts(Utc::now());
        for f in found {
            let class: &str = match f.class {
                MoveClass::Blunder => "blunder",
                _ => "mistake",
            };
            sqlx::query(
                "INSERT INTO puzzles (id, player_id, persona_id, match_id, ply, fen, played_san, class, \
                 solution_uci, solution_san, gain, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (match_id, ply) DO NOTHING",
            )
            .bind(PuzzleId::new().to_string())
            .bind(player.to_string())
            .bind(persona.as_str())
            .bind(game.to_string())
            .bind(f.ply as i64)
            .bind(&f.fen)
            .bind(&f.played_san)
            .bind(class)
            .bind(&f.solution_uci)
            .bind(&f.solution_san)
            .bind(f.gain)
            .bind(&now)
            .execute(self.pool())
            .await?;
        }
        Ok(())
    }

    /// A player's puzzles with a persona (all of them with `persona` None),
    /// newest first.
    pub async fn puzzles_of(&self, player: PlayerId, persona: Option<&PersonaId>) -> StoreResult<Vec<PuzzleRow>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM puzzles WHERE player_id = $1 AND ($2 = '' OR persona_id = $2) \
             ORDER BY created_at DESC, ply"
        ))
        .bind(player.to_string())
        .bind(persona.map_or("", |p| p.as_str()))
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(puzzle_from_row).collect()
    }

    pub async fn puzzle(&self, id: PuzzleId) -> StoreResult<Option<PuzzleRow>> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM puzzles WHERE id = $1"))
            .bind(id.to_string())
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(puzzle_from_row).transpose()
    }

    /// Records an answer: solved `SOLVED_TO_RETIRE` times, it retires.
    /// Returns the puzzle as it now stands.
    pub async fn answer_puzzle(&self, id: PuzzleId, correct: bool) -> StoreResult<Option<PuzzleRow>> {
        let sql = match correct {
            true => format!(
                "UPDATE puzzles SET solved = solved + 1, last_tried_at = $2, \
                 status = CASE WHEN solved + 1 >= {SOLVED_TO_RETIRE} AND status = 'open' THEN 'retired' ELSE status END \
                 WHERE id = $1"
            ),
            false => "UPDATE puzzles SET failed = failed + 1, last_tried_at = $2 WHERE id = $1".to_string(),
        };
        sqlx::query(&sql)
            .bind(id.to_string())
            .bind(ts(Utc::now()))
            .execute(self.pool())
            .await?;
        self.puzzle(id).await
    }

    /// The player asked never to see this puzzle again.
    pub async fn dismiss_puzzle(&self, id: PuzzleId) -> StoreResult<()> {
        sqlx::query("UPDATE puzzles SET status = 'dismissed' WHERE id = $1")
            .bind(id.to_string())
            .execute(self.pool())
            .await?;
        Ok(())
    }
}

fn puzzle_from_row(r: &AnyRow) -> StoreResult<PuzzleRow> {
    let text = |column: &str| -> StoreResult<String> { Ok(r.try_get::<String, _>(column)?) };
    let class: String = r.try_get("class")?;
    let status: String = r.try_get("status")?;
    let tried: Option<String> = r.try_get("last_tried_at")?;
    let persona: String = r.try_get("persona_id")?;
    Ok(PuzzleRow {
        id: parse_id("puzzles", &text("id")?)?,
        player_id: parse_id("puzzles", &text("player_id")?)?,
        persona_id: PersonaId::from(persona),
        match_id: parse_id("puzzles", &text("match_id")?)?,
        ply: r.try_get("ply")?,
        fen: r.try_get("fen")?,
        played_san: r.try_get("played_san")?,
        class: if class == "blunder" {
            MoveClass::Blunder
        } else {
            MoveClass::Mistake
        },
        solution_uci: r.try_get("solution_uci")?,
        solution_san: r.try_get("solution_san")?,
        gain: r.try_get("gain")?,
        solved: r.try_get("solved")?,
        failed: r.try_get("failed")?,
        status: status.parse().map_err(|_| crate::store::StoreError::Corrupt {
            table: "puzzles",
            detail: format!("status {status}"),
        })?,
        created_at: parse_ts("puzzles", &text("created_at")?)?,
        last_tried_at: tried.as_deref().map(|t| parse_ts("puzzles", t)).transpose()?,
    })
}
