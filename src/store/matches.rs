use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, StoreError, StoreResult, parse_id, parse_ts, ts};
use crate::chess::odds::{Eval, MoveClass, MoveOdds};
use crate::ids::{MatchId, PersonaId, PlayerId};

pub struct NewMatch {
    pub id: MatchId,
    pub player_id: PlayerId,
    pub persona_id: PersonaId,
    pub user_color: &'static str,
    pub start_fen: String,
    pub emotion: String,
    /// The player's UTC offset, as their client reported it.
    pub utc_offset_minutes: Option<i32>,
    /// The strength the persona plays at (its card's Elo, or adapted).
    pub persona_elo: u32,
    /// The persona adapted its strength to the player: not rated.
    pub adapted: bool,
    /// Its moves come from its calibrated engine (not a language model).
    pub calibrated: bool,
}

/// Where a match stands: being played, or over (with a result, or
/// abandoned). SQL keeps its name (`status`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum MatchStatus {
    Active,
    Finished,
}

impl MatchStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone)]
pub struct MatchRow {
    pub id: MatchId,
    pub player_id: PlayerId,
    pub persona_id: PersonaId,
    pub user_color: String,
    pub start_fen: String,
    pub status: MatchStatus,
    pub result: Option<String>,
    pub termination: Option<String>,
    pub emotion: String,
    pub draw_offer: Option<String>,
    pub created_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub utc_offset_minutes: Option<i32>,
    /// The strength the persona played at (none for matches from before
    /// ratings: their persona's card Elo).
    pub persona_elo: Option<u32>,
    /// The persona adapted its strength to the player: not rated.
    pub adapted: bool,
    /// Its moves came from its calibrated engine; a language model's are
    /// of no known strength: not rated.
    pub calibrated: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct MoveRow {
    pub ply: i64,
    pub uci: String,
    pub san: String,
    pub side: String,
    pub fen_after: String,
    pub win_pct_white: Option<f64>,
    /// What the move changed for its player, in win% points.
    pub win_pct_delta: Option<f64>,
    /// The engine's score after it, from White's side.
    pub eval: Option<Eval>,
    /// How long its side took over it (none for moves stored before).
    pub think_ms: Option<i64>,
    /// Whether the deeper evaluation checked its odds.
    pub odds_deep: bool,
    pub created_at: DateTime<Utc>,
}

impl MoveRow {
    pub fn odds(&self) -> Option<MoveOdds> {
        let (white, delta) = (self.win_pct_white?, self.win_pct_delta?);
        Some(MoveOdds {
            white,
            delta,
            class: MoveClass::from_delta(delta),
            eval: self.eval,
            deep: self.odds_deep,
        })
    }
}

/// The statement that makes a match's row.
fn insert_query(m: &NewMatch) -> sqlx::query::Query<'_, sqlx::Any, sqlx::any::AnyArguments<'_>> {
    sqlx::query(
        "INSERT INTO matches (id, player_id, persona_id, user_color, start_fen, status, emotion, created_at, \
         utc_offset_minutes, persona_elo, adapted, calibrated) \
         VALUES ($1, $2, $3, $4, $5, 'active', $6, $7, $8, $9, $10, $11)",
    )
    .bind(m.id.to_string())
    .bind(m.player_id.to_string())
    .bind(&m.persona_id)
    .bind(m.user_color)
    .bind(&m.start_fen)
    .bind(&m.emotion)
    .bind(ts(Utc::now()))
    .bind(m.utc_offset_minutes)
    .bind(i64::from(m.persona_elo))
    .bind(i64::from(m.adapted))
    .bind(i64::from(m.calibrated))
}

const MATCH_COLUMNS: &str = "id, player_id, persona_id, user_color, start_fen, status, result, termination, \
                             emotion, draw_offer, created_at, ended_at, utc_offset_minutes, persona_elo, adapted, \
                             calibrated";

impl Db {
    pub async fn insert_match(&self, m: &NewMatch) -> StoreResult<MatchRow> {
        insert_query(m).execute(&self.pool).await?;
        Ok(self.match_row(m.id).await?.expect("row just inserted"))
    }

    /// Inserts `m` unless its player already holds `cap` unfinished
    /// matches (0: no cap); None if they do. One step however many
    /// creations race: on PostgreSQL the player's row is locked before the
    /// count, so each waits for the one before to commit; SQLite's one
    /// connection runs one transaction at a time.
    pub async fn insert_match_capped(&self, m: &NewMatch, cap: u32) -> StoreResult<Option<MatchRow>> {
        let mut tx = self.pool.begin().await?;
        if self.backend == super::Backend::Postgres {
            sqlx::query("SELECT id FROM players WHERE id = $1 FOR UPDATE")
                .bind(m.player_id.to_string())
                .fetch_optional(&mut *tx)
                .await?;
        }
        if cap > 0 {
            let row = sqlx::query("SELECT COUNT(*) AS n FROM matches WHERE player_id = $1 AND status = 'active'")
                .bind(m.player_id.to_string())
                .fetch_one(&mut *tx)
                .await?;
            if row.get::<i64, _>("n") >= i64::from(cap) {
                tx.rollback().await?;
                return Ok(None);
            }
        }
        insert_query(m).execute(&mut *tx).await?;
        tx.commit().await?;
        Ok(Some(self.match_row(m.id).await?.expect("row just inserted")))
    }

    pub async fn match_row(&self, id: MatchId) -> StoreResult<Option<MatchRow>> {
        let row = sqlx::query(&format!("SELECT {MATCH_COLUMNS} FROM matches WHERE id = $1"))
            .bind(id.to_string())
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| match_from_row(&r)).transpose()
    }

    /// A player's matches, newest first.
    pub async fn matches_of(&self, player: PlayerId, limit: i64) -> StoreResult<Vec<MatchRow>> {
        let rows = sqlx::query(&format!(
            "SELECT {MATCH_COLUMNS} FROM matches WHERE player_id = $1 ORDER BY created_at DESC LIMIT $2"
        ))
        .bind(player.to_string())
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(match_from_row).collect()
    }

    pub async fn active_match_ids(&self) -> StoreResult<Vec<MatchId>> {
        let rows = sqlx::query("SELECT id FROM matches WHERE status = 'active' ORDER BY created_at")
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(|r| parse_id("matches", r.get("id"))).collect()
    }

    /// Unfinished matches begun before `cutoff` in which the player has
    /// neither moved nor written since. A game played on Lichess is left to
    /// Lichess, whose clocks and aborts end it.
    pub async fn untouched_since(&self, cutoff: DateTime<Utc>) -> StoreResult<Vec<MatchId>> {
        let rows = sqlx::query(
            "SELECT m.id FROM matches m WHERE m.status = 'active' AND m.created_at < $1 \
             AND NOT EXISTS (SELECT 1 FROM moves v WHERE v.match_id = m.id AND v.side = 'user' AND v.created_at >= $1) \
             AND NOT EXISTS (SELECT 1 FROM messages t WHERE t.match_id = m.id AND t.sender = 'user' AND t.created_at >= $1) \
             AND NOT EXISTS (SELECT 1 FROM lichess_games g WHERE g.match_id = m.id) \
             ORDER BY m.created_at",
        )
        .bind(ts(cutoff))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(|r| parse_id("matches", r.get("id"))).collect()
    }

    /// How many unfinished matches a player holds.
    pub async fn active_match_count(&self, player: PlayerId) -> StoreResult<i64> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM matches WHERE player_id = $1 AND status = 'active'")
            .bind(player.to_string())
            .fetch_one(&self.pool)
            .await?;
        Ok(row.get("n"))
    }

    /// The newest unfinished match of a player against a persona.
    pub async fn active_match(&self, player: PlayerId, persona: &PersonaId) -> StoreResult<Option<MatchId>> {
        let row = sqlx::query(
            "SELECT id FROM matches WHERE player_id = $1 AND persona_id = $2 AND status = 'active' \
             ORDER BY created_at DESC LIMIT 1",
        )
        .bind(player.to_string())
        .bind(persona)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| parse_id("matches", r.get("id"))).transpose()
    }

    /// Matches of a player against a persona played to a result, newest
    /// first (one left unfinished counts for neither side).
    pub async fn finished_matches(
        &self,
        player: PlayerId,
        persona: &PersonaId,
        limit: i64,
    ) -> StoreResult<Vec<MatchRow>> {
        let rows = sqlx::query(&format!(
            "SELECT {MATCH_COLUMNS} FROM matches WHERE player_id = $1 AND persona_id = $2 AND status = 'finished' \
             AND termination <> 'abandoned' ORDER BY created_at DESC LIMIT $3"
        ))
        .bind(player.to_string())
        .bind(persona)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(match_from_row).collect()
    }

    pub async fn moves(&self, id: MatchId) -> StoreResult<Vec<MoveRow>> {
        let rows = sqlx::query(
            "SELECT ply, uci, san, side, fen_after, win_pct_white, win_pct_delta, eval_cp, eval_mate, think_ms, odds_deep, created_at \
             FROM moves WHERE match_id = $1 ORDER BY ply",
        )
        .bind(id.to_string())
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(MoveRow {
                    ply: r.get("ply"),
                    uci: r.get("uci"),
                    san: r.get("san"),
                    side: r.get("side"),
                    fen_after: r.get("fen_after"),
                    win_pct_white: r.get("win_pct_white"),
                    win_pct_delta: r.get("win_pct_delta"),
                    eval: Eval::from_columns(r.get("eval_cp"), r.get("eval_mate")),
                    think_ms: r.get("think_ms"),
                    odds_deep: r.get::<i64, _>("odds_deep") != 0,
                    created_at: parse_ts("moves", r.get("created_at"))?,
                })
            })
            .collect()
    }
}

fn match_from_row(r: &AnyRow) -> StoreResult<MatchRow> {
    let ended: Option<String> = r.get("ended_at");
    Ok(MatchRow {
        id: parse_id("matches", r.get("id"))?,
        player_id: parse_id("matches", r.get("player_id"))?,
        persona_id: r.get("persona_id"),
        user_color: r.get("user_color"),
        start_fen: r.get("start_fen"),
        status: {
            let status: String = r.get("status");
            status.parse().map_err(|_| StoreError::Corrupt {
                table: "matches",
                detail: format!("status '{status}'"),
            })?
        },
        result: r.get("result"),
        termination: r.get("termination"),
        emotion: r.get("emotion"),
        draw_offer: r.get("draw_offer"),
        created_at: parse_ts("matches", r.get("created_at"))?,
        ended_at: ended.map(|e| parse_ts("matches", &e)).transpose()?,
        utc_offset_minutes: r.get::<Option<i64>, _>("utc_offset_minutes").map(|m| m as i32),
        persona_elo: r.get::<Option<i64>, _>("persona_elo").map(|e| e as u32),
        adapted: r.get::<i64, _>("adapted") != 0,
        calibrated: r.get::<i64, _>("calibrated") != 0,
    })
}
